#include "assess/reason_groups.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/text.h"

namespace mpsaudit {
namespace {

const Finding *finding_of(const DecisionFactor &factor, const ScanResult &scan) {
  if (factor.finding_index < 0 || static_cast<std::size_t>(factor.finding_index) >= scan.findings.size())
    return nullptr;
  return &scan.findings[static_cast<std::size_t>(factor.finding_index)];
}

std::string cause_of(const DecisionFactor &factor, const Finding *finding) {
  if (!finding || !finding->rule)
    return factor.rule_id.empty() ? std::string(to_string(factor.kind)) : "rule:" + factor.rule_id;
  if (finding->rule->family == "cxx")
    return "cuda-code";
  if (finding->rule->package_cause && !factor.name.empty())
    return "package:" + top_level_package(factor.name);
  return "rule:" + factor.rule_id;
}

std::string title_of(const std::string &cause, const DecisionFactor &lead, const Finding *finding) {
  if (cause == "cuda-code")
    return "CUDA kernels and CUDA C++ code";
  if (starts_with(cause, "package:"))
    return (finding && !about_cuda(finding->rule) ? "Package `" : "CUDA-only package `") + cause.substr(8) +
           "`";
  if (starts_with(cause, "rule:"))
    return (finding && finding->rule && !finding->rule->summary.empty() ? finding->rule->summary + " "
                                                                        : std::string()) +
           "(" + lead.rule_id + ")";
  if (lead.kind == FactorKind::FallbackItem)
    return "CUDA kernels with a CPU/Python fallback";
  return std::string(to_string(lead.kind));
}

// What the members have in common, as the factor summaries say it.
std::string kind_phrase(FactorKind kind, bool about_cuda) {
  switch (kind) {
  case FactorKind::CriticalBlocker:
    return about_cuda ? "CUDA-only on the model's critical path with no fallback"
                      : "stops a Mac run on the model's critical path";
  case FactorKind::TrainingBlocker:
    return about_cuda ? "CUDA-only, confined to code off the model's critical path"
                      : "stops a Mac run, confined to code off the model's critical path";
  case FactorKind::EntryBlocker:
    return "CUDA-only in entry points that Linux keeps, beside ones of the same purpose that run on a Mac";
  case FactorKind::TrainingScale:
    return "training-at-scale machinery (multi-GPU or a CUDA-only speed library)";
  case FactorKind::FallbackItem:
    return "large CUDA-only items with a fallback: the Mac runs the slower fallback";
  default:
    return std::string(to_string(kind));
  }
}

// A member's path or directory in the group's sentence: from the current
// directory (the group's fields keep the tree's own paths).
std::string shown(const ScanResult &scan, const std::string &path) {
  return path == "." ? directory_for_display(scan, path) : path_for_display(scan, path);
}

// "MPS830 x191, MPS804 x116, MPS842 x41 and 5 more rules"
std::string rules_text(const std::vector<std::pair<std::string, std::size_t>> &rules) {
  std::string text;
  for (std::size_t i = 0; i < rules.size() && i < 3; ++i)
    text += (i ? ", " : "") + rules[i].first +
            (rules[i].second > 1 ? " x" + std::to_string(rules[i].second) : "");
  if (rules.size() > 3)
    text += " and " + counted(rules.size() - 3, "more rule");
  return text;
}

// "csrc/megatron (120), csrc (80) and 5 more directories"
std::string directories_text(const ScanResult &scan,
                             const std::vector<std::pair<std::string, std::size_t>> &directories) {
  std::string text;
  for (std::size_t i = 0; i < directories.size() && i < 2; ++i)
    text += (i ? ", " : "") + shown(scan, directories[i].first) + " (" +
            std::to_string(directories[i].second) + ")";
  if (directories.size() > 2)
    text += " and " + std::to_string(directories.size() - 2) +
            (directories.size() == 3 ? " more directory" : " more directories");
  return text;
}

void add_count(std::vector<std::pair<std::string, std::size_t>> &counts, const std::string &key) {
  auto found =
      std::find_if(counts.begin(), counts.end(), [&](const auto &count) { return count.first == key; });
  if (found == counts.end())
    counts.emplace_back(key, 1);
  else
    ++found->second;
}

std::string group_summary(const ScanResult &scan, const ReasonGroup &group, const DecisionFactor &lead,
                          const Finding *lead_finding) {
  if (group.count == 1)
    return lead.summary;
  std::string text = group.title + ": " + counted(group.count, lead.finding_index < 0 ? "item" : "finding") +
                     " in " + counted(group.files, "file");
  if (!group.rules.empty() && group.cause != "rule:" + group.rules.front().first)
    text += " (" + rules_text(group.rules) + ")";
  text += ", " + kind_phrase(group.kind, !lead_finding || about_cuda(lead_finding->rule));
  if (group.directories.size() > 1)
    text += "; in " + directories_text(scan, group.directories);
  text += "; e.g. " + shown(scan, group.example);
  if (!group.entries.empty()) {
    text += "; run by ";
    for (std::size_t i = 0; i < group.entries.size(); ++i)
      text += (i ? ", " : "") + shown(scan, group.entries[i]);
  }
  return text;
}

void count_member(ReasonGroup &group, const DecisionFactor &factor, std::set<std::string> &paths) {
  ++group.count;
  if (!factor.path.empty()) {
    paths.insert(factor.path);
    add_count(group.directories, parent_directory(factor.path.str()));
  }
  if (!factor.rule_id.empty())
    add_count(group.rules, factor.rule_id);
  for (const std::string &entry : factor.entries)
    if (group.entries.size() < 3 &&
        std::find(group.entries.begin(), group.entries.end(), entry) == group.entries.end())
      group.entries.push_back(entry);
}

} // namespace

std::vector<ReasonGroup> group_by_cause(const std::vector<DecisionFactor> &factors, const ScanResult &scan) {
  std::vector<ReasonGroup> groups;
  std::map<std::string, std::size_t> index; // kind|cause -> group
  std::vector<std::set<std::string>> paths;
  for (std::size_t i = 0; i < factors.size(); ++i) {
    const DecisionFactor &factor = factors[i];
    const Finding *finding = finding_of(factor, scan);
    const std::string cause = cause_of(factor, finding);
    const auto [found, added] =
        index.emplace(std::string(to_string(factor.kind)) + "|" + cause, groups.size());
    if (added) {
      ReasonGroup group;
      group.kind = factor.kind;
      group.cause = cause;
      group.pushes_to = factor.pushes_to;
      group.title = title_of(cause, factor, finding);
      group.example = factor_location(factor);
      groups.push_back(std::move(group));
      paths.emplace_back();
    }
    groups[found->second].members.push_back(i);
    count_member(groups[found->second], factor, paths[found->second]);
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    ReasonGroup &group = groups[g];
    group.files = paths[g].size();
    const auto most_first = [](const auto &a, const auto &b) { return a.second > b.second; };
    std::stable_sort(group.rules.begin(), group.rules.end(), most_first);
    std::stable_sort(group.directories.begin(), group.directories.end(), most_first);
    const DecisionFactor &lead = factors[group.members.front()];
    group.summary = group_summary(scan, group, lead, finding_of(lead, scan));
  }
  std::stable_sort(groups.begin(), groups.end(), [&](const ReasonGroup &a, const ReasonGroup &b) {
    const auto strength_a = reason_strength(factors[a.members.front()], scan);
    const auto strength_b = reason_strength(factors[b.members.front()], scan);
    return strength_a != strength_b ? strength_a > strength_b : a.count > b.count;
  });
  return groups;
}

std::string top_level_package(std::string_view name) {
  const std::size_t end = name.find_first_of(".[<>=!~; /:");
  std::string package = to_lower(name.substr(0, end));
  std::replace(package.begin(), package.end(), '-', '_');
  return package;
}

} // namespace mpsaudit
