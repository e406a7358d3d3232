// The pickle reader against streams built to hide a callable from it: every
// place where Python's unpickler carries on, it must carry on too; its memory
// and input are bounded; it reads the same through any chunking of its input.
// The whole-file attacks (every protocol in every container, padding, memory
// amplification) are in tests/e2e/security/pickle_*.sh.
#include <algorithm>
#include <cstring>
#include <string>

#include <catch2/catch.hpp>

#include "checkpoint_test_support.h"
#include "frontend/checkpoint/checkpoint_reader.h"
#include "frontend/checkpoint/pickle_reader.h"
#include "frontend/checkpoint/zip_reader.h"
#include "trickle_stream.h"

using namespace mpsaudit;
using namespace mpsaudit::checkpoint;
using namespace mpsaudit::checkpoint::testing;
using namespace std::string_literals; // "..."s keeps NUL bytes

namespace {

std::vector<std::string> names(const PickleResult &result) {
  std::vector<std::string> out;
  for (const auto &reference : result.globals)
    out.push_back(reference.module + "." + reference.name);
  return out;
}

std::string data_pkl(const std::string &archive_name, const std::string &entry) {
  const std::string archive = read_fixture(archive_name);
  MemorySource source(archive);
  ZipReader zip(source);
  REQUIRE(zip.open());
  const auto pickle = zip.read(*zip.find(entry), 1 << 20);
  REQUIRE(pickle);
  return *pickle;
}

const std::string kSystem = "cposix\nsystem\n(S'touch x'\ntR.";

} // namespace

TEST_CASE("the pickle reader reads the same through any chunking", "[checkpoint][pickle][security]") {
  const std::string pickle = data_pkl("torch-2.11/cuda_training.pt", "cuda_training/data.pkl");
  const PickleResult whole = parse_pickle(pickle);
  REQUIRE(whole.ok);
  for (std::size_t step : {1, 2, 3, 7, 64, 4093}) {
    INFO("step " << step);
    TrickleStream stream(pickle, step);
    const PickleResult trickled = parse_pickle(stream);
    REQUIRE(trickled.ok);
    CHECK(names(trickled) == names(whole));
    CHECK(trickled.end_offset == whole.end_offset);
    CHECK(trickled.arena.size() == whole.arena.size());
  }
}

TEST_CASE("where Python's unpickler carries on, the reader does too", "[checkpoint][pickle][security]") {
  // Each prefix is something the C unpickler accepts and the reader once
  // stopped at; the os.system call after it must still be seen.
  const std::vector<std::pair<const char *, std::string>> prefixes{
      {"POP on a MARK pops the mark", "(0"s},
      {"SETITEM on a list (list.__setitem__)", "]K\x00K\x01sK\x00K\x02s0"s},
      {"APPEND to a call result", "cbuiltins\nstr\n)R]a0"s},
      {"ADDITEMS to a list", "](K\x01\x90"
                             "0"s},
      {"BUILD on a dict", "}}b0"s},
      {"INT in hex, as strtol reads it", "I0x10\n0"s},
      {"LONG with underscores", "L1_000L\n0"s},
      {"a memo index written ' 1_0'", "Np 1_0\n0g10\n0"s},
      {"READONLY_BUFFER", "C\x01x\x98"
                          "0"s},
      {"STRING with an invalid escape", "S'\\x4'\n0"s},
  };
  for (const auto &[why, prefix] : prefixes) {
    INFO(why);
    const PickleResult result = parse_pickle(prefix + kSystem);
    CHECK(result.stopped);
    const auto found = names(result);
    CHECK(std::find(found.begin(), found.end(), "posix.system") != found.end());
    CHECK(summarize(prefix + kSystem).dangerous_globals == std::vector<std::string>{"posix.system"});
  }
}

