// The checkpoint reader on fixtures written by real torch 2.11 (on CUDA),
// on fixtures from scripts/make-checkpoint-fixtures.py, and on malformed and
// hostile inputs built here byte by byte.
#include <algorithm>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "checkpoint_test_support.h"
#include "frontend/checkpoint/checkpoint_reader.h"
#include "frontend/checkpoint/pickle_reader.h"
#include "frontend/checkpoint/zip_reader.h"

using namespace mpsaudit;
using namespace mpsaudit::checkpoint;
using namespace mpsaudit::checkpoint::testing;

namespace {

const TensorRecord *tensor(const CheckpointSummary &summary, const std::string &key) {
  for (const auto &record : summary.tensors)
    if (record.key == key)
      return &record;
  return nullptr;
}

std::string attribute(const Fact &fact, const char *key) {
  const std::string *value = fact.attribute(key);
  return value ? *value : std::string("<absent>");
}

// The real torch model: Linear(4,3) + Linear(3,2), float64 buffer `scale`
// (2), bfloat16 buffer `mask` (3): 15 + 8 + 2 + 3 = 28 elements;
// 23 x 4 + 2 x 8 + 3 x 2 = 114 bytes.
constexpr std::uint64_t kRealElements = 28;
constexpr std::uint64_t kRealBytes = 114;

} // namespace

TEST_CASE("torch 2.11 DataParallel state dict saved on cuda:0", "[checkpoint][torch]") {
  const CheckpointSummary summary = summarize(read_fixture("torch-2.11/dataparallel_cuda.pt"));
  CHECK(summary.format == "torch-zip");
  CHECK(summary.status == "ok");
  CHECK(summary.tensors.size() == 6);
  CHECK(summary.parameters == kRealElements);
  CHECK(summary.bytes == kRealBytes);
  CHECK(summary.cuda_storages == 6);
  CHECK(summary.devices == std::vector<std::string>{"cuda:0"});
  CHECK(summary.module_prefixed_keys == 6);
  CHECK(summary.float64_tensors == 1);
  CHECK(summary.float64_bytes == 16);
  CHECK(summary.dtypes == std::vector<std::string>{"bfloat16", "float32", "float64"});
  const TensorRecord *weight = tensor(summary, "module.fc1.weight");
  REQUIRE(weight);
  CHECK(weight->shape == std::vector<std::int64_t>{3, 4});
  CHECK(weight->dtype == "float32");
  CHECK(weight->device == "cuda:0");
  CHECK(summary.dangerous_globals.empty());
  CHECK(summary.other_globals.empty());
}

TEST_CASE("torch 2.11 training checkpoint: optimizer state is not counted as parameters",
          "[checkpoint][torch]") {
  const CheckpointSummary summary = summarize(read_fixture("torch-2.11/cuda_training.pt"));
  CHECK(summary.status == "ok");
  CHECK(summary.parameters == kRealElements);
  CHECK(summary.parameter_bytes == kRealBytes);
  // Adam after one step: exp_avg and exp_avg_sq (float32, like the four
  // parameters: 23 elements each) and a float32 step scalar per parameter.
  CHECK(summary.bytes == kRealBytes + 2 * 23 * 4 + 4 * 4);
  CHECK(summary.module_prefixed_keys == 0);
  CHECK(tensor(summary, "model.fc2.bias"));
  CHECK(std::find(summary.devices.begin(), summary.devices.end(), "cuda:0") != summary.devices.end());
  CHECK(summary.cuda_storages > 0);
}

