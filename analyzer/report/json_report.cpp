#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/text.h"
#include "report/json_stream.h"
#include "report/report.h"
#include "scan/result_cache.h"
#include "workflow/git_repository.h"

namespace mpsaudit {

namespace {

// Which repository the report is about, for `mpsaudit portfolio`: the
// scanned directory's own name, and the commit HEAD names when that
// directory is the top of a git work tree (not for a folder inside one,
// whose commit is the enclosing project's).
nlohmann::json repository_json(const ScanResult &result) {
  std::error_code error;
  const std::string directory =
      result.root_directory.empty() ? directory_of_root(result.root) : result.root_directory;
  const std::filesystem::path top = canonical_directory(directory, error);
  nlohmann::json commit = nullptr;
  if (!error)
    if (const std::optional<GitRepository> repository = find_git_repository(top);
        repository && repository->prefix.empty())
      if (const std::optional<std::string> head = head_commit(*repository))
        commit = *head;
  const std::string name = error ? directory : top.filename().string();
  return {{"commit", commit}, {"name", sanitize_utf8(name)}};
}

// Where the entry points reach a file from, as dump(2) prints it.
std::string reachability_text(const FileReachability &reach) {
  std::vector<std::string> chain;
  for (const std::string &step : reach.chain)
    chain.push_back(sanitize_utf8(step));
  std::vector<std::string> entries;
  for (const std::string &entry : reach.entries)
    entries.push_back(sanitize_utf8(entry));
  return nlohmann::json{{"status", reach.status}, {"entries", entries}, {"chain", chain}}.dump(2);
}

// One finding, members in sorted key order (json_stream.h), with where an
// entry point reaches its file from (reachability_text) when the assessment
// knows.
FlatJsonObject finding_json(const Finding &finding, const std::string *reachability) {
  FlatJsonObject out;
  if (finding.cell >= 0) {
    out.add("cell", std::int64_t{finding.cell} + 1); // 1-based, as Jupyter shows cells
    out.add("cell_line", std::int64_t{finding.cell_line});
  }
  out.add("column", std::int64_t{finding.span.column});
  if (finding.rule)
    out.add("effort", to_string(finding.rule->effort));
  out.add("end_column", std::int64_t{finding.span.end_column});
  out.add("end_line", std::int64_t{finding.span.end_line});
  if (finding.rule)
    out.add("family", finding.rule->family);
  out.add("guard", to_string(finding.guard));
  out.add("in_forward", finding.in_forward);
  out.add("kind", to_string(finding.file_kind));
  out.add("line", std::int64_t{finding.span.line});
  out.add("message", sanitize_utf8(finding.message));
  out.add("name", sanitize_utf8(finding.name));
  out.add("path", finding.path);
  if (reachability)
    out.add_dumped("reachability", *reachability);
  if (finding.rule)
    out.add("replacement", finding.rule->replacement);
  out.add("rule", finding.rule_id);
  out.add("scope", finding.scope);
  out.add("severity", to_string(static_cast<Severity>(finding.severity)));
  out.add("snippet", finding.snippet);
  out.add("suppressed", finding.suppressed);
  if (finding.suppressed)
    out.add("suppression_reason", finding.suppression_reason);
  return out;
}

// A cause group of factors (assess/reason_groups.h); `members` index the
// matching `deciding` or `secondary` list.
nlohmann::json groups_json(const std::vector<ReasonGroup> &groups) {
  nlohmann::json list = nlohmann::json::array();
  for (const ReasonGroup &group : groups) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto &[rule, count] : group.rules)
      rules.push_back({{"rule", rule}, {"count", count}});
    nlohmann::json directories = nlohmann::json::array();
    for (const auto &[directory, count] : group.directories)
      directories.push_back({{"directory", sanitize_utf8(directory)}, {"count", count}});
    std::vector<std::string> entries;
    for (const std::string &entry : group.entries)
      entries.push_back(sanitize_utf8(entry));
    list.push_back({{"kind", std::string(to_string(group.kind))},
                    {"cause", sanitize_utf8(group.cause)},
                    {"pushes_to", std::string(to_string(group.pushes_to))},
                    {"title", sanitize_utf8(group.title)},
                    {"summary", sanitize_utf8(group.summary)},
                    {"count", group.count},
                    {"files", group.files},
                    {"rules", rules},
                    {"directories", directories},
                    {"example", sanitize_utf8(group.example)},
                    {"entries", entries},
                    {"members", group.members}});
  }
  return list;
}

