// The runtime probe's verdicts, as the assessment needs them: the environment
// it ran in, per-operator MPS outcomes, and float64 downcast measurements.
// Read from the JSON `mpsaudit-probe` writes (docs/runtime-probe.md, "Verdict
// JSON"); absent when no probe ran, and then every acceptance level says
// "not yet confirmed".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/diagnostic.h"

namespace mpsaudit {

struct ProbeEnvironment {
  std::string libtorch_version;
  std::string os;   // "macOS 15.1"
  std::string arch; // "arm64"
  bool mps_built = false;
  bool mps_available = false;
  bool mps_fallback_enabled = false;
  std::vector<std::string> warnings;
};

struct ProbeOperator {
  std::string name;     // python API, e.g. torch.nn.functional.grid_sample
  std::string outcome;  // native | composite | partial | missing | forced-cpu | not-dense | unmapped
  std::string evidence; // coverage-table@X | live-mps | not-probeable
  std::string reason;
  std::string path; // first use
  std::uint32_t line = 0;
  int live_ok = 0;     // live calls on the target that ran and matched the CPU
  int live_failed = 0; // live calls that failed or mismatched
  // Runs on MPS without a CPU fallback: native or composite.
  bool runs_on_mps() const { return outcome == "native" || outcome == "composite"; }
  bool falls_back() const { return outcome == "missing" || outcome == "partial" || outcome == "forced-cpu"; }
};

struct ProbeDowncast {
  std::string name;
  std::string outcome; // measured | no-inputs | not-floating
  double max_relative_error = 0;
};

struct ProbeVerdicts {
  bool present = false;
  std::string target; // cpu | cuda | mps | meta
  std::string coverage_table;
  ProbeEnvironment environment;
  std::vector<ProbeOperator> operators;
  std::vector<ProbeDowncast> downcasts;
  int findings_confirmed = 0; // static findings the probe confirmed on the target
  int findings_refuted = 0;
};

// Reads the probe's JSON; malformed parts become diagnostics naming `path`.
ProbeVerdicts parse_probe_verdicts(const nlohmann::json &document, const std::string &path,
                                   std::vector<Diagnostic> &diagnostics);
ProbeVerdicts load_probe_verdicts(const std::string &path, std::vector<Diagnostic> &diagnostics);

} // namespace mpsaudit
