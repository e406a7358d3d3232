#include "assess/entry_verdict.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace mpsaudit {

namespace {

// What one file contributes to every entry that runs it, computed once.
struct FileSummary {
  int open_findings = 0;
  bool optional_cuda = false;
  std::vector<EntryBlocker> blockers; // one per rule, in the file
};

std::vector<FileSummary> summarise_files(const ScanResult &scan, const DecisionThresholds &thresholds) {
  std::unordered_map<std::string, std::size_t> file_index;
  for (std::size_t i = 0; i < scan.project_files.size(); ++i)
    file_index.emplace(scan.project_files[i].path, i);
  std::vector<FileSummary> summaries(scan.project_files.size());
  for (const Finding &finding : scan.findings) {
    const auto found = file_index.find(finding.path);
    if (found == file_index.end() || finding.suppressed)
      continue;
    FileSummary &summary = summaries[found->second];
    if (finding.guard != Guard::None && finding.rule && finding.rule->effort >= thresholds.blocker_min_effort)
      summary.optional_cuda = true;
    if (!is_open_finding(finding))
      continue;
    ++summary.open_findings;
    // Training at scale (multi-GPU, CUDA-only speed libraries) on the
    // entry's default path stops it on a Mac as surely as a blocker.
    if (!is_blocker(finding, thresholds) && !is_training_scale(finding, thresholds))
      continue;
    auto blocker = std::find_if(summary.blockers.begin(), summary.blockers.end(),
                                [&](const EntryBlocker &known) { return known.rule_id == finding.rule_id; });
    if (blocker == summary.blockers.end()) {
      summary.blockers.push_back({finding.rule_id, finding.name, finding.path, finding.span.line, 0});
      blocker = summary.blockers.end() - 1;
    }
    ++blocker->count;
  }
  return summaries;
}

} // namespace

std::vector<HourRange> file_hours(const EffortEstimate &effort, const std::vector<ProjectFile> &files) {
  std::unordered_map<std::string, std::size_t> file_index;
  for (std::size_t i = 0; i < files.size(); ++i)
    file_index.emplace(files[i].path, i);
  std::vector<HourRange> hours(files.size());
  for (const EffortItem &item : effort.items)
    for (const FileShare &share : item.files)
      if (const auto found = file_index.find(share.path); found != file_index.end())
        hours[found->second] += share.hours;
  return hours;
}

std::vector<EntryAssessment> judge_entry_points(const ScanResult &scan,
                                                const std::vector<EntryPoint> &entries,
                                                const Reachability &reach, const EffortEstimate &effort,
                                                const DecisionThresholds &thresholds) {
  // Each file is summarised once, so an entry costs the size of its closure.
  const std::vector<FileSummary> summaries = summarise_files(scan, thresholds);
  const std::vector<HourRange> hours = file_hours(effort, scan.project_files);
  std::vector<EntryAssessment> result;
  result.reserve(entries.size());
  for (std::size_t e = 0; e < entries.size(); ++e) {
    EntryAssessment judged;
    judged.entry = entries[e];
    judged.traced = e < reach.traced_entries && e < reach.runs.size() && !reach.runs[e].empty();
    if (!judged.traced) {
      judged.mac = MacStatus::NotTraced;
      result.push_back(std::move(judged));
      continue;
    }
    const std::vector<std::uint32_t> &runs = reach.runs[e];
    judged.files = static_cast<int>(runs.size());
    std::map<std::string, EntryBlocker> by_rule;
    bool optional_cuda = false;
    for (const std::uint32_t file : runs) {
      const FileSummary &summary = summaries[file];
      judged.hours += hours[file];
      judged.open_findings += summary.open_findings;
      optional_cuda = optional_cuda || summary.optional_cuda;
      for (const EntryBlocker &blocker : summary.blockers) {
        EntryBlocker &total = by_rule[blocker.rule_id];
        if (total.count == 0) {
          total = blocker;
          total.count = 0;
        }
        total.count += blocker.count;
      }
    }
    for (auto &[rule, blocker] : by_rule)
      judged.blockers.push_back(std::move(blocker));
    std::stable_sort(judged.blockers.begin(), judged.blockers.end(),
                     [](const EntryBlocker &a, const EntryBlocker &b) { return a.count > b.count; });
    if (judged.blockers.size() > 3)
      judged.blockers.resize(3);
    if (!judged.blockers.empty())
      judged.mac = MacStatus::NeedsCuda;
    else if (judged.open_findings > 0)
      judged.mac = MacStatus::RunsAfterFixes;
    else if (optional_cuda)
      judged.mac = MacStatus::OptionalCudaPath;
    else
      judged.mac = MacStatus::RunsAsIs;
    result.push_back(std::move(judged));
  }
  return result;
}

} // namespace mpsaudit