TEST_CASE("torch 2.11 CPU, legacy and safetensors files agree", "[checkpoint][torch]") {
  for (const char *name :
       {"torch-2.11/cpu_state.pt", "torch-2.11/legacy_cpu.pt", "torch-2.11/cpu.safetensors"}) {
    INFO(name);
    const CheckpointSummary summary = summarize(read_fixture(name));
    CHECK(summary.status == "ok");
    CHECK(summary.parameters == kRealElements);
    CHECK(summary.bytes == kRealBytes);
    CHECK(summary.cuda_storages == 0);
    CHECK(summary.float64_tensors == 1);
    CHECK(summary.module_prefixed_keys == 0);
  }
  CHECK(summarize(read_fixture("torch-2.11/legacy_cpu.pt")).format == "torch-legacy");
  CHECK(summarize(read_fixture("torch-2.11/cpu.safetensors")).format == "safetensors");
}

TEST_CASE("torch 2.11 objects beyond a state dict are all in the rebuild set", "[checkpoint][torch]") {
  for (const char *name :
       {"torch-2.11/whole_model.pt", "torch-2.11/scripted.pt", "torch-2.11/training_extras.pt",
        "torch-2.11/quantized.pt", "torch-2.11/sparse.pt", "torch-2.11/float8.pt"}) {
    INFO(name);
    const CheckpointSummary summary = summarize(read_fixture(name));
    CHECK(summary.status == "ok");
    CHECK(summary.dangerous_globals.empty());
    CHECK(summary.other_globals.empty());
    CHECK_FALSE(summary.tensors.empty());
  }
  const CheckpointSummary float8 = summarize(read_fixture("torch-2.11/float8.pt"));
  CHECK(float8.dtypes == std::vector<std::string>{"float8_e4m3fn"});
}

TEST_CASE("generated fixtures: stored and deflated zip entries read the same", "[checkpoint][zip]") {
  for (const char *name : {"dataparallel_cuda.pt", "dataparallel_cuda_deflated.pt"}) {
    INFO(name);
    const CheckpointSummary summary = summarize(read_fixture(name));
    CHECK(summary.status == "ok");
    // fc.weight 3x4 float32, fc.bias 3 float32, pos_table 5 float64, steps scalar int64.
    CHECK(summary.parameters == 12 + 3 + 5 + 1);
    CHECK(summary.bytes == 48 + 12 + 40 + 8);
    CHECK(summary.float64_tensors == 1);
    CHECK(summary.float64_bytes == 40);
    CHECK(summary.cuda_storages == 3);
    CHECK(summary.devices == std::vector<std::string>{"cpu", "cuda:0"});
    CHECK(summary.module_prefixed_keys == 4);
    const TensorRecord *steps = tensor(summary, "module.steps");
    REQUIRE(steps);
    CHECK(steps->shape.empty());
    CHECK(steps->elements == 1);
  }
}

TEST_CASE("checkpoint facts carry the attributes rules test", "[checkpoint][facts]") {
  const std::string bytes = read_fixture("dataparallel_cuda.pt");
  const FileFacts facts = extract_checkpoint(bytes, "weights/model.pt", "");
  REQUIRE(facts.facts.size() == 2);
  const Fact &fact = facts.facts.front();
  CHECK(fact.kind == "checkpoint");
  CHECK(fact.span.line == 0); // binary: no line to quote
  CHECK(attribute(fact, "has_cuda_storage") == "true");
  CHECK(attribute(fact, "cuda_storages") == "3");
  CHECK(attribute(fact, "has_float64") == "true");
  CHECK(attribute(fact, "float64_bytes") == "40");
  CHECK(attribute(fact, "module_prefix") == "true");
  CHECK(attribute(fact, "devices") == "cpu,cuda:0");
  CHECK(attribute(fact, "parameters") == "21");
  CHECK(attribute(fact, "bytes") == "108");
  const Fact &detail = facts.facts.back();
  CHECK(detail.kind == "checkpoint-tensor");
  CHECK(detail.name == "module.pos_table");
  CHECK(attribute(detail, "dtype") == "float64");
  CHECK(attribute(detail, "shape") == "5");
  CHECK(facts.diagnostics.empty());
}

