#include "portfolio/portfolio.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "assess/entry_points.h"
#include "assess/reason_groups.h"
#include "core/text.h"
#include "coverage_table.h"

namespace mpsaudit {
namespace {

using nlohmann::json;

// The verdicts a row may carry, in table order.
bool is_verdict(const std::string &text) {
  return std::any_of(std::begin(kPortfolioVerdicts), std::end(kPortfolioVerdicts),
                     [&](const char *verdict) { return text == verdict; });
}

// A member of `object` when it has the type asked for, else `fallback`:
// a report from another version may lack or retype a field.
template <typename T> T member_or(const json &object, const char *key, T fallback) {
  if (!object.is_object())
    return fallback;
  const auto found = object.find(key);
  if (found == object.end() || found->is_null())
    return fallback;
  try {
    return found->get<T>();
  } catch (const json::exception &) {
    return fallback;
  }
}

const json &child(const json &object, const char *key) {
  static const json null_value;
  if (!object.is_object())
    return null_value;
  const auto found = object.find(key);
  return found == object.end() ? null_value : *found;
}

HourRange hours_of(const json &hours) {
  return {member_or<double>(hours, "low", 0), member_or<double>(hours, "high", 0)};
}

json hours_json(const HourRange &range) {
  return {{"low", range.low}, {"high", range.high}, {"text", format_hours(range)}};
}

// The elements of a JSON array, none for anything else; a reference, so that
// a report's arrays are walked where they are, not copied.
const json &elements(const json &value) {
  static const json none = json::array();
  return value.is_array() ? value : none;
}

// What the estimate gives the work items of one cause: a rule's items
// ("MPS501", "MPS501:<subject>"), a package's, or the kernels' for CUDA code.
std::optional<HourRange> cause_hours(const std::string &cause, const json &items) {
  HourRange sum;
  bool priced = false;
  for (const json &item : elements(items)) {
    const std::string key = member_or<std::string>(item, "key", "");
    bool matches = false;
    if (starts_with(cause, "rule:"))
      matches = key == cause.substr(5) || starts_with(key, cause.substr(5) + ":");
    else if (starts_with(cause, "package:"))
      matches = starts_with(key, "package:") && top_level_package(key.substr(8)) == cause.substr(8);
    else if (cause == "cuda-code")
      matches = member_or<std::string>(item, "kind", "") == "kernel";
    if (matches) {
      sum += hours_of(child(item, "hours"));
      priced = true;
    }
  }
  if (!priced)
    return std::nullopt;
  return sum;
}

// The causes that push the verdict off ADAPT, strongest first (the
// decision's groups; "the estimate is too large" is no blocker).
std::vector<PortfolioBlocker> blockers_of(const json &decision, const json &items) {
  std::vector<PortfolioBlocker> blockers;
  for (const json &group : elements(child(decision, "groups"))) {
    const std::string cause = member_or<std::string>(group, "cause", "");
    if (cause.empty() || starts_with(cause, "effort-"))
      continue;
    PortfolioBlocker blocker;
    blocker.cause = cause;
    blocker.title = member_or<std::string>(group, "title", cause);
    blocker.pushes_to = member_or<std::string>(group, "pushes_to", "");
    blocker.findings = member_or<std::size_t>(group, "count", 0);
    blocker.hours = cause_hours(cause, items);
    blockers.push_back(std::move(blocker));
  }
  return blockers;
}

// The release an `operators` finding names as the first with an MPS kernel:
// "(added in 2.4)", "(added by 2.4.0)" (the first table that has it) or
// "runs on MPS from 2.4"; empty when it names none. The messages are the
// mps-operator-coverage pass's (coverage/operator_coverage_pass.cpp).
std::string release_named(const std::string &message) {
  static const std::regex named(R"((?:added in|added by|runs on MPS from) ([0-9]+(?:\.[0-9]+)*))");
  std::smatch match;
  if (std::regex_search(message, match, named))
    return match[1].str();
  return {};
}

// The missing-operator findings of a report: how many, and the release that
// has kernels for all of them ("" when one has none in any release). Returns
// the rules that reported them.
std::set<std::string> read_missing_operators(const json &findings, PortfolioRow &row) {
  std::set<std::string> rules;
  bool every_one_named = true;
  for (const json &finding : elements(findings)) {
    if (member_or<std::string>(finding, "family", "") != "operators" ||
        member_or<bool>(finding, "suppressed", false))
      continue;
    const std::string message = member_or<std::string>(finding, "message", "");
    const std::string release = release_named(message);
    if (release.empty() && message.find("no MPS kernel") == std::string::npos &&
        message.find("falls back to the CPU") == std::string::npos)
      continue; // an operator with a record of wrong results, which no release is known to mend
    ++row.missing_operators;
    rules.insert(member_or<std::string>(finding, "rule", ""));
    if (release.empty())
      every_one_named = false;
    else if (row.operators_release.empty() || probe::compare_versions(release, row.operators_release) > 0)
      row.operators_release = release;
  }
  if (!every_one_named)
    row.operators_release.clear();
  return rules;
}

std::size_t entries_on_mac(const json &entries) {
  std::size_t count = 0;
  for (const json &entry : elements(entries)) {
    const std::string mac = member_or<std::string>(entry, "mac", "");
    for (std::size_t status = 0; status < std::size(kMacStatusNames); ++status)
      if (mac == kMacStatusNames[status] && runs_on_a_mac(static_cast<MacStatus>(status)))
        ++count;
  }
  return count;
}

// The headline without its "VERDICT: " lead.
std::string reason_of(const std::string &headline, const std::string &verdict) {
  const std::string lead = verdict + ": ";
  return starts_with(headline, lead) ? headline.substr(lead.size()) : headline;
}

bool path_may_start_after(char c) {
  return c == ' ' || c == '(' || c == '`' || c == '\'' || c == '"' || c == ',' || c == '[' || c == '\t';
}

// Rows judged by another rule set than most (a report from a CI job with its
// own rules directory): their verdicts may differ for that reason alone.
void note_other_rule_sets(std::vector<PortfolioRow> &rows) {
  std::map<std::string, std::size_t> count;
  for (const PortfolioRow &row : rows)
    if (row.ok() && !row.rules.empty())
      ++count[row.rules];
  if (count.size() < 2)
    return;
  const auto most = std::max_element(count.begin(), count.end(),
                                     [](const auto &a, const auto &b) { return a.second < b.second; });
  for (PortfolioRow &row : rows)
    if (row.ok() && !row.rules.empty() && row.rules != most->first)
      row.notes.push_back("judged by another rule set (rules " + row.rules + ") than most rows (" +
                          most->first + ")");
}

} // namespace

std::string PortfolioBlocker::short_name() const {
  if (starts_with(cause, "package:"))
    return cause.substr(8);
  if (starts_with(cause, "rule:"))
    return cause.substr(5);
  return cause == "cuda-code" ? "CUDA code" : cause;
}

double PortfolioRow::fix_share() const {
  const double whole = (effort.low + effort.high) / 2;
  return whole > 0 ? std::min(1.0, (fix_removes.low + fix_removes.high) / 2 / whole) : 0;
}

std::string paths_from_top(const std::string &text, const std::string &root) {
  if (root.empty() || root == "." || root == "./")
    return text;
  const std::string prefix = root.back() == '/' ? root : root + "/";
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t found = text.find(prefix, at);
    if (found == std::string::npos)
      break;
    out.append(text, at, found - at);
    if (found != 0 && !path_may_start_after(text[found - 1]))
      out.append(prefix); // inside a longer word: "data/" in "metadata/"
    at = found + prefix.size();
  }
  out.append(text, at, std::string::npos);
  return out;
}