TEST_CASE("names written so that they do not appear in the bytes", "[checkpoint][pickle][security]") {
  // STRING escapes, raw-unicode-escape, memo round trips.
  const PickleResult escaped = parse_pickle("S'\\x70o\\163ix'\nS'sys\\x74em'\n\x93(Vx\ntR.");
  CHECK(names(escaped) == std::vector<std::string>{"posix.system"});
  const PickleResult unicode = parse_pickle("V\\u0070osix\nV\\U00000073ystem\n\x93(Vx\ntR.");
  CHECK(names(unicode) == std::vector<std::string>{"posix.system"});
  // BINSTRING, SHORT_BINSTRING and BINUNICODE8 pushes are str to torch.load.
  const PickleResult binstring = parse_pickle("T\x05\x00\x00\x00posixU\x06system\x93(Vx\ntR."s);
  CHECK(names(binstring) == std::vector<std::string>{"posix.system"});
  const PickleResult unicode8 =
      parse_pickle("\x8d\x05\x00\x00\x00\x00\x00\x00\x00posix\x8c\x06system\x93(Vx\ntR."s);
  CHECK(names(unicode8) == std::vector<std::string>{"posix.system"});
  const PickleResult memo = parse_pickle("Vposix\np7\n0Vsystem\nq\x08"
                                         "0g7\nh\x08\x93(Vx\ntR.");
  CHECK(names(memo) == std::vector<std::string>{"posix.system"});
  // A dotted name is an attribute chain (protocol 4): torch's __builtins__
  // reaches eval, torch.hub.load fetches and runs code.
  for (const char *name : {"__builtins__.get", "hub.load", "storage._load_from_bytes"}) {
    INFO(name);
    const std::string stream = std::string("\x80\x04\x8c\x05torch\x8c") +
                               static_cast<char>(std::strlen(name)) + name + "\x93(Vx\ntR.";
    const CheckpointSummary summary = summarize(stream);
    CHECK(summary.status == "hostile");
    CHECK(summary.dangerous_globals == std::vector<std::string>{std::string("torch.") + name});
  }
  // ... while torch's own rebuild function, spelt the same way, is not reported.
  const CheckpointSummary rebuild =
      summarize("\x80\x04\x8c\x05torch\x8c\x19_utils._rebuild_tensor_v2\x93)R.");
  CHECK(rebuild.status != "hostile");
  CHECK(rebuild.other_globals.empty());
}

TEST_CASE("callables the reader cannot name are reported, not ignored", "[checkpoint][pickle][security]") {
  // STACK_GLOBAL on names that builtins.str returns at load time.
  const std::string computed = "cbuiltins\nstr\n(Vposix\ntRcbuiltins\nstr\n(Vsystem\ntR\x93(Vx\ntR.";
  const CheckpointSummary summary = summarize(computed);
  CHECK(summary.status == "hostile");
  REQUIRE(summary.other_globals.size() == 1);
  CHECK_THAT(summary.other_globals.front(), Catch::Contains("STACK_GLOBAL on computed names"));
  // STACK_GLOBAL on literals that are not strings: Python stops there, so does the reader.
  CHECK_FALSE(parse_pickle("NN\x93.").stopped);
  // EXT1, EXT2, EXT4: copyreg extension codes.
  for (const std::string &stream : {"\x82\x10)R."s, "\x83\x10\x01)R."s, "\x84\x10\x01\x00\x00)R."s}) {
    const CheckpointSummary extension = summarize(stream);
    CHECK(extension.status == "hostile");
    REQUIRE(extension.other_globals.size() == 1);
    CHECK_THAT(extension.other_globals.front(), Catch::StartsWith("copyreg extension code"));
  }
  // Protocols Python refuses end the stream where Python stops.
  CHECK_FALSE(parse_pickle(std::string("\x80\x06") + kSystem).stopped);
}