TEST_CASE("the front end reads from disk when the scan did not load the file", "[checkpoint][facts]") {
  const FileFacts facts = extract_checkpoint("", "model.pt", fixture_path("torch-2.11/dataparallel_cuda.pt"));
  REQUIRE_FALSE(facts.facts.empty());
  CHECK(attribute(facts.facts.front(), "cuda_storages") == "6");
  const FileFacts missing = extract_checkpoint("", "gone.pt", fixture_path("does-not-exist.pt"));
  CHECK(missing.facts.empty());
  REQUIRE(missing.diagnostics.size() == 1);
  CHECK(missing.diagnostics.front().path == "gone.pt");
}

TEST_CASE("safetensors headers", "[checkpoint][safetensors]") {
  const CheckpointSummary good = summarize(read_fixture("small.safetensors"));
  CHECK(good.status == "ok");
  CHECK(good.parameters == 32 + 32 + 4);
  CHECK(good.bytes == 32 * 4 + 32 * 2 + 4 * 8);
  CHECK(good.float64_bytes == 32);

  const CheckpointSummary too_long = summarize(read_fixture("bad_length.safetensors"));
  CHECK(too_long.status == "unreadable");
  CHECK(too_long.format == "safetensors");

  const CheckpointSummary bad_json = summarize(read_fixture("bad_json.safetensors"));
  CHECK(bad_json.status == "unreadable");
  CHECK_THAT(bad_json.problem, Catch::Contains("JSON"));

  const CheckpointSummary bad_offsets = summarize(read_fixture("bad_offsets.safetensors"));
  CHECK(bad_offsets.status == "partial");
  CHECK(bad_offsets.tensors.empty());

  const FileFacts facts = extract_checkpoint(read_fixture("bad_json.safetensors"), "w.safetensors", "");
  REQUIRE(facts.diagnostics.size() == 1);
  CHECK(facts.diagnostics.front().code == "checkpoint-unreadable");
  CHECK(facts.diagnostics.front().path == "w.safetensors");
}

TEST_CASE("a truncated zip is reported, not crashed on", "[checkpoint][zip][malformed]") {
  const CheckpointSummary summary = summarize(read_fixture("truncated.pt"));
  CHECK(summary.status == "unreadable");
  CHECK_THAT(summary.problem, Catch::Contains("truncated"));

  // Every prefix of a real checkpoint: never a crash, never "ok" with data missing.
  const std::string whole = read_fixture("torch-2.11/cuda_training.pt");
  for (std::size_t length = 0; length < whole.size(); length += 37) {
    const CheckpointSummary part = summarize(whole.substr(0, length));
    CHECK(part.status != "ok");
  }
}

TEST_CASE("a corrupted data.pkl is caught by the zip CRC", "[checkpoint][zip][malformed]") {
  std::string bytes = read_fixture("torch-2.11/cpu_state.pt");
  const auto at = bytes.find("fc1.weight");
  REQUIRE(at != std::string::npos);
  bytes[at] = 'g';
  const CheckpointSummary summary = summarize(bytes);
  CHECK(summary.status == "unreadable");
  CHECK_THAT(summary.problem, Catch::Contains("CRC"));

  // A damaged CRC does not hide a callable: torch's zip reader need not check it.
  std::string hostile = read_fixture("hostile_os_system.pt");
  const auto payload = hostile.find("mpsaudit-fixture");
  REQUIRE(payload != std::string::npos);
  hostile[payload] = 'M';
  const CheckpointSummary damaged = summarize(hostile);
  CHECK(damaged.status == "hostile");
  CHECK(damaged.dangerous_globals == std::vector<std::string>{"posix.system"});
  CHECK_THAT(damaged.problem, Catch::Contains("CRC"));
}

