#include "scan_report.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "text_util.h"

namespace mpsaudit::probe {

namespace {

using nlohmann::json;

std::string string_field(const json &object, const char *key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::uint32_t uint_field(const json &object, const char *key, std::uint32_t fallback) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer())
    return fallback;
  auto value = it->get<long long>();
  return value < 0 ? fallback : static_cast<std::uint32_t>(value);
}

} // namespace

ScanReport parse_scan_report(std::string_view json_text, const std::string &path,
                             std::vector<ProbeDiagnostic> &diagnostics) {
  ScanReport report;
  json root = json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    diagnostics.push_back({"error", path, 0, "report-parse-error",
                           "not a JSON object; expected the output of `mpsaudit scan --format json`"});
    return report;
  }
  if (auto it = root.find("schema_version"); it != root.end() && it->is_number_integer())
    report.schema_version = it->get<int>();
  if (report.schema_version != 1)
    diagnostics.push_back({"warning", path, 0, "report-schema-version",
                           "schema_version " + std::to_string(report.schema_version) +
                               " is not 1; reading what matches schema 1"});
  report.root = string_field(root, "root");

  if (auto it = root.find("api_uses"); it != root.end() && it->is_array()) {
    std::size_t index = 0;
    for (const json &use : *it) {
      ++index;
      if (!use.is_object() || string_field(use, "name").empty()) {
        diagnostics.push_back({"warning", path, 0, "report-bad-entry",
                               "api_uses[" + std::to_string(index - 1) + "] has no name; skipped"});
        continue;
      }
      report.api_uses.push_back({string_field(use, "name"), string_field(use, "path"),
                                 uint_field(use, "line", 0), uint_field(use, "count", 1)});
    }
  }
  if (auto it = root.find("findings"); it != root.end() && it->is_array()) {
    for (const json &entry : *it) {
      if (!entry.is_object())
        continue;
      ReportFinding finding;
      finding.rule = string_field(entry, "rule");
      finding.path = string_field(entry, "path");
      finding.line = uint_field(entry, "line", 0);
      finding.column = uint_field(entry, "column", 0);
      finding.name = string_field(entry, "name");
      finding.message = string_field(entry, "message");
      finding.severity = string_field(entry, "severity");
      finding.guard = string_field(entry, "guard");
      if (auto forward = entry.find("in_forward"); forward != entry.end() && forward->is_boolean())
        finding.in_forward = forward->get<bool>();
      report.findings.push_back(std::move(finding));
    }
  }
  return report;
}

ScanReport read_scan_report(const std::string &path, std::vector<ProbeDiagnostic> &diagnostics) {
  const std::optional<std::string> text = read_whole_file(path);
  if (!text) {
    diagnostics.push_back({"error", path, 0, "report-unreadable", "cannot read the scan report"});
    return {};
  }
  return parse_scan_report(*text, path, diagnostics);
}

bool is_float64_name(std::string_view name) {
  for (std::string_view known : {"torch.float64", "torch.double", "float64", "double", "torch.Tensor.double",
                                 "torch.complex128", "torch.cdouble", "numpy.float64", "np.float64"})
    if (name == known)
      return true;
  return false;
}

bool is_factory_name(std::string_view name) {
  for (std::string_view known :
       {"torch.zeros",      "torch.ones",      "torch.empty",       "torch.full",      "torch.rand",
        "torch.randn",      "torch.randint",   "torch.randperm",    "torch.arange",    "torch.linspace",
        "torch.logspace",   "torch.eye",       "torch.tensor",      "torch.as_tensor", "torch.from_numpy",
        "torch.zeros_like", "torch.ones_like", "torch.empty_like",  "torch.full_like", "torch.rand_like",
        "torch.randn_like", "torch.Tensor",    "torch.FloatTensor", "torch.LongTensor"})
    if (name == known)
      return true;
  return false;
}

FindingProbe classify_finding(const ReportFinding &finding) {
  if (is_float64_name(finding.name))
    return FindingProbe::Float64;
  // Device-handling findings (MPS2xx) about factories: created without a device.
  if (is_factory_name(finding.name))
    return FindingProbe::DeviceMismatch;
  return FindingProbe::None;
}

} // namespace mpsaudit::probe