PortfolioRow row_from_report(const json &report, const std::string &our_version) {
  PortfolioRow row;
  const json &repository = child(report, "repository");
  const std::string root = member_or<std::string>(report, "root", "");
  row.name = member_or<std::string>(repository, "name", "");
  if (const std::string commit = member_or<std::string>(repository, "commit", ""); !commit.empty())
    row.commit = commit;
  row.tool_version = member_or<std::string>(child(report, "tool"), "version", "");
  row.rules = member_or<std::string>(child(report, "tool"), "rules", "");
  if (!report.is_object() || member_or<std::string>(child(report, "tool"), "name", "") != "mpsaudit") {
    row.error = "not an mpsaudit JSON report (no tool.name \"mpsaudit\")";
    return row;
  }
  if (const int schema = member_or<int>(report, "schema_version", 0); schema != 1) {
    row.error = "report schema_version " + std::to_string(schema) + " is not one this mpsaudit reads (1)";
    return row;
  }
  if (row.tool_version != our_version)
    row.notes.push_back("report written by mpsaudit " + row.tool_version + " (this is " + our_version + ")");
  const json &assessment = child(report, "assessment");
  const json &decision = child(assessment, "decision");
  row.verdict = member_or<std::string>(decision, "outcome", "");
  if (!is_verdict(row.verdict)) {
    const std::string why = member_or<std::string>(report, "no_decision_reason", "");
    row.error = "the report has no verdict" + (why.empty() ? std::string() : ": " + why);
    return row;
  }
  row.reason = paths_from_top(reason_of(member_or<std::string>(decision, "headline", ""), row.verdict), root);
  const json &effort = child(assessment, "effort");
  row.effort = hours_of(child(effort, "recommended_hours"));
  if (row.verdict != "ADAPT")
    row.native_port = hours_of(child(effort, "native_port_hours"));
  row.fix_removes = hours_of(child(child(child(effort, "recommended"), "fix"), "safe_hours"));
  row.blockers = blockers_of(decision, child(effort, "items"));
  const json &entries = child(assessment, "entry_points");
  row.entries = elements(entries).size();
  row.entries_on_mac = entries_on_mac(entries);
  row.files = member_or<std::size_t>(child(report, "summary"), "files", 0);
  row.findings = member_or<std::size_t>(child(report, "summary"), "findings", 0);
  const std::set<std::string> operator_rules = read_missing_operators(child(report, "findings"), row);
  row.operators_decide =
      !row.blockers.empty() &&
      std::all_of(row.blockers.begin(), row.blockers.end(), [&](const PortfolioBlocker &blocker) {
        return starts_with(blocker.cause, "rule:") && operator_rules.count(blocker.cause.substr(5));
      });
  return row;
}