TEST_CASE("a pickle with an os.system GLOBAL is reported and never run", "[checkpoint][hostile]") {
  for (const char *name : {"hostile_os_system.pt", "hostile_legacy.pth"}) {
    INFO(name);
    const CheckpointSummary summary = summarize(read_fixture(name));
    CHECK(summary.status == "hostile");
    CHECK(summary.dangerous_globals == std::vector<std::string>{"posix.system"});
    const FileFacts facts = checkpoint_facts(summary, name);
    REQUIRE(facts.facts.size() == 1);
    CHECK(attribute(facts.facts.front(), "status") == "hostile");
    CHECK(attribute(facts.facts.front(), "dangerous_globals") == "posix.system");
    REQUIRE(facts.diagnostics.size() == 1);
    CHECK(facts.diagnostics.front().code == "checkpoint-hostile-pickle");
  }
}

TEST_CASE("restricted pickle reader: decodes without calling", "[checkpoint][pickle]") {
  // Protocol 0 text opcodes: c builtins\neval\n (S'1+1'\n tR. -> eval("1+1")
  const std::string eval_call = "cbuiltins\neval\n(S'__import__(\"os\").system(\"true\")'\ntR.";
  const PickleResult result = parse_pickle(eval_call);
  REQUIRE(result.ok);
  REQUIRE(result.root->kind == PickleKind::Call);
  CHECK(global_name(*result.root->callee) == "builtins.eval");
  REQUIRE(result.globals.size() == 1);

  const CheckpointSummary summary = summarize("\x80\x02" + eval_call);
  CHECK(summary.status == "hostile");
  CHECK(summary.dangerous_globals == std::vector<std::string>{"builtins.eval"});

  // STACK_GLOBAL (protocol 4) spelling of subprocess.Popen.
  const std::string popen = std::string("\x80\x04\x8c\x0asubprocess\x8c\x05Popen\x93\x8c\x02ls\x85R.", 24);
  const CheckpointSummary stacked = summarize(popen);
  CHECK(stacked.status == "hostile");
  CHECK(stacked.dangerous_globals == std::vector<std::string>{"subprocess.Popen"});

  // A callable outside torch's rebuild set is hostile too, listed apart
  // from the known code runners.
  const CheckpointSummary namespace_global = summarize("\x80\x02"
                                                       "cargparse\nNamespace\n)\x81}b.");
  CHECK(namespace_global.status == "hostile");
  CHECK(namespace_global.dangerous_globals.empty());
  CHECK(namespace_global.other_globals == std::vector<std::string>{"argparse.Namespace"});
}

TEST_CASE("restricted pickle reader: malformed streams", "[checkpoint][pickle][malformed]") {
  CHECK_FALSE(parse_pickle("").ok);
  CHECK_FALSE(parse_pickle("\x80\x02").ok);                                  // no STOP
  CHECK_FALSE(parse_pickle(std::string("\x80\x02X\xff\xff\xff\x7f", 7)).ok); // length past the end
  CHECK_FALSE(parse_pickle("h\x05.").ok);                                    // memo key never stored
  CHECK_FALSE(parse_pickle("t.").ok);                                        // TUPLE without MARK
  CHECK_FALSE(parse_pickle("\xfe.").ok);                                     // unknown opcode
  CHECK_FALSE(parse_pickle("a.").ok);                                        // stack underflow
  const PickleResult result = parse_pickle(")}."); // STOP leaves a value behind: fine
  CHECK(result.ok);
}

TEST_CASE("restricted pickle reader: deep nesting does not exhaust the stack",
          "[checkpoint][pickle][hostile]") {
  // Each round makes a new list, appends the previous one (fetched from the
  // memo) into it, memoizes the new one and pops it: 200000 rounds nest
  // 200000 deep while the pickle stack never holds more than three values.
  // A recursive destructor or walk would overflow the C++ stack.
  std::string stream = "\x80\x02]q";
  stream.push_back('\0');
  for (int i = 0; i < 200000; ++i) {
    stream += "]h";
    stream.push_back('\0');
    stream += "aq";
    stream.push_back('\0');
    stream += "0";
  }
  stream += "h";
  stream.push_back('\0');
  stream += ".";
  {
    const PickleResult result = parse_pickle(stream);
    REQUIRE(result.ok);
    CHECK(result.root->kind == PickleKind::List);
    CHECK(result.root->items.size() == 1);
  }
  const CheckpointSummary summary = summarize(stream); // the tensor walk is depth-limited
  CHECK(summary.status == "ok");
  CHECK(summary.tensors.empty());
}

