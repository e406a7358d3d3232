#include "assess/entry_verdict.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace mpsaudit {

std::vector<EntryAssessment> judge_entry_points(const ScanResult &scan,
                                                const std::vector<EntryPoint> &entries,
                                                const Reachability &reach, const EffortEstimate &effort,
                                                const DecisionThresholds &thresholds) {
  // Findings by file, once, so each entry reads only the files it runs.
  std::unordered_map<std::string, std::vector<std::size_t>> findings_of;
  for (std::size_t i = 0; i < scan.findings.size(); ++i)
    findings_of[scan.findings[i].path].push_back(i);
  const auto &files = scan.project_files;

  std::vector<EntryAssessment> result;
  result.reserve(entries.size());
  for (std::size_t e = 0; e < entries.size(); ++e) {
    EntryAssessment judged;
    judged.entry = entries[e];
    judged.traced = e < reach.traced_entries && e < reach.runs.size() && !reach.runs[e].empty();
    if (!judged.traced) {
      judged.mac = "not-traced";
      result.push_back(std::move(judged));
      continue;
    }
    const std::vector<std::uint32_t> &runs = reach.runs[e];
    judged.files = static_cast<int>(runs.size());
    std::vector<std::string> paths;
    paths.reserve(runs.size());
    std::map<std::string, EntryBlocker> by_rule;
    bool optional_cuda = false;
    for (const std::uint32_t file : runs) {
      paths.push_back(files[file].path);
      const auto found = findings_of.find(files[file].path);
      if (found == findings_of.end())
        continue;
      for (const std::size_t index : found->second) {
        const Finding &finding = scan.findings[index];
        if (finding.suppressed)
          continue;
        if (finding.guard != Guard::None && finding.rule &&
            finding.rule->effort >= thresholds.blocker_min_effort)
          optional_cuda = true;
        if (!is_open_finding(finding))
          continue;
        ++judged.open_findings;
        // Training at scale (multi-GPU, CUDA-only speed libraries) on the
        // entry's default path stops it on a Mac as surely as a blocker.
        const std::string family = finding.rule ? finding.rule->family : "";
        const bool training_scale =
            finding.rule && finding.rule->effort >= thresholds.training_scale_min_effort &&
            (std::find(thresholds.training_scale_families.begin(), thresholds.training_scale_families.end(),
                       family) != thresholds.training_scale_families.end() ||
             std::find(thresholds.training_scale_rules.begin(), thresholds.training_scale_rules.end(),
                       finding.rule_id) != thresholds.training_scale_rules.end());
        if (!is_blocker(finding, thresholds) && !training_scale)
          continue;
        EntryBlocker &blocker = by_rule[finding.rule_id];
        if (blocker.count++ == 0) {
          blocker.rule_id = finding.rule_id;
          blocker.name = finding.name;
          blocker.path = finding.path;
          blocker.line = finding.span.line;
        }
      }
    }
    for (auto &[rule, blocker] : by_rule)
      judged.blockers.push_back(std::move(blocker));
    std::stable_sort(judged.blockers.begin(), judged.blockers.end(),
                     [](const EntryBlocker &a, const EntryBlocker &b) { return a.count > b.count; });
    if (judged.blockers.size() > 3)
      judged.blockers.resize(3);
    judged.hours = entry_hours(effort, paths);
    if (!judged.blockers.empty())
      judged.mac = "needs-cuda";
    else if (judged.open_findings > 0)
      judged.mac = "runs-after-fixes";
    else if (optional_cuda)
      judged.mac = "optional-cuda-path";
    else
      judged.mac = "runs-as-is";
    result.push_back(std::move(judged));
  }
  return result;
}

} // namespace mpsaudit