// Hours rounded to hundredths, so reports stay byte-stable.
double rounded(double hours) {
  return std::round(hours * 100.0) / 100.0;
}

nlohmann::json hours_json(const HourRange &range) {
  return {{"low", rounded(range.low)}, {"high", rounded(range.high)}, {"text", format_hours(range)}};
}

// What `mpsaudit fix` removes (docs/effort-model.md, "Fix credit").
nlohmann::json fix_credit_json(const FixCredit &fix) {
  return {{"safe_findings", fix.safe_sites},
          {"unsafe_findings", fix.unsafe_sites},
          {"safe_hours", hours_json(fix.safe)},
          {"with_unsafe_hours", hours_json(fix.with_unsafe)}};
}

nlohmann::json rollup_row_json(const RollUp &row) {
  return {{"name", sanitize_utf8(row.name)},
          {"hours", hours_json(row.hours)},
          {"findings", row.findings},
          {"fix", fix_credit_json(row.fix)}};
}

nlohmann::json rollup_json(const std::vector<RollUp> &rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto &row : rows)
    out.push_back(rollup_row_json(row));
  return out;
}

nlohmann::json factor_json(const DecisionFactor &factor) {
  nlohmann::json out = {{"kind", std::string(to_string(factor.kind))},
                        {"pushes_to", std::string(to_string(factor.pushes_to))},
                        {"summary", sanitize_utf8(factor.summary)}};
  if (factor.finding_index >= 0) {
    out["rule"] = factor.rule_id;
    out["path"] = sanitize_utf8(factor.path);
    out["line"] = factor.line;
    out["name"] = factor.name;
    out["role"] = factor.role;
    out["replacement"] = factor.replacement;
  } else if (!factor.path.empty()) {
    out["path"] = sanitize_utf8(factor.path);
  }
  if (!factor.entries.empty()) {
    std::vector<std::string> entries;
    for (const std::string &entry : factor.entries)
      entries.push_back(sanitize_utf8(entry));
    out["entries"] = entries;
  }
  return out;
}

nlohmann::json memory_json(const MemoryFit &memory) {
  nlohmann::json tiers = nlohmann::json::array();
  for (const auto &tier : memory.tiers)
    tiers.push_back({{"gigabytes", tier.gigabytes},
                     {"usable_bytes", tier.usable_bytes},
                     {"inference_fits", tier.inference_fits},
                     {"training_fits", tier.training_fits}});
  nlohmann::json evidence = nlohmann::json::array();
  for (const auto &item : memory.evidence)
    evidence.push_back({{"source", item.source},
                        {"path", sanitize_utf8(item.path)},
                        {"line", item.line},
                        {"parameters", item.parameters},
                        {"weight_bytes", item.weight_bytes},
                        {"stated_bytes", item.stated_bytes},
                        {"detail", sanitize_utf8(item.detail)}});
  return {{"has_estimate", memory.has_estimate},
          {"has_model_size", memory.has_model_size},
          {"parameters", memory.parameters},
          {"inference_bytes", memory.inference_bytes},
          {"training_bytes", memory.training_bytes},
          {"stated_vram_bytes", memory.stated_vram_bytes},
          {"inference_min_tier_gb", memory.inference_min_tier_gb},
          {"training_min_tier_gb", memory.training_min_tier_gb},
          {"summary", sanitize_utf8(memory.summary)},
          {"method", memory.method},
          {"tiers", tiers},
          {"evidence", evidence}};
}

