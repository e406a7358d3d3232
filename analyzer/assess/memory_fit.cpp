#include "assess/memory_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>

#include "core/fact_kinds.h"

namespace mpsaudit {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;
constexpr double kOverhead = 1.2;             // activations, workspace, allocator slack
constexpr double kTrainingBytesPerParam = 16; // fp32 weights 4 + grads 4 + Adam m 4 + v 4

std::uint64_t attribute_number(const Fact &fact, const char *key) {
  const std::string *value = fact.attribute(key);
  if (!value || value->empty() || value->size() > 19 ||
      !std::all_of(value->begin(), value->end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  return std::stoull(*value);
}

double bytes_per_dtype(const std::string &dtype) {
  if (dtype.find("16") != std::string::npos)
    return 2;
  if (dtype.find("8") != std::string::npos && dtype.find("int8") != std::string::npos)
    return 1;
  return 4; // float32 by default; float64 would be cast to float32 on MPS
}

// "model-00001-of-00003.safetensors" -> "model-of-00003.safetensors": the
// key that groups the shards of one model in one folder.
std::string shard_group(const std::string &path) {
  static const std::regex shard("-\\d{3,6}-of-(\\d{3,6})");
  return std::regex_replace(path, shard, "-of-$1");
}

std::uint64_t parse_gb(const std::string &value) {
  const double gigabytes = std::atof(value.c_str());
  return gigabytes > 0 && gigabytes < 100000 ? static_cast<std::uint64_t>(gigabytes * kGiB) : 0;
}

int min_tier(const std::vector<MemoryTier> &tiers, bool MemoryTier::*fits) {
  for (const auto &tier : tiers)
    if (tier.*fits)
      return tier.gigabytes;
  return -1;
}

} // namespace

double usable_fraction(int tier_gb) {
  return tier_gb <= 32 ? 2.0 / 3.0 : 3.0 / 4.0;
}

std::uint64_t usable_bytes(int tier_gb) {
  return static_cast<std::uint64_t>(usable_fraction(tier_gb) * static_cast<double>(tier_gb) * kGiB);
}

std::string usable_fraction_source() {
  return "Metal's MTLDevice.recommendedMaxWorkingSetSize, which PyTorch's MPS allocator uses as its "
         "budget (PYTORCH_MPS_HIGH_WATERMARK_RATIO, default 1.7 x that size as a hard cap in 2.0+, "
         "beyond which allocations fail; above 1.0 x the system pages). Observed values: 2/3 of memory "
         "on 16 and 32 GB Macs, 3/4 on 64 GB (see docs/memory-fit.md)";
}

std::string format_gib(std::uint64_t bytes) {
  const double gib = static_cast<double>(bytes) / static_cast<double>(kGiB);
  char buffer[32];
  if (gib < 10)
    std::snprintf(buffer, sizeof buffer, "%.1f GB", gib);
  else
    std::snprintf(buffer, sizeof buffer, "%.0f GB", std::ceil(gib));
  return buffer;
}

std::vector<MemoryEvidence> collect_memory_evidence(const std::vector<ProjectFile> &files) {
  std::vector<MemoryEvidence> evidence;
  std::map<std::string, MemoryEvidence> shards; // grouped checkpoint shards
  std::map<std::string, int> shard_counts;
  for (const ProjectFile &file : files) {
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind == fact_kind::Checkpoint) {
        const std::string *status = fact.attribute("status");
        if (!status || (*status != "ok" && *status != "partial"))
          continue;
        const std::uint64_t parameters = attribute_number(fact, "parameters");
        if (parameters == 0)
          continue;
        const std::string group = shard_group(file.path);
        MemoryEvidence &entry = shards[group];
        entry.source = "checkpoint";
        entry.path = group == file.path ? file.path : group;
        entry.parameters += parameters;
        entry.weight_bytes += attribute_number(fact, "parameter_bytes");
        ++shard_counts[group];
      } else if (fact.kind == fact_kind::ModelConfig) {
        MemoryEvidence entry;
        entry.source = "model-config";
        entry.path = file.path;
        entry.parameters = attribute_number(fact, "parameters");
        const std::string *dtype = fact.attribute("dtype");
        entry.detail = dtype ? *dtype : "";
        entry.weight_bytes =
            static_cast<std::uint64_t>(static_cast<double>(entry.parameters) * bytes_per_dtype(entry.detail));
        if (entry.parameters > 0)
          evidence.push_back(std::move(entry));
      } else if (fact.kind == fact_kind::DocRequirement && fact.name == "vram") {
        const std::string *value = fact.attribute("value");
        MemoryEvidence entry;
        entry.source = "doc-vram";
        entry.path = file.path;
        entry.line = fact.span.line;
        entry.stated_bytes = value ? parse_gb(*value) : 0;
        const std::string *sentence = fact.attribute("sentence");
        entry.detail = sentence ? *sentence : "";
        if (entry.stated_bytes > 0)
          evidence.push_back(std::move(entry));
      }
    }
  }
  for (auto &[group, entry] : shards) {
    if (shard_counts[group] > 1)
      entry.detail = std::to_string(shard_counts[group]) + " shards";
    evidence.push_back(std::move(entry));
  }
  return evidence;
}

