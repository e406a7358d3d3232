// The memory-fit estimate: does the repository's model fit an Apple-Silicon
// Mac, for inference and for training with Adam? A pure function over the
// facts of a scan (docs/memory-fit.md explains every number).
//
// Evidence, from the facts front ends emit:
//   checkpoint    parameters and bytes of a torch or safetensors checkpoint
//                 (shards "-00001-of-00003" of one model are summed)
//   model-config  parameters estimated from config.json / *.yaml
//   doc-vram      GPU memory the documentation states (doc-requirement vram)
// The largest model found decides: the repository has to fit its biggest one.
//
// Footprints (P parameters, b stored bytes per parameter, at most 4 because
// MPS has no float64 and such weights are cast to float32):
//   inference = 1.2 x P x b           weights plus 20% for activations/workspace
//   training  = 1.2 x P x 16          fp32 weights 4 + gradients 4 + Adam m and v 8,
//                                     plus 20%; a lower bound, since activations
//                                     grow with batch size and sequence length
//   a stated VRAM requirement raises the training need to at least that much.
// Each footprint is set against the Apple unified-memory tiers, of which MPS
// can use recommendedMaxWorkingSetSize by default (see usable_fraction).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "assess/assess_policy.h"
#include "core/project_pass.h"

namespace mpsaudit {

// The share of a tier Metal recommends for one process's GPU working set
// (MTLDevice.recommendedMaxWorkingSetSize): 2/3 up to 32 GB, 3/4 above.
double usable_fraction(int tier_gb);
// That share of a tier, in bytes: what MPS may use by default.
std::uint64_t usable_bytes(int tier_gb);
// Where usable_fraction comes from, for reports.
std::string usable_fraction_source();

struct MemoryEvidence {
  std::string source; // "checkpoint", "model-config", "doc-vram"
  std::string path;
  std::uint32_t line = 0;
  std::uint64_t parameters = 0;
  std::uint64_t weight_bytes = 0; // stored bytes of those parameters
  std::uint64_t stated_bytes = 0; // doc-vram only
  std::string detail;             // e.g. "3 shards", "float16", the quoted sentence
};

struct MemoryTier {
  int gigabytes = 0;
  double usable_fraction = 0;
  std::uint64_t usable_bytes = 0;
  bool inference_fits = false;
  bool training_fits = false;
};

struct MemoryFit {
  bool has_estimate = false;   // any evidence at all
  bool has_model_size = false; // parameters known (checkpoint or config)
  MemoryEvidence basis;        // the evidence that decided the model size
  std::uint64_t parameters = 0;
  double bytes_per_parameter = 0; // for inference weights
  std::uint64_t inference_bytes = 0;
  std::uint64_t training_bytes = 0;
  std::uint64_t stated_vram_bytes = 0;
  // Smallest tier (GB) that fits; 0 when unknown, -1 when no Mac fits.
  int inference_min_tier_gb = 0;
  int training_min_tier_gb = 0;
  std::vector<MemoryTier> tiers;        // the Apple-Silicon memory tiers, ascending
  int largest_tier_gb = 0;              // for "fits no Mac, not even N GB"
  std::vector<MemoryEvidence> evidence; // everything found, basis included
  // "inference fits from 16 GB; training with Adam needs 64 GB or more"
  std::string summary;
  // How each number was computed, one line each, for reports.
  std::vector<std::string> method;

  // For the decision: no Mac can train this model (DUAL or KEEP_LINUX_GPU).
  bool training_fits_no_mac() const { return training_min_tier_gb < 0; }
  bool inference_fits_no_mac() const { return inference_min_tier_gb < 0; }
};

// Gathers evidence from the facts of a scan.
std::vector<MemoryEvidence> collect_memory_evidence(const std::vector<ProjectFile> &files);
// The estimate from evidence against the Macs' memory tiers in GB, ascending
// (pure arithmetic; tests call it directly). The tiers are rules/assess.toml's
// `[mac_memory] tiers_gb`: Apple's configurations in binary gigabytes.
MemoryFit estimate_memory_fit(const std::vector<MemoryEvidence> &evidence,
                              const std::vector<int> &tiers_gb = bundled_assess_policy().mac_memory_tiers_gb);
// Both in one: what the decision calls.
MemoryFit estimate_memory_fit(const std::vector<ProjectFile> &files, const std::vector<int> &tiers_gb);

// "24 GB" style with binary gigabytes, one decimal below 10 GB.
std::string format_gib(std::uint64_t bytes);

} // namespace mpsaudit