nlohmann::json probe_json(const ProbeVerdicts &probe) {
  nlohmann::json operators = nlohmann::json::array();
  for (const auto &op : probe.operators)
    operators.push_back({{"name", op.name},
                         {"outcome", op.outcome},
                         {"evidence", op.evidence},
                         {"reason", op.reason},
                         {"path", sanitize_utf8(op.path)},
                         {"line", op.line},
                         {"live_ok", op.live_ok},
                         {"live_failed", op.live_failed}});
  nlohmann::json out = {{"ran", probe.present}, {"operators", operators}};
  if (probe.present) {
    out["target"] = probe.target;
    out["coverage_table"] = probe.coverage_table;
    out["environment"] = {{"libtorch_version", probe.environment.libtorch_version},
                          {"os", probe.environment.os},
                          {"arch", probe.environment.arch},
                          {"mps_built", probe.environment.mps_built},
                          {"mps_available", probe.environment.mps_available},
                          {"mps_fallback_enabled", probe.environment.mps_fallback_enabled},
                          {"warnings", probe.environment.warnings}};
  }
  return out;
}

nlohmann::json roles_list(const std::vector<Role> &roles) {
  nlohmann::json out = nlohmann::json::array();
  for (Role role : roles)
    out.push_back(std::string(to_string(role)));
  return out;
}

// One distinct fix of the estimate, streamed: an item that many files
// share (a hard-coded "cuda" string) has one share per file, and built as a
// whole it held tens of MB on a large tree. Members in nlohmann's (sorted)
// order, so the output stays what dump() wrote.
void write_effort_item_json(JsonStreamWriter &json, const EffortItem &item) {
  json.begin_object();
  json.member("basis", sanitize_utf8(item.basis));
  json.member("category", item.family);
  if (item.deferred.high > 0)
    json.member("deferred", hours_json(item.deferred));
  json.member("effort", std::string(to_string(item.effort)));
  json.member("estimable", item.estimable);
  json.key("files");
  json.begin_array();
  for (const auto &share : item.files)
    json.value(nlohmann::json{{"path", sanitize_utf8(share.path)},
                              {"sites", share.sites},
                              {"hours", hours_json(share.hours)},
                              {"fix", fix_credit_json(share.fix)}});
  json.end_array();
  json.member("fix", fix_credit_json(item.fix));
  json.member("hours", hours_json(item.hours));
  json.member("key", sanitize_utf8(item.key));
  json.member("kind", std::string(to_string(item.kind)));
  json.member("replacement", item.replacement);
  if (!item.rule_id.empty())
    json.member("rule", item.rule_id);
  json.member("sites", item.sites);
  json.member("title", sanitize_utf8(item.title));
  json.end_object();
}

// The effort estimate, streamed: items and the per-file roll-up grow with
// the tree.
void write_effort_json(JsonStreamWriter &json, const Assessment &assessment) {
  const EffortEstimate &effort = assessment.effort;
  json.begin_object();
  json.member("advisory_findings", effort.advisory_findings);
  json.member("after_fix",
              hours_json({effort.total.low - effort.fix.safe.low, effort.total.high - effort.fix.safe.high}));
  json.member("by_category", rollup_json(effort.by_category));
  json.member("by_directory", rollup_json(effort.by_directory));
  json.key("by_file");
  json.begin_array();
  for (const auto &row : effort.by_file)
    json.value(rollup_row_json(row));
  json.end_array();
  json.member("by_role", rollup_json(effort.by_role));
  json.member("deferred", hours_json(effort.deferred));
  json.member("fix", fix_credit_json(effort.fix));
  json.member("guarded_findings", effort.guarded_findings);
  json.key("items");
  json.begin_array();
  for (const auto &item : effort.items)
    write_effort_item_json(json, item);
  json.end_array();
  nlohmann::json families = nlohmann::json::array();
  for (const KernelFamily &family : effort.kernel_families)
    families.push_back({{"name", sanitize_utf8(family.name)},
                        {"kernels", family.members},
                        {"tensor_core", family.tensor_core},
                        {"hours", hours_json(family.hours)}});
  json.member("kernel_families", families);
  json.member("model", assessment.effort_model_origin);
  json.member("native_port_hours", hours_json(effort.native_port));
  const RecommendedPlan &plan = assessment.recommended;
  json.member("native_port_text", native_port_text(effort, plan.path));
  json.member("not_estimated", effort.not_estimated);
  json.member("open_findings", effort.open_findings);
  json.member("recommended", nlohmann::json{{"path", std::string(to_string(plan.path))},
                                            {"goal", sanitize_utf8(plan.goal)},
                                            {"basis", sanitize_utf8(plan.basis)},
                                            {"fix", fix_credit_json(plan.fix)}});
  json.member("recommended_hours", hours_json(plan.hours));
  json.member("suppressed_findings", effort.suppressed_findings);
  json.member("total", hours_json(effort.total));
  json.end_object();
}

