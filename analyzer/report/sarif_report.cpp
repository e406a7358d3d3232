// `--format sarif`: SARIF 2.1.0 as GitHub code scanning reads it
// (docs/report-formats.md). Paths stay relative to the scan root, resolved
// through originalUriBaseIds; fingerprints are ours, so that a finding keeps
// its alert when lines move.
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/text.h"
#include "report/json_stream.h"
#include "report/report.h"

namespace mpsaudit {
namespace {

constexpr const char *kInformationUri = "https://github.com/mpsaudit/mpsaudit";

const char *sarif_level(int severity) {
  switch (static_cast<Severity>(severity)) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Info:
    return "note";
  }
  return "warning";
}

// RFC 3986: keep unreserved characters and '/', escape the rest.
std::string uri_escape(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof buffer, "%%%02X", c);
      out += buffer;
    }
  }
  return out;
}

std::string root_uri(const ScanResult &result, const ReportContext &context) {
  std::string absolute = context.root_uri;
  if (absolute.empty()) {
    std::error_code error;
    const std::string &root = result.root_directory.empty() ? result.root : result.root_directory;
    const auto path = std::filesystem::absolute(root.empty() ? "." : root, error);
    absolute = error ? root : path.lexically_normal().string();
  }
  if (absolute.empty() || absolute.back() != '/')
    absolute += '/';
  if (absolute.front() != '/')
    absolute.insert(absolute.begin(), '/');
  return "file://" + uri_escape(absolute);
}

nlohmann::json rule_json(const Rule &rule) {
  std::string markdown = "**" + rule.summary + "**\n\n" + rule.why + "\n\n";
  if (!rule.replacement.empty())
    markdown += "**Fix:** " + rule.replacement + "\n\n";
  markdown += "Effort class: " + std::string(to_string(rule.effort)) + ".";
  if (!rule.sources.empty()) {
    markdown += " Sources: ";
    for (std::size_t i = 0; i < rule.sources.size(); ++i)
      markdown += (i ? "; " : "") + rule.sources[i];
    markdown += ".";
  }
  std::string text = rule.summary + ". " + rule.why;
  if (!rule.replacement.empty())
    text += " Fix: " + rule.replacement;
  return {
      {"id", rule.id},
      {"name", rule.name},
      {"shortDescription", {{"text", rule.summary}}},
      {"fullDescription", {{"text", rule.why.empty() ? rule.summary : rule.why}}},
      {"help", {{"text", text}, {"markdown", markdown}}},
      {"helpUri", std::string(kInformationUri) + "/blob/main/docs/rules.md#" + to_lower_id(rule.id)},
      {"defaultConfiguration", {{"level", sarif_level(static_cast<int>(rule.severity))}}},
      {"properties",
       {{"tags", nlohmann::json::array({"mps", rule.family})},
        {"effort", std::string(to_string(rule.effort))},
        {"precision", "high"}}},
  };
}

} // namespace

