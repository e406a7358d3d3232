#include "assess/decision_probe.h"

#include <fstream>

namespace mpsaudit {
namespace {

std::string string_at(const nlohmann::json &object, const char *key) {
  if (!object.is_object())
    return {};
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool bool_at(const nlohmann::json &object, const char *key) {
  if (!object.is_object())
    return false;
  const auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

} // namespace

ProbeVerdicts parse_probe_verdicts(const nlohmann::json &document, const std::string &path,
                                   std::vector<Diagnostic> &diagnostics) {
  ProbeVerdicts verdicts;
  if (!document.is_object() || string_at(document, "tool") != "mpsaudit-probe") {
    diagnostics.push_back({DiagnosticLevel::Error, path, 0, "probe-verdicts",
                           "not a verdict file of mpsaudit-probe (\"tool\": \"mpsaudit-probe\" missing)"});
    return verdicts;
  }
  verdicts.present = true;
  verdicts.target = string_at(document, "target");
  verdicts.coverage_table = string_at(document, "coverage_table");
  const nlohmann::json &environment =
      document.contains("environment") ? document["environment"] : nlohmann::json();
  verdicts.environment.libtorch_version = string_at(environment, "libtorch_version");
  verdicts.environment.mps_built = bool_at(environment, "mps_built");
  verdicts.environment.mps_available = bool_at(environment, "mps_available");
  verdicts.environment.mps_fallback_enabled = bool_at(environment, "mps_fallback_enabled");
  verdicts.environment.arch = string_at(environment, "arch");
  if (environment.is_object() && environment.contains("os")) {
    const auto &os = environment["os"];
    verdicts.environment.os = string_at(os, "name");
    const std::string version = string_at(os, "version");
    if (!version.empty())
      verdicts.environment.os += (verdicts.environment.os.empty() ? "" : " ") + version;
  }
  if (environment.is_object() && environment.contains("warnings") && environment["warnings"].is_array())
    for (const auto &warning : environment["warnings"])
      if (warning.is_string())
        verdicts.environment.warnings.push_back(warning.get<std::string>());

  if (document.contains("operators") && document["operators"].is_array()) {
    std::size_t index = 0;
    for (const auto &entry : document["operators"]) {
      ++index;
      if (!entry.is_object() || string_at(entry, "name").empty()) {
        diagnostics.push_back({DiagnosticLevel::Warning, path, 0, "probe-verdicts",
                               "operators[" + std::to_string(index - 1) + "] has no name; skipped"});
        continue;
      }
      ProbeOperator op;
      op.name = string_at(entry, "name");
      if (entry.contains("mps")) {
        op.outcome = string_at(entry["mps"], "outcome");
        op.evidence = string_at(entry["mps"], "evidence");
        op.reason = string_at(entry["mps"], "reason");
      }
      if (entry.contains("uses") && entry["uses"].is_array() && !entry["uses"].empty()) {
        const auto &use = entry["uses"][0];
        op.path = string_at(use, "path");
        if (use.is_object() && use.contains("line") && use["line"].is_number_unsigned())
          op.line = use["line"].get<std::uint32_t>();
      }
      if (entry.contains("live") && entry["live"].is_object() && entry["live"].contains("results") &&
          entry["live"]["results"].is_array())
        for (const auto &result : entry["live"]["results"]) {
          const std::string outcome = string_at(result, "outcome");
          if (outcome == "ok")
            ++op.live_ok;
          else if (outcome == "not-implemented" || outcome == "numeric-mismatch" ||
                   outcome == "dtype-unsupported" || outcome == "error")
            ++op.live_failed;
        }
      verdicts.operators.push_back(std::move(op));
    }
  }
  if (document.contains("downcast") && document["downcast"].is_array())
    for (const auto &entry : document["downcast"]) {
      ProbeDowncast downcast;
      downcast.name = string_at(entry, "name");
      downcast.outcome = string_at(entry, "outcome");
      if (entry.is_object() && entry.contains("max_relative_error") &&
          entry["max_relative_error"].is_number())
        downcast.max_relative_error = entry["max_relative_error"].get<double>();
      verdicts.downcasts.push_back(std::move(downcast));
    }
  if (document.contains("findings") && document["findings"].is_array())
    for (const auto &entry : document["findings"]) {
      if (!entry.is_object() || !entry.contains("confirms") || !entry["confirms"].is_boolean())
        continue;
      if (entry["confirms"].get<bool>())
        ++verdicts.findings_confirmed;
      else
        ++verdicts.findings_refuted;
    }
  return verdicts;
}

ProbeVerdicts load_probe_verdicts(const std::string &path, std::vector<Diagnostic> &diagnostics) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diagnostics.push_back(
        {DiagnosticLevel::Error, path, 0, "probe-verdicts", "cannot open the verdict file"});
    return {};
  }
  const nlohmann::json document = nlohmann::json::parse(in, nullptr, false);
  if (document.is_discarded()) {
    diagnostics.push_back({DiagnosticLevel::Error, path, 0, "probe-verdicts", "not valid JSON"});
    return {};
  }
  return parse_probe_verdicts(document, path, diagnostics);
}

} // namespace mpsaudit