TEST_CASE("memory is bounded in bytes and callables past the bound are still seen",
          "[checkpoint][pickle][security]") {
  PickleLimits limits;
  limits.max_memory_bytes = 1 << 20;
  for (const char opcode : {']', '(', 'N'}) {
    INFO("opcode " << opcode);
    const std::string stream = std::string(200000, opcode) + kSystem;
    const PickleResult result = parse_pickle(stream, 0, limits);
    CHECK(result.memory_limit_hit);
    CHECK(result.stopped);
    CHECK_FALSE(result.ok);
    CHECK(result.arena.empty());
    CHECK(names(result) == std::vector<std::string>{"posix.system"});
  }
  // A memo that only grows: NONE MEMOIZE, again and again.
  std::string memo = "\x80\x04";
  for (int i = 0; i < 100000; ++i)
    memo += "N\x94";
  const PickleResult memoized = parse_pickle(memo + kSystem, 0, limits);
  CHECK(memoized.memory_limit_hit);
  CHECK(names(memoized) == std::vector<std::string>{"posix.system"});
  // Past the bound the stack is gone: a STACK_GLOBAL is a computed callable.
  const PickleResult stacked = parse_pickle(std::string(200000, 'N') + "Vposix\nVsystem\n\x93.", 0, limits);
  REQUIRE(stacked.globals.size() == 1);
  CHECK(stacked.globals.front().form == GlobalForm::Computed);
  // A real checkpoint stays far below the default bound.
  CHECK_FALSE(
      parse_pickle(data_pkl("torch-2.11/cuda_training.pt", "cuda_training/data.pkl")).memory_limit_hit);
}

TEST_CASE("input is bounded and a callable before the limit is reported", "[checkpoint][pickle][security]") {
  PickleLimits limits;
  limits.max_input_bytes = 4096;
  // GLOBAL, then 10 000 bytes of BINBYTES, then the call.
  std::string stream = "cposix\nsystem\nB";
  stream += "\x10\x27\x00\x00"s + std::string(10000, 'x') + "0(Vx\ntR.";
  const PickleResult result = parse_pickle(stream, 0, limits);
  CHECK(result.input_limit_hit);
  CHECK_FALSE(result.stopped);
  CHECK(names(result) == std::vector<std::string>{"posix.system"});
  // The same stream ending exactly at the limit is not cut.
  limits.max_input_bytes = stream.size();
  CHECK(parse_pickle(stream, 0, limits).stopped);
  // Long arguments are read without being kept whole.
  limits = PickleLimits{};
  limits.max_kept_string = 16;
  const PickleResult kept = parse_pickle("V" + std::string(1000, 'a') + "\n.", 0, limits);
  REQUIRE(kept.ok);
  CHECK(kept.root->text.size() == 16);
}

TEST_CASE("thousands of distinct callables cannot crowd out the dangerous one",
          "[checkpoint][pickle][security]") {
  std::string stream;
  for (int i = 0; i < 5000; ++i)
    stream += "cmodule" + std::to_string(i) + "\nname\n0";
  stream += kSystem;
  const CheckpointSummary summary = summarize(stream);
  CHECK(summary.status == "hostile");
  CHECK(summary.unlisted_globals > 0);
  CHECK_FALSE(summary.other_globals.empty());
  const FileFacts facts = checkpoint_facts(summary, "crowd.pt");
  REQUIRE_FALSE(facts.facts.empty());
  CHECK_THAT(*facts.facts.front().attribute("untrusted_globals"), Catch::Contains("more"));
}

TEST_CASE("a plain pickle of any protocol is read and other bytes still get the note",
          "[checkpoint][pickle]") {
  // Protocol 0 and 1 pickles do not start with PROTO.
  const CheckpointSummary protocol0 = summarize("(dp0\nVepoch\np1\nI3\ns.");
  CHECK(protocol0.format == "pickle");
  CHECK(protocol0.status == "ok");
  const CheckpointSummary protocol1 = summarize("}q\x00X\x05\x00\x00\x00"
                                                "epochq\x01K\x03s."s);
  CHECK(protocol1.format == "pickle");
  CHECK(protocol1.status == "ok");
  for (const char *text : {"word2vec binary vectors 300\n", "README for the weights\n", "bert vocabulary\n",
                           "cat\n", "(1, 2)\n"}) {
    INFO(text);
    CHECK(summarize(text).status == "not-a-checkpoint");
  }
}