nlohmann::json entry_points_json(const std::vector<EntryAssessment> &entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const EntryAssessment &judged : entries) {
    nlohmann::json blockers = nlohmann::json::array();
    for (const EntryBlocker &blocker : judged.blockers)
      blockers.push_back({{"rule", blocker.rule_id},
                          {"name", sanitize_utf8(blocker.name)},
                          {"path", sanitize_utf8(blocker.path)},
                          {"line", blocker.line},
                          {"count", blocker.count}});
    list.push_back({{"path", sanitize_utf8(judged.entry.path)},
                    {"purpose", std::string(to_string(judged.entry.purpose))},
                    {"purpose_source", sanitize_utf8(judged.entry.purpose_source)},
                    {"scope", std::string(to_string(judged.entry.scope))},
                    {"found_by", judged.entry.found_by},
                    {"mac", std::string(to_string(judged.mac))},
                    {"blockers", blockers},
                    {"hours", hours_json(judged.hours)},
                    {"files", judged.files},
                    {"open_findings", judged.open_findings}});
  }
  return list;
}

// The decision, streamed factor by factor: on a large tree the secondary
// factors run to tens of thousands (one per finding of some hazards), and
// built as one array they held tens of MB. Members in nlohmann's (sorted)
// order, so the output stays what dump() wrote.
void write_decision_json(JsonStreamWriter &json, const Decision &decision) {
  const auto factors = [&json](std::string_view key, const std::vector<DecisionFactor> &list) {
    json.key(key);
    json.begin_array();
    for (const auto &factor : list)
      json.value(factor_json(factor));
    json.end_array();
  };
  json.begin_object();
  factors("deciding", decision.deciding);
  json.member("groups", groups_json(decision.deciding_groups));
  json.member("headline", sanitize_utf8(decision.headline));
  json.member("if_resolved", decision.if_resolved
                                 ? nlohmann::json(std::string(to_string(*decision.if_resolved)))
                                 : nlohmann::json(nullptr));
  json.member("meaning", std::string(outcome_meaning(decision.outcome)));
  json.member("outcome", std::string(to_string(decision.outcome)));
  json.member("reasons", decision.reasons);
  factors("secondary", decision.secondary);
  json.member("secondary_groups", groups_json(decision.secondary_groups));
  json.member("what_would_change", decision.what_would_change);
  json.end_object();
}