MemoryFit estimate_memory_fit(const std::vector<MemoryEvidence> &evidence, const std::vector<int> &tiers_gb) {
  MemoryFit fit;
  fit.largest_tier_gb = tiers_gb.empty() ? 0 : tiers_gb.back();
  fit.evidence = evidence;
  fit.has_estimate = !evidence.empty();
  // The largest model decides; measured tensors win a tie over a config estimate.
  const MemoryEvidence *model = nullptr;
  for (const auto &entry : evidence) {
    if (entry.source == "doc-vram") {
      fit.stated_vram_bytes = std::max(fit.stated_vram_bytes, entry.stated_bytes);
      continue;
    }
    if (!model || entry.parameters > model->parameters ||
        (entry.parameters == model->parameters && entry.source == "checkpoint"))
      model = &entry;
  }
  if (model) {
    fit.has_model_size = true;
    fit.basis = *model;
    fit.parameters = model->parameters;
    fit.bytes_per_parameter = std::min(4.0, model->weight_bytes ? static_cast<double>(model->weight_bytes) /
                                                                      static_cast<double>(model->parameters)
                                                                : 4.0);
    fit.inference_bytes = static_cast<std::uint64_t>(
        std::llround(kOverhead * static_cast<double>(fit.parameters) * fit.bytes_per_parameter));
    fit.training_bytes = static_cast<std::uint64_t>(
        std::llround(kOverhead * static_cast<double>(fit.parameters) * kTrainingBytesPerParam));
    fit.method.push_back("parameters: " + std::to_string(fit.parameters) + " from " + model->source + " " +
                         model->path);
    char line[160];
    std::snprintf(line, sizeof line, "inference = 1.2 x %llu parameters x %.2f bytes = %s",
                  static_cast<unsigned long long>(fit.parameters), fit.bytes_per_parameter,
                  format_gib(fit.inference_bytes).c_str());
    fit.method.emplace_back(line);
    std::snprintf(
        line, sizeof line,
        "training with Adam = 1.2 x %llu parameters x 16 bytes (weights, gradients, m, v in fp32) = %s",
        static_cast<unsigned long long>(fit.parameters), format_gib(fit.training_bytes).c_str());
    fit.method.emplace_back(line);
  }
  if (fit.stated_vram_bytes > fit.training_bytes) {
    fit.training_bytes = fit.stated_vram_bytes;
    fit.method.push_back("training need raised to the documented " + format_gib(fit.stated_vram_bytes) +
                         " of GPU memory");
  }
  for (int gigabytes : tiers_gb) {
    MemoryTier tier;
    tier.gigabytes = gigabytes;
    tier.usable_fraction = usable_fraction(gigabytes);
    tier.usable_bytes = usable_bytes(gigabytes);
    tier.inference_fits = fit.has_model_size && fit.inference_bytes <= tier.usable_bytes;
    tier.training_fits = fit.training_bytes > 0 && fit.training_bytes <= tier.usable_bytes;
    fit.tiers.push_back(tier);
  }
  if (!fit.has_estimate) {
    fit.summary = "no model size found (no checkpoint, safetensors header, model config or stated VRAM)";
    return fit;
  }
  fit.method.push_back("usable memory per tier: " + usable_fraction_source());
  std::string inference, training;
  if (fit.has_model_size) {
    fit.inference_min_tier_gb = min_tier(fit.tiers, &MemoryTier::inference_fits);
    inference = fit.inference_min_tier_gb > 0
                    ? "inference fits from " + std::to_string(fit.inference_min_tier_gb) + " GB"
                    : "inference (" + format_gib(fit.inference_bytes) + ") fits no Mac";
  }
  if (fit.training_bytes > 0) {
    fit.training_min_tier_gb = min_tier(fit.tiers, &MemoryTier::training_fits);
    const std::string what = fit.has_model_size ? "training with Adam" : "the documented GPU memory";
    if (fit.training_min_tier_gb < 0)
      training = what + " (" + format_gib(fit.training_bytes) + ") fits no Mac, not even " +
                 std::to_string(fit.largest_tier_gb) + " GB";
    else if (!tiers_gb.empty() && fit.training_min_tier_gb == tiers_gb.front())
      training = what + " fits from " + std::to_string(fit.training_min_tier_gb) + " GB";
    else
      training = what + " needs " + std::to_string(fit.training_min_tier_gb) + " GB or more";
  }
  fit.summary = inference.empty() ? training : training.empty() ? inference : inference + "; " + training;
  return fit;
}

MemoryFit estimate_memory_fit(const std::vector<ProjectFile> &files, const std::vector<int> &tiers_gb) {
  return estimate_memory_fit(collect_memory_evidence(files), tiers_gb);
}

} // namespace mpsaudit
