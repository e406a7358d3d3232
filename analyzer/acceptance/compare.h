// `mpsaudit compare RUN_A RUN_B`: two runs of the same experiment (a Linux
// GPU reference and a Mac MPS candidate), checked in the order a careful lab
// checks them, and a verdict for the Mac run:
//
//   1. checkpoints   same tensor keys, shapes and dtypes?
//   2. seeds-config  same seeds and configuration (platform keys aside)?
//   3. metrics       final metrics within the user's tolerances?
//   4. fallbacks     did the Mac run fall back to the CPU, or not use MPS at all?
//
//   native   every check passed: the Mac run stands in for the reference
//   dual     nothing failed, but a check has a caveat or no evidence (an
//            expected float64->float32 downcast, CPU fallbacks, a missing
//            seed...): develop on the Mac, keep Linux as the reference
//   stopped  a check failed (structure differs, metrics beyond tolerance or
//            NaN, an operator MPS lacks, no MPS in the Mac interpreter)
//
// docs/acceptance.md documents each check and the default tolerances.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "acceptance/run_directory.h"

namespace mpsaudit::acceptance {

// A metric passes when |candidate - reference| <= atol + rtol * |reference|.
struct Tolerance {
  double rtol = 0.05;
  double atol = 1e-6;
};

struct MetricTolerance {
  std::string pattern; // glob on the metric name, e.g. "val/*"
  Tolerance tolerance;
};

struct CompareOptions {
  Tolerance default_tolerance;
  std::vector<MetricTolerance> metric_tolerances; // the first matching pattern wins
  bool every_step = false;                        // check every common step, not only the last one
  // Globs on metric names that are not results (wall time, throughput, memory).
  std::vector<std::string> ignored_metrics = default_ignored_metrics();
  // Globs on config keys that differ between platforms by design (device,
  // paths); a difference there is evidence, not a caveat.
  std::vector<std::string> platform_config_keys = default_platform_config_keys();

  static std::vector<std::string> default_ignored_metrics();
  static std::vector<std::string> default_platform_config_keys();
};

enum class CheckStatus { Pass, Caveat, Fail, Skipped };
std::string_view to_string(CheckStatus status);

struct CheckResult {
  int order = 0;
  std::string id;    // checkpoints | seeds-config | metrics | fallbacks
  std::string title; // "Checkpoints: keys, shapes and dtypes"
  CheckStatus status = CheckStatus::Skipped;
  std::string summary; // one sentence
  std::vector<std::string> evidence;
};

enum class Verdict { Native, Dual, Stopped };
std::string_view to_string(Verdict verdict); // "native", "dual", "stopped"

struct Comparison {
  std::string reference_path; // the Linux (or CUDA) run
  std::string candidate_path; // the Mac run
  std::string roles_from;     // why: "environment records" or "argument order"
  std::vector<CheckResult> checks;
  Verdict verdict = Verdict::Dual;
  std::string headline;
  std::vector<Diagnostic> diagnostics; // from reading both runs
};

// Compares two runs. The Mac run is the one whose environment record says
// macOS; when neither or both do, RUN_A is the reference and RUN_B the Mac run.
Comparison compare_runs(const RunDirectory &run_a, const RunDirectory &run_b,
                        const CompareOptions &options = {});

// The verdict of a set of checks (Fail -> stopped; Caveat/Skipped -> dual).
Verdict verdict_of(const std::vector<CheckResult> &checks);

nlohmann::json to_json(const Comparison &comparison);
std::string comparison_text(const Comparison &comparison);

// Case-insensitive shell glob (*, ?, [...]).
bool glob_match(const std::string &pattern, const std::string &text);

} // namespace mpsaudit::acceptance
