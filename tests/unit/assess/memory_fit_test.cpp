// The memory-fit estimate: model-config parameter counts and the footprint
// arithmetic, checked against numbers computed by hand in the comments.
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "assess/memory_fit.h"
#include "core/fact_kinds.h"
#include "frontend/checkpoint/checkpoint_reader.h"
#include "frontend/prose/model_config.h"
#include "frontend/prose/prose_frontend.h"

using namespace mpsaudit;

namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

MemoryEvidence checkpoint_evidence(std::uint64_t parameters, std::uint64_t bytes) {
  MemoryEvidence evidence;
  evidence.source = "checkpoint";
  evidence.path = "model.safetensors";
  evidence.parameters = parameters;
  evidence.weight_bytes = bytes;
  return evidence;
}

MemoryEvidence stated_vram(double gigabytes) {
  MemoryEvidence evidence;
  evidence.source = "doc-vram";
  evidence.path = "README.md";
  evidence.stated_bytes = static_cast<std::uint64_t>(gigabytes * kGiB);
  return evidence;
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

ProjectFile project_file(const std::string &relative, FileFacts facts) {
  ProjectFile file;
  file.path = relative;
  file.facts = std::move(facts);
  return file;
}

} // namespace

TEST_CASE("transformer parameter estimate from config.json (TinyLlama-1.1B shape)", "[memory-fit][config]") {
  const std::string path = std::string(MPSAUDIT_SOURCE_DIR) + "/samples/memory-fit/config.json";
  const auto shape = read_model_shape(read_file(path), "config.json");
  REQUIRE(shape);
  CHECK(shape->hidden == 2048);
  CHECK(shape->layers == 22);
  CHECK(shape->kv_heads == 4);
  CHECK(shape->gated_mlp);
  CHECK_FALSE(shape->tied_embeddings);
  // attention = 2*2048^2 + 2*2048*(2048*4/32 = 256) = 8,388,608 + 1,048,576 = 9,437,184
  // MLP       = 3*2048*5632                                             = 34,603,008
  // layers    = 22 * 44,040,192                                         = 968,884,224
  // embeddings, untied: 2 * 32000 * 2048                                = 131,072,000
  CHECK(estimate_transformer_parameters(*shape) == 1'099'956'224ull);
  const FileFacts facts = extract_model_config(read_file(path), "config.json");
  REQUIRE(facts.facts.size() == 1);
  CHECK(*facts.facts.front().attribute("parameters") == "1099956224");
  CHECK(*facts.facts.front().attribute("dtype") == "bfloat16");
}

TEST_CASE("transformer parameter estimate from YAML (GPT-2 small shape)", "[memory-fit][config]") {
  const std::string yaml = "trainer:\n  max_steps: 1000\nmodel:\n  n_embd: 768\n  n_layer: 12\n  n_head: 12\n"
                           "  vocab_size: 50257\n  activation_function: gelu_new\n";
  const auto shape = read_model_shape(yaml, "configs/gpt2.yaml");
  REQUIRE(shape);
  // attention 4*768^2 = 2,359,296; MLP 2*768*3072 = 4,718,592; 12 layers = 84,934,656;
  // tied embeddings 50257*768 = 38,597,376; total 123,532,032 (GPT-2 small: 124M).
  CHECK(estimate_transformer_parameters(*shape) == 123'532'032ull);
}

TEST_CASE("configs without a model shape, and malformed ones", "[memory-fit][config][malformed]") {
  CHECK_FALSE(read_model_shape("name: ci\non: [push]\n", "ci.yml"));
  CHECK_FALSE(read_model_shape("{\"hidden_size\": 1024}", "config.json"));  // no layer count
  CHECK_FALSE(read_model_shape("{\"hidden_size\": 1024, ", "config.json")); // truncated JSON
  CHECK_FALSE(read_model_shape("a: [b, {c: ]", "bad.yaml"));                // bad YAML
  CHECK_FALSE(read_model_shape(std::string(100, '[') + std::string(100, ']'), "deep.yaml"));
  // No model there: its one setting is all the file gives.
  const FileFacts other = extract_model_config("key: value\n", "other.yaml");
  REQUIRE(other.facts.size() == 1);
  CHECK(other.facts.front().kind == fact_kind::ConfigSetting);
  // "Billion laughs": aliases that would expand to 10^9 nodes are cut off.
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char level = 'b'; level <= 'j'; ++level)
    laughs += std::string(1, level) + ": &" + level + " [*" + char(level - 1) + ", *" + char(level - 1) +
              ", *" + char(level - 1) + ", *" + char(level - 1) + ", *" + char(level - 1) + ", *" +
              char(level - 1) + ", *" + char(level - 1) + ", *" + char(level - 1) + ", *" + char(level - 1) +
              ", *" + char(level - 1) + "]\n";
  CHECK_FALSE(read_model_shape(laughs, "laughs.yaml"));
}