// The "assessment" member of the report, in sorted member order (see
// json_stream.h); the parts that grow with the tree are streamed.
void write_assessment_json(JsonStreamWriter &json, const Assessment &assessment) {
  nlohmann::json acceptance = nlohmann::json::array();
  for (const auto &level : assessment.acceptance)
    acceptance.push_back({{"level", level.level},
                          {"title", level.title},
                          {"status", std::string(to_string(level.status))},
                          {"evidence", sanitize_utf8(level.evidence)},
                          {"how_to_confirm", level.how_to_confirm}});

  const DecisionThresholds &thresholds = assessment.thresholds;
  nlohmann::json thresholds_json = {
      {"adapt_max_hours", thresholds.adapt_max_hours},
      {"keep_min_hours", thresholds.keep_min_hours},
      {"blocker_min_effort", std::string(to_string(thresholds.blocker_min_effort))},
      {"fallback_item_min_effort", std::string(to_string(thresholds.fallback_item_min_effort))},
      {"training_scale_min_effort", std::string(to_string(thresholds.training_scale_min_effort))},
      {"training_scale_families", thresholds.training_scale_families},
      {"training_scale_rules", thresholds.training_scale_rules},
      {"critical_roles", roles_list(thresholds.critical_roles)},
      {"peripheral_roles", roles_list(thresholds.peripheral_roles)},
      {"memory_decides", thresholds.memory_decides},
  };

  json.begin_object();
  json.member("acceptance", acceptance);
  // Streamed, a step at a time: a large tree's plan has a step per distinct
  // fix, thousands of them, and as one nlohmann array it held about 12 MB.
  json.key("action_plan");
  json.begin_array();
  for (const auto &step : assessment.plan)
    json.value({{"order", step.order},
                {"title", sanitize_utf8(step.title)},
                {"effort", step.effort},
                {"count", step.count},
                {"files", step.files},
                {"hours", hours_json(step.hours)},
                {"detail", sanitize_utf8(step.detail)},
                {"rules", step.rule_ids},
                {"fix", fix_credit_json(step.fix)},
                {"deferred", step.deferred},
                {"if_port_anyway", step.if_port_anyway}});
  json.end_array();
  json.key("decision");
  write_decision_json(json, assessment.decision);
  json.key("effort");
  write_effort_json(json, assessment);
  json.member("entry_points", entry_points_json(assessment.entry_points));
  json.member("memory_fit", memory_json(assessment.memory));
  json.member("optional_sub_projects", assessment.optional_sub_projects);
  json.member("probe", probe_json(assessment.probe));
  json.key("roles");
  json.begin_array();
  for (const auto &role : assessment.roles)
    json.value({{"path", sanitize_utf8(role.path)},
                {"role", std::string(to_string(role.role))},
                {"reasons", role.reasons}});
  json.end_array();
  json.member("thresholds", thresholds_json);
  json.end_object();
}

} // namespace