Portfolio summarize_portfolio(std::vector<PortfolioRow> rows, const std::string &tool_version) {
  Portfolio portfolio;
  portfolio.tool_version = tool_version;
  portfolio.rows = std::move(rows);
  note_other_rule_sets(portfolio.rows);
  for (const char *verdict : kPortfolioVerdicts) {
    VerdictTotal total{verdict, 0, {}};
    for (const PortfolioRow &row : portfolio.rows)
      if (row.ok() && row.verdict == verdict) {
        ++total.repositories;
        total.hours += row.effort;
      }
    portfolio.totals.push_back(total);
  }
  std::map<std::string, SharedBlocker> by_cause;
  for (const PortfolioRow &row : portfolio.rows)
    for (const PortfolioBlocker &blocker : row.blockers) {
      SharedBlocker &shared = by_cause[blocker.cause];
      shared.cause = blocker.cause;
      if (shared.title.empty())
        shared.title = blocker.title;
      if (shared.repositories.empty() || shared.repositories.back() != row.name)
        shared.repositories.push_back(row.name);
      if (blocker.hours)
        shared.hours += *blocker.hours;
    }
  for (auto &[cause, shared] : by_cause)
    portfolio.shared_blockers.push_back(std::move(shared));
  std::stable_sort(portfolio.shared_blockers.begin(), portfolio.shared_blockers.end(),
                   [](const SharedBlocker &a, const SharedBlocker &b) {
                     if (a.repositories.size() != b.repositories.size())
                       return a.repositories.size() > b.repositories.size();
                     return a.hours.high > b.hours.high;
                   });
  std::set<std::string> releases;
  for (const PortfolioRow &row : portfolio.rows)
    if (!row.operators_release.empty())
      releases.insert(row.operators_release);
  for (const std::string &release : releases) {
    ReleaseEffect effect{release, 0, 0};
    for (const PortfolioRow &row : portfolio.rows)
      if (!row.operators_release.empty() && probe::compare_versions(row.operators_release, release) <= 0) {
        ++effect.repositories;
        effect.verdicts_changed += row.operators_decide ? 1 : 0;
      }
    const bool better = !portfolio.release || effect.verdicts_changed > portfolio.release->verdicts_changed ||
                        (effect.verdicts_changed == portfolio.release->verdicts_changed &&
                         effect.repositories > portfolio.release->repositories);
    if (better)
      portfolio.release = effect;
  }
  return portfolio;
}

