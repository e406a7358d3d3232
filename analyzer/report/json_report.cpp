#include <map>

#include "core/text.h"
#include "report/report.h"

namespace mpsaudit {

namespace {

nlohmann::json finding_json(const Finding &finding) {
  nlohmann::json out = {
      {"rule", finding.rule_id},
      {"path", finding.path},
      {"kind", std::string(to_string(finding.file_kind))},
      {"line", finding.span.line},
      {"column", finding.span.column},
      {"end_line", finding.span.end_line},
      {"end_column", finding.span.end_column},
      {"name", sanitize_utf8(finding.name)},
      {"message", sanitize_utf8(finding.message)},
      {"snippet", finding.snippet},
      {"severity", std::string(to_string(static_cast<Severity>(finding.severity)))},
      {"guard", std::string(to_string(finding.guard))},
      {"scope", finding.scope},
      {"in_forward", finding.in_forward},
      {"suppressed", finding.suppressed},
  };
  if (finding.rule) {
    out["family"] = finding.rule->family;
    out["effort"] = std::string(to_string(finding.rule->effort));
    out["replacement"] = finding.rule->replacement;
  }
  if (finding.cell >= 0) {
    out["cell"] = finding.cell + 1; // 1-based, as Jupyter shows cells
    out["cell_line"] = finding.cell_line;
  }
  if (finding.suppressed)
    out["suppression_reason"] = finding.suppression_reason;
  return out;
}

} // namespace

nlohmann::json report_to_json(const ScanResult &result, const ReportContext &context) {
  nlohmann::json report;
  report["schema_version"] = kReportSchemaVersion;
  report["tool"] = {{"name", "mpsaudit"}, {"version", context.tool_version}};
  report["root"] = result.root;

  nlohmann::json files = nlohmann::json::array();
  std::map<std::string, int> modes;
  for (const auto &file : result.files) {
    files.push_back({{"path", sanitize_utf8(file.path)},
                     {"kind", std::string(to_string(file.kind))},
                     {"mode", file.mode},
                     {"bytes", file.bytes},
                     {"lines", file.lines}});
    ++modes[file.mode];
  }
  report["files"] = std::move(files);

  nlohmann::json findings = nlohmann::json::array();
  std::map<std::string, int> by_severity{{"error", 0}, {"warning", 0}, {"info", 0}};
  int suppressed = 0;
  for (const auto &finding : result.findings) {
    findings.push_back(finding_json(finding));
    if (finding.suppressed)
      ++suppressed;
    else
      ++by_severity[std::string(to_string(static_cast<Severity>(finding.severity)))];
  }
  report["findings"] = std::move(findings);

  nlohmann::json diagnostics = nlohmann::json::array();
  for (const auto &diagnostic : result.diagnostics)
    diagnostics.push_back({{"level", std::string(to_string(diagnostic.level))},
                           {"path", sanitize_utf8(diagnostic.path)},
                           {"line", diagnostic.line},
                           {"code", diagnostic.code},
                           {"message", sanitize_utf8(diagnostic.message)}});
  report["diagnostics"] = std::move(diagnostics);

  nlohmann::json api_uses = nlohmann::json::array();
  for (const auto &use : result.api_uses)
    api_uses.push_back({{"name", use.name}, {"path", use.path}, {"line", use.line}, {"count", use.count}});
  report["api_uses"] = std::move(api_uses);

  report["summary"] = {{"files", result.files.size()},
                       {"files_by_mode", modes},
                       {"findings", result.findings.size() - static_cast<std::size_t>(suppressed)},
                       {"by_severity", by_severity},
                       {"suppressed", suppressed},
                       {"scan_errors", result.has_errors()}};
  return report;
}

} // namespace mpsaudit
