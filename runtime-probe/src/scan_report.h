// The parts of the analyzer's JSON report (`mpsaudit scan --format json`)
// that the probe reads. Unknown fields are ignored, missing ones defaulted;
// a malformed report yields diagnostics and whatever could be read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mpsaudit::probe {

// Same fields as the analyzer's Diagnostic (analyzer/core/diagnostic.h), so
// that the lead's merge can copy them across.
struct ProbeDiagnostic {
  std::string level; // note | warning | error
  std::string path;
  std::uint32_t line = 0;
  std::string code;
  std::string message;
};

struct ApiUse {
  std::string name; // canonical: torch.nn.functional.grid_sample
  std::string path;
  std::uint32_t line = 0;
  std::uint32_t count = 1;
};

struct ReportFinding {
  std::string rule;
  std::string path;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string name; // the fact's name: torch.float64, torch.zeros, ...
  std::string message;
  std::string severity;
  std::string guard;
  bool in_forward = false;
};

struct ScanReport {
  int schema_version = 0;
  std::string root;
  std::vector<ApiUse> api_uses;
  std::vector<ReportFinding> findings;
};

ScanReport parse_scan_report(std::string_view json_text, const std::string &path,
                             std::vector<ProbeDiagnostic> &diagnostics);
ScanReport read_scan_report(const std::string &path, std::vector<ProbeDiagnostic> &diagnostics);

// What a finding asks the probe to check, decided from its name (and rule family).
enum class FindingProbe {
  Float64,        // a float64/double dtype: float64 on the target, and the downcast cost
  DeviceMismatch, // a tensor factory called without a device
  None,           // nothing the probe can run for it
};
FindingProbe classify_finding(const ReportFinding &finding);
bool is_float64_name(std::string_view name);
bool is_factory_name(std::string_view name);

} // namespace mpsaudit::probe
