// The probe's output: verdicts on the scan's operators and findings, each
// with the evidence it rests on, and the JSON form documented in
// docs/runtime-probe.md ("Verdict JSON"). Torch-free, so that the coverage
// verdicts can be computed and tested without LibTorch.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coverage_table.h"
#include "python_api.h"
#include "scan_report.h"

namespace mpsaudit::probe {

inline constexpr int kVerdictSchemaVersion = 1;

struct EnvironmentReport {
  std::string libtorch_version;
  bool mps_built = false;     // this LibTorch has an MPS backend compiled in
  bool mps_available = false; // ...and a Metal device answers now
  bool cuda_built = false;
  bool cuda_available = false;
  int cuda_device_count = 0;
  std::string os_name, os_version, arch;
  std::optional<bool> rosetta;                      // macOS only: sysctl.proc_translated
  std::map<std::string, std::string> mps_variables; // PYTORCH_ENABLE_MPS_FALLBACK, PYTORCH_MPS_*, ...
  bool mps_fallback_enabled = false;
  bool fallback_cleared_for_probe = false;
  std::vector<std::string> warnings;
};

// One live call of an operator on the target (docs: "Live probes").
struct LiveResult {
  // ok | numeric-mismatch | not-comparable | not-implemented | dtype-unsupported | error | no-inputs |
  // not-found
  std::string outcome;
  std::string overload;        // the overload that ran (or was tried last)
  std::string message;         // the target's error, why no inputs, or the comparison's wording
  std::string input_recipe;    // the recipe family that built the inputs; empty: generic
  bool compared = false;       // output compared with the CPU result
  bool random_output = false;  // two seeded CPU runs differed: values not compared
  std::string comparison;      // elementwise | invariants | set | statistics
  std::string tolerance_class; // pointwise | reduction | matmul | convolution | decomposition
  double max_abs_diff = 0.0;
  double max_rel_diff = 0.0;
  double rtol = 0.0, atol = 0.0;   // atol before scaling by the reference (see docs)
  bool tolerance_adjusted = false; // within tolerance only after the reduced-precision adjustment
  int attempts = 0;                // input sets tried on the CPU
};

// The target's float32 precision settings during the comparison.
struct NumericsSetup {
  std::optional<bool> tf32_cublas; // CUDA only: after turning TF32 off
  std::optional<bool> tf32_cudnn;
  std::string note;
};

struct OperatorVerdict {
  std::string python_name;
  std::vector<ApiUse> uses;
  ApiResolution resolution;
  // MPS: native | composite | partial | missing | forced-cpu | not-dense | unmapped
  std::string mps_outcome;
  std::string mps_evidence; // coverage-table@X | live-mps | not-probeable
  std::string mps_reason;
  std::vector<std::string> missing_overloads;
  std::vector<std::string> forced_cpu_overloads;
  std::string first_release_with_mps; // empty: none of our tables has it
  // Live results, one per ATen operator probed, on the target device.
  std::string live_evidence; // live-<device> or not-probeable
  std::vector<std::pair<std::string, LiveResult>> live;
};

struct FindingVerdict {
  std::string kind; // float64 | device-mismatch | finding
  ReportFinding finding;
  std::string outcome;
  std::optional<bool> confirms; // does the probe confirm the static finding on MPS?
  std::string evidence;
  std::string reason;
  nlohmann::json details = nlohmann::json::object();
};

struct DowncastVerdict {
  std::string python_name;
  std::string aten_operator;
  std::string outcome;              // measured | no-inputs | not-floating
  double max_relative_error = 0.0;  // ||y64 - y32||_inf / ||y64||_inf
  double mean_relative_error = 0.0; // mean |y64 - y32| / mean |y64|
  std::string reason;
  std::vector<std::string> paths; // files with float64 findings that use it
};

struct ProbeOutput {
  std::string report_path;
  std::string target; // cpu | cuda | mps | meta
  std::string coverage_version;
  EnvironmentReport environment;
  std::vector<OperatorVerdict> operators;
  std::vector<FindingVerdict> findings;
  std::vector<DowncastVerdict> downcasts;
  std::vector<ProbeDiagnostic> diagnostics;
  NumericsSetup numerics; // empty when no live probe ran
  int live_attempted = 0; // ATen operators the engine tried
  int live_built = 0;     // ...of which it could build inputs the CPU accepts
};

// Named-tensor overloads (Dimname arguments: "dimname", "names_dim", ...) are
// a prototype API that research code rarely calls; they do not decide a verdict.
bool is_named_tensor_overload(const std::string &overload);

// The MPS verdict of one Python API from the coverage table (no LibTorch).
void apply_coverage_verdict(OperatorVerdict &verdict, const CoverageTable &table,
                            const CoverageLibrary &library);

// Groups api_uses by name (first-seen order kept) into operator verdicts
// with their coverage verdicts filled in.
std::vector<OperatorVerdict> coverage_verdicts(const std::vector<ApiUse> &uses, const PythonApiMap &map,
                                               const CoverageTable &table, const CoverageLibrary &library);

// The environment's plain-language warnings (fallback on, MPS built but absent...).
void add_environment_warnings(EnvironmentReport &environment);

nlohmann::json to_json(const EnvironmentReport &environment);
nlohmann::json to_json(const ProbeOutput &output);

} // namespace mpsaudit::probe