void write_json_report(std::ostream &out, const ScanResult &result, const ReportContext &context) {
  // Members in sorted key order (see json_stream.h); files and findings are
  // streamed, one element at a time.
  JsonStreamWriter json(out);
  json.begin_object();
  json.key("api_uses");
  json.begin_array();
  for (const auto &use : result.api_uses)
    json.value({{"name", use.name}, {"path", use.path}, {"line", use.line}, {"count", use.count}});
  json.end_array();
  if (context.assessment) {
    json.key("assessment");
    write_assessment_json(json, *context.assessment);
  }
  if (!context.no_decision_reason.empty()) {
    json.key("decision");
    json.value(nullptr);
  }
  json.key("diagnostics");
  json.begin_array();
  for (const auto &diagnostic : result.diagnostics)
    json.value({{"level", std::string(to_string(diagnostic.level))},
                {"path", sanitize_utf8(diagnostic.path)},
                {"line", diagnostic.line},
                {"code", diagnostic.code},
                {"message", sanitize_utf8(diagnostic.message)}});
  json.end_array();
  if (!context.environment.is_null())
    json.member("environment", context.environment);

  std::map<std::string, int> modes;
  json.key("files");
  json.begin_array();
  for (const auto &file : result.files) {
    FlatJsonObject entry; // members in sorted key order
    entry.add("bytes", static_cast<std::int64_t>(file.bytes));
    entry.add("kind", to_string(file.kind));
    entry.add("lines", std::int64_t{file.lines});
    entry.add("mode", file.mode);
    entry.add("path", sanitize_utf8(file.path));
    json.value(entry);
    ++modes[file.mode];
  }
  json.end_array();

  std::map<std::string, int> by_severity{{"error", 0}, {"warning", 0}, {"info", 0}};
  int suppressed = 0;
  json.key("findings");
  json.begin_array();
  // Findings come sorted by file, and a file's findings share its reachability.
  const FileReachability *rendered_reach = nullptr;
  std::string reachability;
  for (const auto &finding : result.findings) {
    const FileReachability *reach = nullptr;
    if (context.assessment) {
      const auto found = context.assessment->reachability.find(finding.path);
      if (found != context.assessment->reachability.end())
        reach = &found->second;
    }
    if (reach && reach != rendered_reach) {
      reachability = reachability_text(*reach);
      rendered_reach = reach;
    }
    json.value(finding_json(finding, reach ? &reachability : nullptr));
    if (finding.suppressed)
      ++suppressed;
    else
      ++by_severity[std::string(to_string(static_cast<Severity>(finding.severity)))];
  }
  json.end_array();

  if (!context.no_decision_reason.empty())
    json.member("no_decision_reason", context.no_decision_reason);
  json.member("repository", repository_json(result));
  json.member("root", result.root_directory.empty() ? result.root : result.root_directory);
  json.member("schema_version", kReportSchemaVersion);
  // What was found but not read, and why: with `files`, every entry of the
  // tree that git does not ignore.
  std::map<std::string, int> skipped_by_reason;
  json.key("skipped");
  json.begin_array();
  for (const auto &skipped : result.skipped) {
    FlatJsonObject entry; // members in sorted key order
    if (!skipped.detail.empty())
      entry.add("detail", skipped.detail);
    entry.add("path", sanitize_utf8(skipped.path));
    entry.add("reason", skipped.reason);
    json.value(entry);
    ++skipped_by_reason[skipped.reason];
  }
  json.end_array();
  json.member("summary", {{"files", result.files.size()},
                          {"files_by_mode", modes},
                          {"findings", result.findings.size() - static_cast<std::size_t>(suppressed)},
                          {"by_severity", by_severity},
                          {"suppressed", suppressed},
                          {"skipped", result.skipped.size()},
                          {"skipped_by_reason", skipped_by_reason},
                          {"not_selected", result.not_selected},
                          {"scan_errors", result.has_errors()}});
  nlohmann::json tool = {{"name", "mpsaudit"}, {"version", context.tool_version}};
  // Which rule set judged the tree: a portfolio notes reports judged by
  // another (docs/portfolio.md).
  if (context.catalog)
    tool["rules"] = to_hex(catalog_fingerprint(*context.catalog)).substr(0, 16);
  json.member("tool", tool);
  // The everyday-workflow context: what filtered the findings, and how the
  // inline suppressions are used (counted, as ruff counts noqa comments).
  const WorkflowSummary &workflow = result.workflow;
  nlohmann::json workflow_json = {{"partial_scan", workflow.partial_scan},
                                  {"config_file", workflow.config_file},
                                  {"target_torch", workflow.target_torch},
                                  {"suppressions",
                                   {{"directives", workflow.suppressions.directives},
                                    {"without_reason", workflow.suppressions.without_reason},
                                    {"unused", workflow.suppressions.unused}}},
                                  {"path_ignored", workflow.path_ignored},
                                  {"baseline",
                                   {{"file", workflow.baseline_file},
                                    {"known", workflow.baseline_known},
                                    {"fixed", workflow.baseline_fixed}}}};
  // Whose the config is, only when there is one (a report without one is unchanged).
  if (!workflow.config_file.empty()) {
    workflow_json["config_from_tree"] = workflow.config_from_tree;
    workflow_json["safety_kept"] = workflow.safety_kept;
  }
  json.member("workflow", workflow_json);
  json.end_object();
  out << "\n";
}

nlohmann::json report_to_json(const ScanResult &result, const ReportContext &context) {
  std::ostringstream text;
  write_json_report(text, result, context);
  return nlohmann::json::parse(text.str());
}

} // namespace mpsaudit