TEST_CASE("not a checkpoint: a .bin that is something else", "[checkpoint]") {
  const FileFacts facts = extract_checkpoint("word2vec binary vectors 300\n\x01\x02", "vectors.bin", "");
  CHECK(facts.facts.empty());
  CHECK(facts.mode == "skipped");
  REQUIRE(facts.diagnostics.size() == 1);
  CHECK(facts.diagnostics.front().level == DiagnosticLevel::Note);
  const FileFacts empty = extract_checkpoint("", "empty.pt", "");
  REQUIRE_FALSE(empty.facts.empty());
  CHECK(attribute(empty.facts.front(), "status") == "unreadable");
}

TEST_CASE("zip reader: entries, ZIP64-free archives, and garbage", "[checkpoint][zip]") {
  const std::string bytes = read_fixture("torch-2.11/cpu_state.pt");
  MemorySource source(bytes);
  ZipReader zip(source);
  REQUIRE(zip.open());
  CHECK(zip.find("cpu_state/data.pkl"));
  CHECK(zip.find("cpu_state/byteorder"));
  const auto order = zip.read(*zip.find("cpu_state/byteorder"), 64);
  REQUIRE(order);
  CHECK(*order == "little");
  CHECK_FALSE(zip.read(*zip.find("cpu_state/data.pkl"), 10)); // over the size limit
  CHECK_THAT(zip.error(), Catch::Contains("limit"));

  const std::string garbage(100, 'P');
  MemorySource garbage_source(garbage);
  ZipReader bad(garbage_source);
  CHECK_FALSE(bad.open());
}

TEST_CASE("dtype sizes and human sizes", "[checkpoint]") {
  CHECK(dtype_size("float64") == 8);
  CHECK(dtype_size("bfloat16") == 2);
  CHECK(dtype_size("bool") == 1);
  CHECK(dtype_size("nonsense") == 0);
  CHECK(human_bytes(999) == "999 B");
  CHECK(human_bytes(1'500'000) == "1.5 MB");
}

TEST_CASE("mutated checkpoints and pickles never crash the reader", "[checkpoint][malformed]") {
  // A fixed linear congruential generator: the same 3000 mutants every run.
  std::uint64_t state = 0x5DEECE66Dull;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 33);
  };
  // The raw pickle of a real torch checkpoint, and whole files of each format.
  const std::string archive = read_fixture("torch-2.11/cuda_training.pt");
  MemorySource archive_source(archive);
  ZipReader zip(archive_source);
  REQUIRE(zip.open());
  const auto pickle = zip.read(*zip.find("cuda_training/data.pkl"), 1 << 20);
  REQUIRE(pickle);
  const std::vector<std::string> seeds{*pickle, read_fixture("torch-2.11/legacy_cpu.pt"),
                                       read_fixture("torch-2.11/cpu.safetensors"), archive};
  const std::set<std::string> statuses{"ok", "partial", "unreadable", "hostile", "not-a-checkpoint"};
  for (int round = 0; round < 3000; ++round) {
    std::string mutant = seeds[static_cast<std::size_t>(round) % seeds.size()];
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int edit = 0; edit < edits; ++edit) {
      const std::size_t at = next() % mutant.size();
      switch (next() % 3) {
      case 0:
        mutant[at] = static_cast<char>(next());
        break;
      case 1:
        mutant.erase(at, 1 + next() % 8);
        break;
      default:
        mutant.insert(at, 1, static_cast<char>(next()));
      }
      if (mutant.empty())
        mutant = "x";
    }
    const CheckpointSummary summary = summarize(mutant);
    REQUIRE(statuses.count(summary.status) == 1);
    (void)checkpoint_facts(summary, "mutant.pt");
  }
}