TEST_CASE("footprint arithmetic: 1B parameters in fp16", "[memory-fit]") {
  const MemoryFit fit =
      estimate_memory_fit(std::vector<MemoryEvidence>{checkpoint_evidence(1'000'000'000, 2'000'000'000)});
  REQUIRE(fit.has_model_size);
  CHECK(fit.bytes_per_parameter == Approx(2.0));
  // inference: 1.2 * 1e9 * 2 = 2.4e9 bytes (2.24 GiB) -> 16 GB tier (10.67 GiB usable)
  CHECK(fit.inference_bytes == 2'400'000'000ull);
  CHECK(fit.inference_min_tier_gb == 16);
  // training: 1.2 * 1e9 * 16 = 19.2e9 bytes (17.88 GiB): 24 GB gives 16 GiB (no), 32 GB gives 21.33 GiB
  CHECK(fit.training_bytes == 19'200'000'000ull);
  CHECK(fit.training_min_tier_gb == 32);
  CHECK(fit.summary == "inference fits from 16 GB; training with Adam needs 32 GB or more");
  CHECK_FALSE(fit.training_fits_no_mac());
  REQUIRE(fit.tiers.size() == bundled_assess_policy().mac_memory_tiers_gb.size());
  CHECK(fit.tiers[0].usable_bytes == 16ull * kGiB * 2 / 3);
  CHECK(fit.tiers[3].usable_bytes == 64ull * kGiB * 3 / 4);
}

TEST_CASE("the decision input flips when training no longer fits any Mac", "[memory-fit]") {
  // 7e9 fp16: training 1.2 * 7e9 * 16 = 134.4e9 bytes = 125.2 GiB -> 192 GB tier (144 GiB usable)
  const MemoryFit fits =
      estimate_memory_fit(std::vector<MemoryEvidence>{checkpoint_evidence(7'000'000'000, 14'000'000'000)});
  CHECK(fits.training_min_tier_gb == 192);
  CHECK_FALSE(fits.training_fits_no_mac());
  // 10e9 fp16: training 192e9 bytes = 178.8 GiB > 144 GiB: past M2 Ultra's
  // 192 GB, within an M3 Ultra's 256 GB (192 GiB usable).
  const MemoryFit ultra =
      estimate_memory_fit(std::vector<MemoryEvidence>{checkpoint_evidence(10'000'000'000, 20'000'000'000)});
  CHECK(ultra.training_min_tier_gb == 256);
  CHECK_FALSE(ultra.training_fits_no_mac());
  // 25e9 fp16: training 480e9 bytes = 447.03 GiB (shown rounded up, 448 GB) >
  // 384 GiB (512 GB): no Mac trains it.
  // inference 1.2 * 25e9 * 2 = 60e9 bytes = 55.9 GiB: 64 GB gives 48 (no), 96 GB gives 72.
  const MemoryFit too_big =
      estimate_memory_fit(std::vector<MemoryEvidence>{checkpoint_evidence(25'000'000'000, 50'000'000'000)});
  CHECK(too_big.training_fits_no_mac());
  CHECK(too_big.training_min_tier_gb == -1);
  CHECK(too_big.inference_min_tier_gb == 96);
  CHECK(too_big.summary ==
        "inference fits from 96 GB; training with Adam (448 GB) fits no Mac, not even 512 GB");
}

TEST_CASE("float64 weights count as float32 on MPS", "[memory-fit]") {
  // 1e8 parameters stored as float64 (8e8 bytes): MPS casts them, so 4 bytes each.
  const MemoryFit fit =
      estimate_memory_fit(std::vector<MemoryEvidence>{checkpoint_evidence(100'000'000, 800'000'000)});
  CHECK(fit.bytes_per_parameter == Approx(4.0));
  CHECK(fit.inference_bytes == 480'000'000ull);
}

TEST_CASE("stated VRAM raises the training need; alone it is the estimate", "[memory-fit]") {
  const MemoryFit with_model = estimate_memory_fit(
      std::vector<MemoryEvidence>{checkpoint_evidence(1'000'000'000, 2'000'000'000), stated_vram(24)});
  // 24 GiB > 17.88 GiB computed: 32 GB gives 21.33 GiB (no), 64 GB gives 48 GiB.
  CHECK(with_model.training_bytes == 24 * kGiB);
  CHECK(with_model.training_min_tier_gb == 64);
  CHECK(with_model.summary == "inference fits from 16 GB; training with Adam needs 64 GB or more");

  const MemoryFit stated_only = estimate_memory_fit(std::vector<MemoryEvidence>{stated_vram(80)});
  CHECK_FALSE(stated_only.has_model_size);
  CHECK(stated_only.inference_min_tier_gb == 0);
  CHECK(stated_only.training_min_tier_gb == 128); // 96 GB gives 72 GiB, 128 GB gives 96 GiB
  CHECK(stated_only.summary == "the documented GPU memory needs 128 GB or more");

  const MemoryFit nothing = estimate_memory_fit(std::vector<MemoryEvidence>{});
  CHECK_FALSE(nothing.has_estimate);
  CHECK(nothing.training_min_tier_gb == 0);
}

TEST_CASE("the largest model decides; shards of one model are summed", "[memory-fit]") {
  auto shard = [](const std::string &path, std::uint64_t parameters) {
    FileFacts facts;
    Fact fact;
    fact.kind = "checkpoint";
    fact.set_attribute("status", "ok");
    fact.set_attribute("parameters", std::to_string(parameters));
    fact.set_attribute("parameter_bytes", std::to_string(parameters * 2));
    facts.facts.push_back(fact);
    return project_file(path, facts);
  };
  std::vector<ProjectFile> files{shard("hf/model-00001-of-00002.safetensors", 3'000'000'000),
                                 shard("hf/model-00002-of-00002.safetensors", 2'000'000'000),
                                 shard("tests/tiny.pt", 1000)};
  const MemoryFit fit = estimate_memory_fit(files, bundled_assess_policy().mac_memory_tiers_gb);
  CHECK(fit.parameters == 5'000'000'000ull);
  CHECK(fit.basis.detail == "2 shards");
  CHECK(fit.evidence.size() == 2);
}

TEST_CASE("the sample repository: the issue's example sentence", "[memory-fit][sample]") {
  const std::string root = std::string(MPSAUDIT_SOURCE_DIR) + "/samples/memory-fit/";
  std::vector<ProjectFile> files;
  files.push_back(project_file("README.md", extract_prose_text(read_file(root + "README.md"), "README.md")));
  files.push_back(
      project_file("config.json", extract_model_config(read_file(root + "config.json"), "config.json")));
  for (const char *checkpoint :
       {"checkpoints/encoder.pt", "checkpoints/finetuned_dp.pt", "weights/model.safetensors"})
    files.push_back(project_file(
        checkpoint, checkpoint::extract_checkpoint(read_file(root + checkpoint), checkpoint, "")));
  const MemoryFit fit = estimate_memory_fit(files, bundled_assess_policy().mac_memory_tiers_gb);
  CHECK(fit.basis.source == "model-config");
  CHECK(fit.parameters == 1'099'956'224ull);
  // bf16: inference 1.2 * 1,099,956,224 * 2 = 2.46 GiB -> 16 GB.
  // training 1.2 * 1,099,956,224 * 16 = 19.67 GiB, raised to the README's 24 GB -> 64 GB.
  CHECK(fit.summary == "inference fits from 16 GB; training with Adam needs 64 GB or more");
  CHECK(fit.stated_vram_bytes == 24 * kGiB);
  CHECK(fit.evidence.size() == 5);
}

TEST_CASE("usable fraction and its source", "[memory-fit]") {
  CHECK(usable_fraction(16) == Approx(2.0 / 3.0));
  CHECK(usable_fraction(32) == Approx(2.0 / 3.0));
  CHECK(usable_fraction(64) == Approx(0.75));
  CHECK(usable_fraction_source().find("recommendedMaxWorkingSetSize") != std::string::npos);
  CHECK(format_gib(24 * kGiB) == "24 GB");
  CHECK(format_gib(kGiB + kGiB / 2) == "1.5 GB");
}

TEST_CASE("a YAML config's scalar settings are config-setting facts at their values' lines",
          "[memory-fit][config]") {
  const FileFacts facts = extract_model_config("# settings\n"
                                               "trainer:\n"
                                               "  device: cuda  # the GPU\n"
                                               "  devices: [0, 1]\n"
                                               "distributed: {backend: nccl}\n",
                                               "configs/train.yaml");
  std::vector<std::string> settings;
  for (const Fact &fact : facts.facts)
    if (fact.kind == fact_kind::ConfigSetting)
      settings.push_back(fact.name.str() + "=" + *fact.attribute("value") + "@" +
                         std::to_string(fact.span.line) + ":" + std::to_string(fact.span.column));
  // A list is no scalar setting; a flow mapping is read like a block one.
  CHECK(settings == std::vector<std::string>{"trainer.device=cuda@3:11", "distributed.backend=nccl@5:24"});
  // JSON gives none (no line numbers), and a broken YAML file none either.
  CHECK(extract_model_config("{\"device\": \"cuda\"}", "config.json").facts.empty());
  CHECK(extract_model_config("a: [b, {c: ]", "bad.yaml").facts.empty());
}