bool compare_with_baseline(Portfolio &portfolio, const json &baseline, const std::string &file,
                           std::string &error) {
  const json &old_rows = child(baseline, "repositories");
  if (member_or<int>(baseline, "portfolio_schema_version", 0) != kPortfolioSchemaVersion ||
      !old_rows.is_array()) {
    error = file + " is not a portfolio JSON written by `mpsaudit portfolio` (portfolio_schema_version " +
            std::to_string(kPortfolioSchemaVersion) + ")";
    return false;
  }
  portfolio.baseline_file = file;
  std::map<std::string, const json *> old_by_name;
  for (const json &old : old_rows)
    old_by_name.emplace(member_or<std::string>(old, "name", ""), &old);
  for (PortfolioRow &row : portfolio.rows) {
    const auto found = old_by_name.find(row.name);
    if (found == old_by_name.end()) {
      row.changes.push_back("new in the portfolio");
      continue;
    }
    const json &old = *found->second;
    old_by_name.erase(found);
    if (!row.ok())
      continue;
    const std::string old_verdict = member_or<std::string>(old, "verdict", "");
    if (old_verdict != row.verdict)
      row.changes.push_back("verdict " + (old_verdict.empty() ? std::string("none") : old_verdict) + " -> " +
                            row.verdict);
    const std::string old_effort = member_or<std::string>(child(old, "effort"), "text", "");
    if (old_effort != format_hours(row.effort))
      row.changes.push_back("effort " + old_effort + " -> " + format_hours(row.effort));
    std::set<std::string> old_causes;
    for (const json &blocker : elements(child(old, "blockers")))
      old_causes.insert(member_or<std::string>(blocker, "cause", ""));
    for (const PortfolioBlocker &blocker : row.blockers)
      if (!old_causes.count(blocker.cause))
        row.changes.push_back("new blocker: " + blocker.title);
  }
  for (const auto &[name, old] : old_by_name)
    portfolio.removed_since_baseline.push_back(name);
  return true;
}

json portfolio_to_json(const Portfolio &portfolio) {
  json rows = json::array();
  for (const PortfolioRow &row : portfolio.rows) {
    json blockers = json::array();
    for (const PortfolioBlocker &blocker : row.blockers)
      blockers.push_back({{"cause", blocker.cause},
                          {"title", blocker.title},
                          {"pushes_to", blocker.pushes_to},
                          {"findings", blocker.findings},
                          {"hours", blocker.hours ? hours_json(*blocker.hours) : json(nullptr)}});
    json entry = {{"name", row.name},
                  {"input", row.input},
                  {"source", row.source},
                  {"commit", row.commit ? json(*row.commit) : json(nullptr)},
                  {"tool_version", row.tool_version},
                  {"rules", row.rules},
                  {"notes", row.notes},
                  {"error", row.ok() ? json(nullptr) : json(row.error)},
                  {"scanned_at", row.scanned_at},
                  {"html_report", row.html_report.empty() ? json(nullptr) : json(row.html_report)}};
    if (!portfolio.baseline_file.empty())
      entry["changes"] = row.changes;
    if (row.ok()) {
      entry["verdict"] = row.verdict;
      entry["reason"] = row.reason;
      entry["effort"] = hours_json(row.effort);
      entry["native_port"] = row.native_port ? hours_json(*row.native_port) : json(nullptr);
      entry["fix"] = {{"removes", hours_json(row.fix_removes)}, {"share", row.fix_share()}};
      entry["blockers"] = blockers;
      entry["entry_points"] = {{"on_mac", row.entries_on_mac}, {"all", row.entries}};
      entry["files"] = row.files;
      entry["findings"] = row.findings;
      entry["missing_operators"] = {
          {"count", row.missing_operators},
          {"all_in_release", row.operators_release.empty() ? json(nullptr) : json(row.operators_release)},
          {"decide_verdict", row.operators_decide}};
    }
    rows.push_back(std::move(entry));
  }
  json totals = json::array();
  for (const VerdictTotal &total : portfolio.totals)
    totals.push_back({{"verdict", total.verdict},
                      {"repositories", total.repositories},
                      {"hours", hours_json(total.hours)},
                      {"person_days", {{"low", total.hours.low / 8}, {"high", total.hours.high / 8}}}});
  json shared = json::array();
  for (const SharedBlocker &blocker : portfolio.shared_blockers)
    shared.push_back({{"cause", blocker.cause},
                      {"title", blocker.title},
                      {"replaced_once", blocker.replaced_once()},
                      {"repositories", blocker.repositories},
                      {"hours", hours_json(blocker.hours)}});
  json release = nullptr;
  if (portfolio.release)
    release = {{"release", portfolio.release->release},
               {"repositories", portfolio.release->repositories},
               {"verdicts_changed", portfolio.release->verdicts_changed}};
  json document = {{"portfolio_schema_version", kPortfolioSchemaVersion},
                   {"tool", {{"name", "mpsaudit"}, {"version", portfolio.tool_version}}},
                   {"repositories", rows},
                   {"totals", totals},
                   {"shared_blockers", shared},
                   {"torch_release", release}};
  if (!portfolio.baseline_file.empty())
    document["baseline"] = {{"file", portfolio.baseline_file}, {"removed", portfolio.removed_since_baseline}};
  return document;
}

} // namespace mpsaudit