std::string line_hash(std::string_view rule_id, std::string_view line_text) {
  // FNV-1a 64 over the rule ID and the line without whitespace: stable when
  // the line moves or is re-indented, different for another rule.
  std::uint64_t hash = 1469598103934665603ull;
  auto mix = [&hash](unsigned char c) {
    hash ^= c;
    hash *= 1099511628211ull;
  };
  for (char c : rule_id)
    mix(static_cast<unsigned char>(c));
  mix(0);
  for (char c : line_text)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
      mix(static_cast<unsigned char>(c));
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

void write_sarif_report(std::ostream &out, const ScanResult &result, const ReportContext &context) {
  // Rules: the catalog's rules that produced results, in ID order, so that
  // ruleIndex is stable for one report and the array stays small.
  std::map<std::string, const Rule *> used;
  for (const auto &finding : result.findings)
    if (finding.rule)
      used.emplace(finding.rule_id, finding.rule);
    else if (context.catalog)
      if (const Rule *rule = context.catalog->find(finding.rule_id))
        used.emplace(finding.rule_id, rule);
  nlohmann::json rules = nlohmann::json::array();
  std::map<std::string, int> rule_index;
  for (const auto &[id, rule] : used) {
    rule_index[id] = static_cast<int>(rules.size());
    rules.push_back(rule_json(*rule));
  }

  // Members in sorted key order (see json_stream.h); results are streamed.
  JsonStreamWriter json(out);
  json.begin_object();
  json.member("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  json.key("runs");
  json.begin_array();
  json.begin_object();
  json.member("columnKind", "unicodeCodePoints");
  json.member("invocations", nlohmann::json::array({{{"executionSuccessful", !result.has_errors()}}}));
  json.member("originalUriBaseIds", {{"SRCROOT",
                                      {{"uri", root_uri(result, context)},
                                       {"description", {{"text", "The scanned repository root"}}}}}});
  if (context.assessment) {
    const Assessment &assessment = *context.assessment;
    const EffortEstimate &effort = assessment.effort;
    const auto hours = [](const HourRange &range) {
      return nlohmann::json{{"low", range.low}, {"high", range.high}, {"text", format_hours(range)}};
    };
    // The recommended path leads, as in every report; effortHours stays the
    // port of what the Mac needs now. KEEP_LINUX_GPU edits no code, so no
    // fix credit.
    nlohmann::json properties = {
        {"decision", std::string(to_string(assessment.decision.outcome))},
        {"headline", sanitize_utf8(assessment.decision.headline)},
        {"recommendedHours", hours(assessment.recommended.hours)},
        {"recommendedGoal", sanitize_utf8(assessment.recommended.goal)},
        {"nativePortHours", hours(effort.native_port)},
        {"effortHours", hours(effort.total)},
    };
    if (assessment.recommended.path != RecommendedPath::KeepLinux) {
      properties["fixRemovesHours"] = hours(assessment.recommended.fix.safe);
      properties["fixRemovesHours"]["findings"] = assessment.recommended.fix.safe_sites;
    }
    json.member("properties", properties);
  }
  json.key("results");
  json.begin_array();
  std::map<std::string, int> seen_hashes; // path + hash -> occurrences so far
  for (const auto &finding : result.findings) {
    nlohmann::json region = {{"startLine", std::max<std::uint32_t>(1, finding.span.line)}};
    if (finding.span.column > 0)
      region["startColumn"] = finding.span.column;
    if (finding.span.end_line >= finding.span.line && finding.span.end_line > 0) {
      region["endLine"] = finding.span.end_line;
      if (finding.span.end_column > 0 &&
          (finding.span.end_line > finding.span.line || finding.span.end_column > finding.span.column))
        region["endColumn"] = finding.span.end_column;
    }
    if (!finding.snippet.empty())
      region["snippet"] = {{"text", sanitize_utf8(finding.snippet)}};
    const std::string hash = line_hash(finding.rule_id, finding.snippet);
    const int occurrence = ++seen_hashes[finding.path + "\n" + hash];
    nlohmann::json location = {
        {"physicalLocation",
         {{"artifactLocation", {{"uri", uri_escape(sanitize_utf8(finding.path))}, {"uriBaseId", "SRCROOT"}}},
          {"region", region}}}};
    nlohmann::json entry = {
        {"ruleId", finding.rule_id},
        {"level", sarif_level(finding.severity)},
        {"message",
         {{"text",
           sanitize_utf8(finding.message) + (finding.guard != Guard::None
                                                 ? " [guarded: " + std::string(to_string(finding.guard)) + "]"
                                                 : std::string())}}},
        {"locations", nlohmann::json::array({location})},
        {"partialFingerprints", {{"primaryLocationLineHash", hash + ":" + std::to_string(occurrence)}}},
        {"properties",
         {{"guard", std::string(to_string(finding.guard))},
          {"inForward", finding.in_forward},
          {"effort", finding.rule ? std::string(to_string(finding.rule->effort)) : std::string("small")}}},
    };
    if (const auto index = rule_index.find(finding.rule_id); index != rule_index.end())
      entry["ruleIndex"] = index->second;
    if (finding.suppressed) {
      nlohmann::json suppression = {{"kind", "inSource"}, {"status", "accepted"}};
      if (!finding.suppression_reason.empty())
        suppression["justification"] = sanitize_utf8(finding.suppression_reason);
      entry["suppressions"] = nlohmann::json::array({suppression});
    }
    json.value(entry);
  }

  json.end_array();
  json.member("tool", {{"driver",
                        {{"name", "mpsaudit"},
                         {"version", context.tool_version},
                         {"semanticVersion", context.tool_version},
                         {"informationUri", kInformationUri},
                         {"rules", rules}}}});
  json.end_object();
  json.end_array();
  json.member("version", "2.1.0");
  json.end_object();
  out << "\n";
}

nlohmann::json report_to_sarif(const ScanResult &result, const ReportContext &context) {
  std::ostringstream text;
  write_sarif_report(text, result, context);
  return nlohmann::json::parse(text.str());
}

} // namespace mpsaudit
