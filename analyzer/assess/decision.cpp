#include "assess/decision.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "assess/entry_verdict.h"
#include "assess/option_gating.h"
#include "assess/reachability.h"
#include "assess/reason_groups.h"
#include "core/free_memory.h"
#include "core/text.h"

namespace mpsaudit {

bool about_cuda(const Rule *rule) {
  return !rule || rule->cuda_only;
}

void take_training_scale(const RuleCatalog &catalog, DecisionThresholds &thresholds) {
  thresholds.training_scale_families.clear();
  thresholds.training_scale_rules.clear();
  for (const RuleFamily &family : catalog.families())
    if (family.training_scale)
      thresholds.training_scale_families.push_back(family.name);
  for (const Rule &rule : catalog.rules())
    if (rule.training_scale && !is_one_of(rule.family, thresholds.training_scale_families))
      thresholds.training_scale_rules.push_back(rule.id);
}
namespace {

int rank(Effort effort) {
  return static_cast<int>(effort);
}

bool contains(const std::vector<Role> &list, Role value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Where a factor is, as a sentence names it: from the current directory.
std::string location(const ScanResult &scan, const DecisionFactor &factor) {
  return path_for_display(scan, factor_location(factor));
}

// "CUDA kernel `roi_align` in csrc/roi.cu": a kernel family's factor, as
// its reasons and what would change it name it.
std::string kernel_subject(const ScanResult &scan, const DecisionFactor &factor) {
  return "CUDA kernel `" + factor.name + "` in " + path_for_display(scan, factor.path);
}

std::string quoted_name(const DecisionFactor &factor) {
  return "`" + (factor.name.empty() ? factor.rule_id : factor.name) + "`";
}

// Manifests and environment files: they name packages, they run nothing.
bool declares_dependencies(FileKind kind) {
  return kind == FileKind::Requirements || kind == FileKind::Pyproject || kind == FileKind::SetupCfg ||
         kind == FileKind::CondaEnv;
}

// A manifest line that is not about CUDA (a torch pin older than the MPS
// back end) is one fix for the whole environment, which the Mac side needs
// whatever Linux keeps: it is priced, but it is no reason for Linux GPUs. A
// CUDA-only package in a manifest still decides.
bool repository_wide_fix(const Finding &finding) {
  return declares_dependencies(finding.file_kind) && !about_cuda(finding.rule);
}

DecisionFactor finding_factor(const ScanResult &scan, std::size_t index, FactorKind kind, Outcome pushes_to,
                              Role role) {
  const Finding &finding = scan.findings[index];
  DecisionFactor factor;
  factor.kind = kind;
  factor.pushes_to = pushes_to;
  factor.finding_index = static_cast<long>(index);
  factor.rule_id = finding.rule_id;
  factor.path = finding.path;
  factor.line = finding.span.line;
  factor.name = sanitize_utf8(finding.name);
  factor.role = std::string(to_string(role));
  factor.replacement = finding.rule ? finding.rule->replacement : "";
  const std::string where = quoted_name(factor) + " (" + finding.rule_id + ") in " + location(scan, factor);
  if (!about_cuda(finding.rule) &&
      (factor.kind == FactorKind::CriticalBlocker || factor.kind == FactorKind::TrainingBlocker))
    factor.summary =
        where + " stops a Mac run (" + finding.message + ")" +
        (factor.kind == FactorKind::CriticalBlocker
             ? " on the model's critical path (" +
                   (finding.in_forward ? "inside forward()" : std::string(role_title(role)) + " code") + ")"
             : ", confined to " + std::string(role_title(role)) + " code");
  else if (factor.kind == FactorKind::CriticalBlocker)
    factor.summary = where + " is CUDA-only and sits on the model's critical path (" +
                     (finding.in_forward ? "inside forward()" : std::string(role_title(role)) + " code") +
                     ") with no fallback";
  else if (factor.kind == FactorKind::TrainingBlocker && declares_dependencies(finding.file_kind))
    factor.summary = where + " is a CUDA-only dependency that the Mac install must leave out";
  else if (factor.kind == FactorKind::TrainingBlocker)
    factor.summary = where + " is CUDA-only, confined to " + std::string(role_title(role)) + " code";
  else if (factor.kind == FactorKind::EntryBlocker) // decide() names the Mac-capable entry
    factor.summary = where + " is CUDA-only in an entry point that Linux keeps: ";
  else if (factor.kind == FactorKind::TrainingScale)
    factor.summary = where + " is training-at-scale machinery (multi-GPU or a CUDA-only speed library)";
  else if (factor.kind == FactorKind::FallbackItem)
    factor.summary = where + " is a large CUDA-only item that has a fallback (" +
                     std::string(to_string(finding.guard)) + "): the Mac runs the slower fallback";
  return factor;
}

// The strongest reason first (reason_strength); otherwise in the order found.
void lead_with_strongest(std::vector<DecisionFactor> &factors, const ScanResult &scan) {
  std::stable_sort(factors.begin(), factors.end(), [&](const DecisionFactor &a, const DecisionFactor &b) {
    return reason_strength(a, scan) > reason_strength(b, scan);
  });
}

// Roles from reachability: a file that only export, tooling or data-prep
// entry points run is tooling, whatever classes it defines; one that only
// evaluation or benchmark entries run is evaluation; one only tests run is
// a test, one only examples run an example. A file that only training
// entries run is training code when the repository has inference,
// evaluation or library entries that do not run it: the model those use
// does not need it. Overrides still win; without such entries a model that
// only train.py runs is still the model.
void roles_from_reachability(const ScanResult &scan, const std::vector<EntryPoint> &entries,
                             const Reachability &reach, std::vector<FileRole> &roles) {
  const std::vector<ProjectFile> &files = scan.project_files;
  bool serving_entries = false;
  for (std::size_t e = 0; e < entries.size() && e < reach.traced_entries; ++e)
    serving_entries = serving_entries || (entries[e].scope == EntryScope::Main &&
                                          (entries[e].purpose == EntryPurpose::Inference ||
                                           entries[e].purpose == EntryPurpose::Evaluation ||
                                           entries[e].purpose == EntryPurpose::Library));
  for (std::size_t i = 0; i < files.size() && i < roles.size(); ++i) {
    FileRole &role = roles[i];
    if (!role.reasons.empty() && starts_with(role.reasons.front(), "override: "))
      continue;
    const FileReach &record = reach.files[i];
    if (record.status == ReachStatus::TestOnly && role.role != Role::Tests) {
      role.role = Role::Tests;
      role.reasons = {"reached only from tests"};
      continue;
    }
    if (record.status == ReachStatus::ExampleOnly && role.role != Role::Docs) {
      role.role = Role::Docs;
      role.reasons = {"reached only from examples"};
      continue;
    }
    if (record.status != ReachStatus::Reached && record.status != ReachStatus::BenchmarkOnly)
      continue;
    if (record.entries.size() < record.entry_count || role.role == Role::Tests || role.role == Role::Docs)
      continue; // not every entry that runs it is listed: no claim
    std::optional<Role> common;
    std::string via;
    for (const std::uint32_t e : record.entries) {
      const EntryPoint &entry = entries[e];
      if (entry.scope != EntryScope::Main)
        continue;
      Role from = Role::Model; // marks "no demotion"
      switch (entry.purpose) {
      case EntryPurpose::Export:
      case EntryPurpose::Tooling:
      case EntryPurpose::DataPrep:
        from = Role::Tooling;
        break;
      case EntryPurpose::Evaluation:
      case EntryPurpose::Benchmark:
        from = Role::Evaluation;
        break;
      case EntryPurpose::Training:
        from = serving_entries ? Role::Training : Role::Model;
        break;
      default:
        break;
      }
      if (!common)
        common = from;
      else if (*common != from)
        common = Role::Model;
      if (via.empty())
        via = path_for_display(scan, entry.path) + " (" + std::string(to_string(entry.purpose)) + ")";
    }
    if (!common || *common == Role::Model || *common == role.role)
      continue;
    if (*common == Role::Training && role.role != Role::Model && role.role != Role::Inference)
      continue; // data and tooling code stay what they are

    role.role = *common;
    role.reasons = {"reached only from " + std::string(role_title(*common)) + " entry points, e.g. " + via};
  }
}

// Whether findings in a file may decide the verdict: not when only tests,
// examples, a container or an optional sub-project run it; tests decide too
// when the thresholds take the test role off the peripheral list.
bool file_may_decide(ReachStatus status, const DecisionThresholds &thresholds) {
  if (status == ReachStatus::TestOnly)
    return !contains(thresholds.peripheral_roles, Role::Tests);
  return may_decide(status);
}

// Files no Mac path needs: code behind an option the Mac need not choose or
// a fallback it takes, and sub-projects the main package never builds.
std::set<std::string> off_mac_path(const std::vector<ProjectFile> &files, const Reachability &reach) {
  std::set<std::string> paths;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (reach.files[i].status == ReachStatus::OptionOnly ||
        reach.files[i].status == ReachStatus::FallbackOnly ||
        reach.files[i].status == ReachStatus::OptionalSubProject)
      paths.insert(files[i].path);
  return paths;
}

// What the recommended path leaves out: what no Mac path needs, and the
// entry points Linux keeps beside Mac-capable ones of the same purpose.
std::set<std::string> off_recommended_path(const std::vector<ProjectFile> &files, const Reachability &reach,
                                           const std::map<std::string, std::string> &kept_on_linux) {
  std::set<std::string> paths = off_mac_path(files, reach);
  for (const auto &kept : kept_on_linux)
    paths.insert(kept.first);
  return paths;
}

std::set<std::string> non_deciding_files(const std::vector<ProjectFile> &files, const Reachability &reach,
                                         const DecisionThresholds &thresholds) {
  std::set<std::string> paths;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (!file_may_decide(reach.files[i].status, thresholds))
      paths.insert(files[i].path);
  return paths;
}

// Files that only CUDA-only main entry points run, where each of those
// entries stands beside a main entry of the same purpose that runs on a Mac
// (a multi-GPU sampler beside a single-process one): by path, the Mac-capable
// sibling, "sample.py (inference)". Such an entry is a second way to do a job
// the Mac already does. Linux keeps it; it never makes KEEP_LINUX_GPU.
// A file with an entry list cut short (kMaxEntriesPerFile) is left out.
std::map<std::string, std::string> files_of_entries_linux_keeps(const ScanResult &scan,
                                                                const std::vector<EntryPoint> &entries,
                                                                const Reachability &reach,
                                                                const std::vector<EntryAssessment> &judged) {
  const std::vector<ProjectFile> &files = scan.project_files;
  std::map<std::string, const EntryAssessment *> judged_by_path;
  for (const EntryAssessment &entry : judged)
    judged_by_path.emplace(entry.entry.path, &entry);
  // The first main entry of each purpose that runs on a Mac.
  std::map<EntryPurpose, const EntryAssessment *> mac_capable;
  for (const EntryAssessment &entry : judged)
    if (entry.entry.scope == EntryScope::Main && entry.traced && runs_on_a_mac(entry.mac) &&
        entry.entry.purpose != EntryPurpose::Library && entry.entry.purpose != EntryPurpose::Test)
      mac_capable.emplace(entry.entry.purpose, &entry);
  std::map<std::string, std::string> kept;
  if (mac_capable.empty())
    return kept;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const FileReach &file = reach.files[i];
    if (file.entries.empty() || file.entries.size() != file.entry_count)
      continue;
    const EntryAssessment *sibling = nullptr;
    bool only_replaceable = true, any_main = false;
    for (const std::uint32_t e : file.entries) {
      if (entries[e].scope != EntryScope::Main)
        continue;
      any_main = true;
      const auto found = judged_by_path.find(entries[e].path);
      const auto beside = mac_capable.find(entries[e].purpose);
      if (found == judged_by_path.end() || found->second->mac != MacStatus::NeedsCuda ||
          beside == mac_capable.end()) {
        only_replaceable = false;
        break;
      }
      if (!sibling)
        sibling = beside->second;
    }
    if (any_main && only_replaceable && sibling)
      kept.emplace(files[i].path, path_for_display(scan, sibling->entry.path) + " (" +
                                      std::string(to_string(sibling->entry.purpose)) + ")");
  }
  return kept;
}

void record_reachability(const ScanResult &scan, const std::vector<EntryPoint> &entries,
                         const Reachability &reach, const DecisionThresholds &thresholds,
                         std::map<std::string, FileReachability> &out) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < scan.project_files.size(); ++i)
    index.emplace(scan.project_files[i].path, i);
  for (const Finding &finding : scan.findings) {
    if (out.count(finding.path))
      continue;
    FileReachability &record = out[finding.path];
    const auto found = index.find(finding.path);
    if (found == index.end()) {
      record.status = std::string(to_string(ReachStatus::NotCode));
      continue;
    }
    const FileReach &file = reach.files[found->second];
    record.status = std::string(to_string(file.status));
    record.may_decide = file_may_decide(file.status, thresholds);
    for (const std::uint32_t e : file.entries)
      record.entries.push_back(entries[e].path);
    for (const std::uint32_t step : file.chain)
      record.chain.push_back(scan.project_files[step].path);
  }
}

void name_entries(const ScanResult &scan, DecisionFactor &factor,
                  const std::map<std::string, FileReachability> &reachability) {
  const auto found = reachability.find(factor.path);
  if (found == reachability.end() || found->second.entries.empty())
    return;
  factor.entries = found->second.entries;
  if (factor.entries.size() > 3)
    factor.entries.resize(3);
  std::string named;
  for (std::size_t i = 0; i < factor.entries.size(); ++i)
    named += (i ? ", " : "") + path_for_display(scan, factor.entries[i]);
  factor.summary += "; run by " + named;
}

// "Entry points: infer.py (inference) runs as is; train.py (training) needs
// CUDA (MPS404)." for the main entries, at most five named.
std::string entry_points_reason(const ScanResult &scan, const std::vector<EntryAssessment> &entries) {
  std::vector<std::string> parts;
  std::size_t main_entries = 0;
  for (const EntryAssessment &judged : entries) {
    if (judged.entry.scope != EntryScope::Main || judged.mac == MacStatus::NotTraced)
      continue;
    ++main_entries;
    if (parts.size() == 5)
      continue;
    const std::string mac = judged.mac == MacStatus::OptionalCudaPath
                                ? std::string("has an optional CUDA path")
                                : std::string(table_text(judged.mac));
    std::string part = path_for_display(scan, judged.entry.path) + " (" +
                       std::string(to_string(judged.entry.purpose)) + ") " + mac;
    if (!judged.blockers.empty())
      part += " (" + judged.blockers.front().rule_id + ")";
    parts.push_back(std::move(part));
  }
  if (parts.empty())
    return {};
  std::string text = "Entry points: ";
  for (std::size_t i = 0; i < parts.size(); ++i)
    text += (i ? "; " : "") + parts[i];
  if (main_entries > parts.size())
    text += "; and " + std::to_string(main_entries - parts.size()) + " more";
  return text + ".";
}

// "Even the low estimate (15 person-months) exceeds 3 person-months, beyond
// what a port is worth": one figure of the estimate against its threshold.
DecisionFactor effort_factor(FactorKind kind, Outcome pushes_to, std::string_view figure, double hours,
                             double threshold, std::string_view consequence) {
  DecisionFactor factor;
  factor.kind = kind;
  factor.pushes_to = pushes_to;
  factor.summary = std::string(figure) + " (" + format_hours({hours, hours}) + ") exceeds " +
                   format_hours({threshold, threshold}) + ", " + std::string(consequence);
  return factor;
}

// What a large CUDA-only item with a working fallback asks for. In training
// code, Linux GPUs keep the fast path for training at scale (DUAL); anywhere
// else the Mac runs the fallback and the port may wait (ADAPT): a Triton
// speed-up or a fused kernel with a reference path is no reason for Linux.
Outcome fallback_outcome(Role role) {
  return role == Role::Training ? Outcome::Dual : Outcome::Adapt;
}

std::string join_limited(const std::vector<std::string> &parts, std::size_t limit) {
  std::string text;
  for (std::size_t i = 0; i < parts.size() && i < limit; ++i)
    text += (i ? (i + 1 == std::min(parts.size(), limit) && parts.size() <= limit ? " and " : ", ") : "") +
            parts[i];
  if (parts.size() > limit)
    text += " and " + std::to_string(parts.size() - limit) + " more";
  return text;
}

// "replace flash_attn in model/attn.py:41 with scaled_dot_product_attention"
std::string fix_phrase(const ScanResult &scan, const DecisionFactor &factor) {
  std::string verb = factor.kind == FactorKind::TrainingScale
                         ? "make " + quoted_name(factor) + " in " + location(scan, factor) +
                               " optional (single device on the Mac)"
                         : "replace " + quoted_name(factor) + " in " + location(scan, factor);
  if (factor.kind != FactorKind::TrainingScale && !factor.replacement.empty()) {
    // "with scaled_dot_product_attention" reads well for an API; a
    // sentence-like replacement goes in parentheses.
    const char first = factor.replacement.front();
    if (std::islower(static_cast<unsigned char>(first)) || starts_with(factor.replacement, "torch."))
      verb += " with " + factor.replacement;
    else
      verb += " (" + factor.replacement + ")";
  }
  return verb;
}

std::vector<AcceptanceLevel> acceptance_levels(const ScanResult &scan, const ProbeVerdicts &probe,
                                               const EffortEstimate &effort) {
  std::vector<AcceptanceLevel> levels(3);
  const std::string environment = probe.present
                                      ? probe.environment.os + " " + probe.environment.arch +
                                            (probe.environment.libtorch_version.empty()
                                                 ? std::string()
                                                 : ", LibTorch " + probe.environment.libtorch_version)
                                      : std::string();
  AcceptanceLevel &available = levels[0];
  available.level = 1;
  available.title = "MPS is available";
  available.how_to_confirm = "run mpsaudit-probe on the target Mac (torch.backends.mps.is_available())";
  if (probe.present && probe.environment.mps_available) {
    available.status = AcceptanceStatus::Confirmed;
    available.evidence = "probe on " + environment + ": MPS built and available";
  } else if (probe.present) {
    available.status = AcceptanceStatus::NotYetConfirmed;
    available.evidence = "the probe ran on " + environment + ", where MPS is " +
                         (probe.environment.mps_built ? "built but not available" : "not built") +
                         "; run it on the Mac";
  } else {
    available.status = AcceptanceStatus::NotYetConfirmed;
    available.evidence = "no probe ran";
  }

  AcceptanceLevel &no_fallback = levels[1];
  no_fallback.level = 2;
  no_fallback.title = "The model runs on MPS without CPU fallbacks";
  no_fallback.how_to_confirm = "fix the open findings, then run the model once with "
                               "PYTORCH_ENABLE_MPS_FALLBACK unset (or run mpsaudit-probe "
                               "on the Mac)";
  std::vector<std::string> falling_back;
  int live_ok = 0, live_failed = 0;
  for (const auto &op : probe.operators) {
    if (op.falls_back())
      falling_back.push_back(op.name);
    live_ok += op.live_ok;
    live_failed += op.live_failed;
  }
  const std::string open = counted(effort.open_findings, "open finding") + " still stand in the way";
  if (!falling_back.empty()) {
    no_fallback.status = AcceptanceStatus::Refuted;
    no_fallback.evidence =
        counted(falling_back.size(), "operator") + " the code uses have no MPS kernel (" +
        (probe.coverage_table.empty() ? "probe" : "coverage table " + probe.coverage_table) +
        "): " + join_limited(falling_back, 5);
  } else if (probe.present && probe.target == "mps" && live_ok > 0 && live_failed == 0) {
    no_fallback.status = effort.open_findings ? AcceptanceStatus::Likely : AcceptanceStatus::Confirmed;
    no_fallback.evidence = std::to_string(live_ok) + " operators ran live on MPS and matched the CPU" +
                           (effort.open_findings ? "; " + open : "");
  } else if (probe.present && !probe.operators.empty()) {
    no_fallback.status = AcceptanceStatus::Likely;
    no_fallback.evidence = "every operator the code uses has an MPS kernel in " +
                           (probe.coverage_table.empty() ? std::string("the probe's table")
                                                         : "PyTorch " + probe.coverage_table) +
                           " (static coverage, not a live run)" + (effort.open_findings ? "; " + open : "");
  } else {
    no_fallback.status = AcceptanceStatus::NotYetConfirmed;
    no_fallback.evidence = "no probe ran" + (effort.open_findings ? "; " + open : "");
  }

  AcceptanceLevel &reproducible = levels[2];
  reproducible.level = 3;
  reproducible.title = "Results are reproducible: seeds, checkpoints and numerics";
  reproducible.how_to_confirm = "seed with torch.manual_seed (covers MPS), load checkpoints with "
                                "map_location, and compare a short run on MPS "
                                "against the CUDA or CPU reference";
  int seed_sites = 0, float64_sites = 0, load_sites = 0;
  for (const Finding &finding : scan.findings) {
    if (!is_open_finding(finding))
      continue;
    const AcceptanceCheck check = finding.rule ? finding.rule->acceptance : AcceptanceCheck::None;
    seed_sites += check == AcceptanceCheck::Seed;
    load_sites += check == AcceptanceCheck::Load;
    float64_sites += check == AcceptanceCheck::Float64;
  }
  std::vector<std::string> static_notes;
  if (seed_sites)
    static_notes.push_back(counted(static_cast<std::size_t>(seed_sites), "CUDA-only seed/RNG call"));
  if (load_sites)
    static_notes.push_back(counted(static_cast<std::size_t>(load_sites), "checkpoint load") +
                           " without map_location");
  if (float64_sites)
    static_notes.push_back(counted(static_cast<std::size_t>(float64_sites), "float64 use") +
                           " that raise on MPS until cast to float32");
  double worst = 0;
  int measured = 0;
  for (const auto &downcast : probe.downcasts)
    if (downcast.outcome == "measured") {
      ++measured;
      worst = std::max(worst, downcast.max_relative_error);
    }
  const std::string notes = static_notes.empty() ? "no seed, checkpoint or float64 findings"
                                                 : join_limited(static_notes, 3) + " to fix first";
  if (measured && worst > 1e-2) {
    reproducible.status = AcceptanceStatus::Refuted;
    reproducible.evidence = "float32 differs from float64 by up to " + std::to_string(worst) +
                            " (relative) in the probe's CPU reference; " + notes;
  } else if (measured) {
    reproducible.status = AcceptanceStatus::Likely;
    reproducible.evidence = std::to_string(measured) +
                            " float64 operators measured in float32 on the CPU reference, " +
                            "worst relative error " + std::to_string(worst) + "; " + notes;
  } else {
    reproducible.status = AcceptanceStatus::NotYetConfirmed;
    reproducible.evidence =
        std::string(probe.present ? "the probe measured no float64 downcasts" : "no probe ran") + "; " +
        notes;
  }
  return levels;
}

// The items DUAL leaves on Linux wherever they sit: those of the
// training-scale families (multi-GPU machinery: process groups, DDP, FSDP).
// A training-scale library named by rule (deepspeed, bitsandbytes) is priced
// where it is used instead: its shares in training code are Linux's already,
// and one in inference code is work the Mac side needs.
std::vector<bool> linux_only_items(const EffortEstimate &effort, const DecisionThresholds &thresholds) {
  std::vector<bool> linux_only;
  for (const EffortItem &item : effort.items)
    linux_only.push_back(is_one_of(item.family, thresholds.training_scale_families));
  return linux_only;
}

// Whether the recommended path is the whole estimate (the reasons then give
// one figure, not two).
bool recommended_is_everything(const EffortEstimate &effort, const RecommendedPlan &recommended) {
  return format_hours(recommended.hours) == format_hours(effort.total);
}

// What `fix` removes, of the estimate the reason before it leads with: the
// recommended path (as the summary's `Fix:` line says), else the native
// port, named, when only the port has something to edit.
std::string fix_credit_reason(const EffortEstimate &effort, const RecommendedPlan &recommended) {
  if (recommended.path == RecommendedPath::KeepLinux)
    return {}; // nothing of keeping Linux is a code edit
  auto has_sites = [](const FixCredit &fix) { return fix.safe_sites + fix.unsafe_sites > 0; };
  if (recommended_is_everything(effort, recommended))
    return has_sites(effort.fix) ? fix_credit_sentence(effort.fix) : std::string();
  if (has_sites(recommended.fix))
    return fix_credit_sentence(recommended.fix);
  return has_sites(effort.fix) ? fix_credit_sentence(effort.fix, "the native port") : std::string();
}

std::vector<ActionStep> action_plan(const EffortEstimate &effort, const RecommendedPlan &recommended) {
  std::vector<ActionStep> plan;
  std::vector<ActionStep> blockers, deferred;
  for (const EffortItem &item : effort.items) {
    ActionStep step;
    step.title = item.title;
    step.effort = std::string(to_string(item.effort));
    step.count = item.sites;
    step.files = static_cast<int>(item.files.size());
    step.hours = item.hours;
    step.fix = item.fix;
    step.detail = item.replacement.empty() ? item.basis : item.replacement;
    if (!item.rule_id.empty())
      step.rule_ids.push_back(item.rule_id);
    if (!item.estimable) {
      step.detail =
          "no MPS path; " + (item.replacement.empty() ? std::string("keep it on Linux") : item.replacement);
      blockers.push_back(std::move(step));
      continue;
    }
    if (item.kind == EffortItemKind::OneOff)
      step.detail = item.basis;
    plan.push_back(step);
    if (item.deferred.high > 0) {
      ActionStep later = step;
      later.title = "Later: " + item.title + " to Metal";
      later.hours = item.deferred;
      later.detail = item.replacement;
      later.deferred = true;
      deferred.push_back(std::move(later));
    }
  }
  for (auto &step : blockers)
    plan.push_back(std::move(step));
  for (auto &step : deferred)
    plan.push_back(std::move(step));
  if (!recommended.steps.empty()) {
    // The recommended path's own steps lead; the port follows, folded.
    std::vector<ActionStep> path_plan;
    for (const PathStep &own : recommended.steps) {
      ActionStep step;
      step.title = own.title;
      step.effort = std::string(to_string(Effort::Small));
      step.hours = own.hours;
      step.detail = own.detail;
      path_plan.push_back(std::move(step));
    }
    for (auto &step : plan) {
      step.if_port_anyway = true;
      path_plan.push_back(std::move(step));
    }
    plan = std::move(path_plan);
  }
  int order = 0;
  for (auto &step : plan)
    step.order = ++order;
  return plan;
}

} // namespace

RecommendedPath path_for(Outcome outcome) {
  switch (outcome) {
  case Outcome::Adapt:
    break;
  case Outcome::Dual:
    return RecommendedPath::MacEntryPoints;
  case Outcome::KeepLinuxGpu:
    return RecommendedPath::KeepLinux;
  }
  return RecommendedPath::Port;
}

namespace {

// Where decide() puts a finding's factor: the whole factor, or only the
// outcome it pushes to when the caller asks for the outcome alone.
struct FactorSink {
  const ScanResult &scan;
  VerdictDetail detail;
  Verdict &verdict;
  void add(std::size_t index, FactorKind kind, Outcome pushes_to, Role role) {
    if (detail == VerdictDetail::OutcomeOnly)
      verdict.outcome = std::max(verdict.outcome, pushes_to);
    else
      verdict.factors.push_back(finding_factor(scan, index, kind, pushes_to, role));
  }
};

Role role_in(const std::map<std::string, Role> &role_of, const std::string &path) {
  const auto it = role_of.find(path);
  return it == role_of.end() ? Role::Tooling : it->second;
}

// Files whose kernels the effort model prices: a guarded finding there is
// part of a kernel's port, and the kernel's own fallback item says so once
// per kernel.
std::set<std::string> kernel_item_files(const EffortEstimate &effort) {
  std::set<std::string> files;
  for (const EffortItem &item : effort.items)
    if (item.kind == EffortItemKind::Kernel)
      for (const auto &share : item.files)
        files.insert(share.path);
  return files;
}

// The factor of one finding that may decide (criteria 1-4 of
// docs/decision.md): a blocker, training at scale, or a large item with a
// fallback.
void weigh_finding(const VerdictInput &input, std::size_t index, const std::set<std::string> &kernel_files,
                   FactorSink &sink) {
  const Finding &finding = input.scan.findings[index];
  const DecisionThresholds &thresholds = input.thresholds;
  const Role role = role_in(input.role_of, finding.path);
  // Peripheral roles, and files only tests, examples, a container or an
  // optional sub-project run (assess/reachability.h), never decide.
  if (finding.suppressed || contains(thresholds.peripheral_roles, role) ||
      input.non_deciding.count(finding.path))
    return;
  const Effort effort_class = finding.rule ? finding.rule->effort : Effort::Small;
  if (finding.guard != Guard::None) {
    // An option the Mac need not choose (`--engine trt`) has nothing to
    // fall back from: it is no reason for Linux GPUs.
    if (finding.guard != Guard::OptionalPath &&
        rank(effort_class) >= rank(thresholds.fallback_item_min_effort) && !kernel_files.count(finding.path))
      sink.add(index, FactorKind::FallbackItem, fallback_outcome(role), role);
    return;
  }
  if (!is_open_finding(finding) || repository_wide_fix(finding))
    return;
  // A manifest only names a package: the code that imports it is what runs
  // on the critical path, and weighs there. Whatever its file name says
  // (serve_requirements.txt), the manifest line is a package the Mac install
  // leaves out.
  const bool critical = !declares_dependencies(finding.file_kind) &&
                        (finding.in_forward || contains(thresholds.critical_roles, role));
  if (is_blocker(finding, thresholds)) {
    const auto sibling = input.kept_on_linux.find(finding.path);
    if (critical && sibling != input.kept_on_linux.end()) {
      sink.add(index, FactorKind::EntryBlocker, Outcome::Dual, role);
      if (sink.detail == VerdictDetail::Factors)
        sink.verdict.factors.back().summary += sibling->second + " does the same job on a Mac";
    } else if (critical) {
      sink.add(index, FactorKind::CriticalBlocker, Outcome::KeepLinuxGpu, role);
    } else {
      sink.add(index, FactorKind::TrainingBlocker, Outcome::Dual, role);
    }
  } else if (is_training_scale(finding, thresholds)) {
    sink.add(index, FactorKind::TrainingScale, Outcome::Dual, role);
  }
}

// CUDA kernels with a CPU/Python fallback: the Mac runs the fallback.
void weigh_kernel_fallbacks(const VerdictInput &input, Verdict &verdict) {
  for (const EffortItem &item : input.effort.items) {
    if (item.kind != EffortItemKind::Kernel || item.deferred.high <= 0 ||
        (!item.files.empty() && input.non_deciding.count(item.files.front().path)))
      continue;
    DecisionFactor factor;
    factor.kind = FactorKind::FallbackItem;
    factor.path = item.files.empty() ? "" : item.files.front().path;
    factor.pushes_to = fallback_outcome(role_in(input.role_of, factor.path));
    factor.name = item.key.substr(item.key.rfind(':') + 1);
    factor.summary = kernel_subject(input.scan, factor) +
                     " has a CPU/Python fallback: the Mac runs the fallback, " +
                     (factor.pushes_to == Outcome::Dual ? "Linux keeps the fast kernel for training"
                                                        : "its Metal port can wait");
    verdict.factors.push_back(std::move(factor));
  }
}

// The effort criteria weigh what may decide: the shares of files only
// tests, examples, a container or an optional sub-project run are left out
// (the reported estimate still counts them).
void weigh_effort(const VerdictInput &input, Verdict &verdict) {
  const DecisionThresholds &thresholds = input.thresholds;
  HourRange deciding_total = input.effort.total;
  for (const EffortItem &item : input.effort.items)
    for (const FileShare &share : item.files)
      if (input.non_deciding.count(share.path)) {
        deciding_total.low -= std::min(deciding_total.low, share.hours.low);
        deciding_total.high -= std::min(deciding_total.high, share.hours.high);
      }
  verdict.deciding_effort = deciding_total;
  if (deciding_total.low > thresholds.keep_min_hours)
    verdict.factors.push_back(effort_factor(FactorKind::EffortKeep, Outcome::KeepLinuxGpu,
                                            "Even the low estimate", deciding_total.low,
                                            thresholds.keep_min_hours, "beyond what a port is worth"));
  else if (deciding_total.high > thresholds.adapt_max_hours)
    verdict.factors.push_back(effort_factor(FactorKind::EffortDual, Outcome::Dual, "The high estimate",
                                            deciding_total.high, thresholds.adapt_max_hours,
                                            "too much to make the Mac the native platform at once"));
}

// A model larger than any Mac: for inference KEEP_LINUX_GPU, for training DUAL.
void weigh_memory(const VerdictInput &input, Verdict &verdict) {
  const MemoryFit &memory = input.memory;
  if (!input.thresholds.memory_decides || !memory.has_model_size)
    return;
  DecisionFactor factor;
  factor.path = memory.basis.path;
  if (memory.inference_fits_no_mac()) {
    factor.kind = FactorKind::MemoryInference;
    factor.pushes_to = Outcome::KeepLinuxGpu;
    factor.summary = "The model needs " + format_gib(memory.inference_bytes) +
                     " for inference alone, more than any Apple-Silicon Mac offers (" + memory.summary + ")";
  } else if (memory.training_fits_no_mac()) {
    factor.kind = FactorKind::MemoryTraining;
    factor.pushes_to = Outcome::Dual;
    factor.summary = "Training needs at least " + format_gib(memory.training_bytes) +
                     ", more than any Mac offers; inference fits (" + memory.summary + ")";
  } else {
    return;
  }
  verdict.factors.push_back(std::move(factor));
}

} // namespace

Verdict decide(const VerdictInput &input, VerdictDetail detail) {
  Verdict verdict;
  FactorSink sink{input.scan, detail, verdict};
  const std::set<std::string> kernel_files = kernel_item_files(input.effort);
  for (std::size_t index = 0; index < input.scan.findings.size(); ++index)
    if (index >= input.excluded.size() || !input.excluded[index])
      weigh_finding(input, index, kernel_files, sink);
  weigh_kernel_fallbacks(input, verdict);
  weigh_effort(input, verdict);
  weigh_memory(input, verdict);
  for (const auto &factor : verdict.factors)
    verdict.outcome = std::max(verdict.outcome, factor.pushes_to);
  return verdict;
}

std::string ActionStep::extent() const {
  if (count <= 0)
    return {};
  const std::string sites = counted(static_cast<std::size_t>(count), "site");
  return files > 0 ? sites + " in " + counted(static_cast<std::size_t>(files), "file") : sites;
}

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
  case Outcome::Adapt:
    return "ADAPT";
  case Outcome::Dual:
    return "DUAL";
  case Outcome::KeepLinuxGpu:
    return "KEEP_LINUX_GPU";
  }
  return "ADAPT";
}

std::string factor_location(const DecisionFactor &factor) {
  return factor.path + (factor.line ? ":" + std::to_string(factor.line) : "");
}

std::string_view outcome_meaning(Outcome outcome) {
  switch (outcome) {
  case Outcome::Adapt:
    return "Port it: the Mac can become a native platform for this code.";
  case Outcome::Dual:
    return "Keep both: Linux GPUs train at scale; the Mac prototypes, runs inference and regression tests.";
  case Outcome::KeepLinuxGpu:
    return "Stay on Linux GPUs: stop the MPS migration unless the deciding items change.";
  }
  return "";
}

// The code that needs CUDA before the manifest line that installs it; then
// by kind: a critical-path blocker, training at scale (what keeps training
// on Linux), CUDA-only code confined to one part, and last code whose
// fallback runs; then the largest porting work (a kernel before the header
// it includes).
std::tuple<bool, int, int> reason_strength(const DecisionFactor &factor, const ScanResult &scan) {
  const Finding *finding =
      factor.finding_index < 0 ? nullptr : &scan.findings[static_cast<std::size_t>(factor.finding_index)];
  const bool code = !finding || !declares_dependencies(finding->file_kind);
  const int kind = factor.kind == FactorKind::CriticalBlocker ? 3
                   : factor.kind == FactorKind::TrainingScale ? 2
                   : factor.kind == FactorKind::FallbackItem  ? 0
                                                              : 1;
  const int effort = finding && finding->rule ? static_cast<int>(finding->rule->effort) : 0;
  return {code, kind, effort};
}

bool is_training_scale(const Finding &finding, const DecisionThresholds &thresholds) {
  if (!finding.rule || rank(finding.rule->effort) < rank(thresholds.training_scale_min_effort))
    return false;
  return is_one_of(finding.rule->family, thresholds.training_scale_families) ||
         is_one_of(finding.rule_id, thresholds.training_scale_rules);
}

bool is_blocker(const Finding &finding, const DecisionThresholds &thresholds) {
  if (!is_open_finding(finding) || !finding.rule)
    return false;
  if (finding.rule->effort == Effort::Blocker)
    return true;
  return finding.severity >= static_cast<int>(Severity::Error) &&
         rank(finding.rule->effort) >= rank(thresholds.blocker_min_effort);
}

void demote_errors_off_entry_paths(std::vector<Finding> &findings, const Assessment &assessment) {
  for (Finding &finding : findings) {
    if (finding.severity != static_cast<int>(Severity::Error))
      continue;
    const auto found = assessment.reachability.find(finding.path);
    if (found == assessment.reachability.end() || found->second.may_decide)
      continue;
    finding.severity = static_cast<int>(Severity::Warning);
    finding.message = finding.message + " [" + found->second.status + ": not on a Mac entry path]";
  }
}

// The effort line of the reasons: the recommended path's figure first (the
// one the summary leads with), then all the distinct fixes where they differ.
std::string effort_reason(const EffortEstimate &effort, const RecommendedPlan &recommended) {
  const std::string all =
      counted(effort.items.size(), "distinct fix", "distinct fixes") + " for " +
      counted(effort.open_findings, "open finding") +
      (effort.not_estimated ? ", plus " + counted(effort.not_estimated, "blocker") + " not estimated"
                            : std::string());
  if (recommended.path == RecommendedPath::KeepLinux)
    return "Estimated effort " + format_hours(recommended.hours) + " to " + recommended.goal +
           "; porting anyway would take " + format_hours(effort.native_port) + " for all " + all + ".";
  if (recommended_is_everything(effort, recommended))
    return "Estimated effort " + format_hours(effort.total) + " over " + all + ".";
  return "Estimated effort " + format_hours(recommended.hours) + " on the recommended path; " +
         format_hours(effort.total) + " for all " + all + ".";
}

namespace {

struct TracedEntryPoints {
  std::vector<EntryPoint> entries;
  Reachability reach;
};

// The entry points and what each runs. The module index and the import
// graph serve only this, and are freed before the effort is estimated:
// on a large tree they hold a few hundred bytes a file.
TracedEntryPoints trace_entry_points(const std::vector<ProjectFile> &files, const AssessPolicy &policy) {
  const ModuleIndex modules(files);
  const auto graph = build_module_graph(files, modules);
  TracedEntryPoints traced;
  traced.entries = discover_entry_points(files, modules, graph, policy);
  traced.reach = compute_reachability(files, traced.entries, graph, policy);
  apply_option_gating(find_option_gated_files(files, modules, traced.reach, policy.not_the_op), traced.reach);
  // What main entries reach only through a fallback the Mac takes.
  const auto mac_graph = build_module_graph(files, modules, ImportEdges::MacPath);
  apply_mac_path(compute_reachability(files, traced.entries, mac_graph, policy), traced.reach);
  return traced;
}

} // namespace

namespace {

const AssessPolicy &policy_of(const AssessmentInput &input) {
  return input.policy ? *input.policy : bundled_assess_policy();
}

// What would change the verdict: every deciding finding resolved, the
// estimate made and the verdict decided again without them
// (Decision::if_resolved, and the first of what_would_change).
void resolve_deciding_findings(const AssessmentInput &input, const VerdictInput &as_decided,
                               const std::vector<FileRole> &roles, const std::vector<std::string> &accepted,
                               Decision &decision) {
  const ScanResult &scan = as_decided.scan;
  std::vector<bool> excluded(scan.findings.size(), false);
  std::vector<const DecisionFactor *> finding_factors;
  for (const auto &factor : decision.deciding)
    if (factor.finding_index >= 0) {
      excluded[static_cast<std::size_t>(factor.finding_index)] = true;
      finding_factors.push_back(&factor);
    }
  if (!finding_factors.empty()) {
    const EffortEstimate effort_after =
        estimate_effort(scan, roles, input.model, excluded, input.fix_target_torch, input.fixes,
                        EstimateDetail::WithoutPlaces, policy_of(input), &accepted);
    const Verdict after = decide({scan, as_decided.role_of, as_decided.non_deciding, as_decided.kept_on_linux,
                                  effort_after, as_decided.memory, as_decided.thresholds, excluded},
                                 VerdictDetail::OutcomeOnly);
    decision.if_resolved = after.outcome;
    std::vector<std::string> fixes;
    std::set<std::string> seen;
    for (const DecisionFactor *factor : finding_factors)
      if (seen.insert(factor->rule_id + "|" + factor->path).second) // one phrase per rule and file
        fixes.push_back(fix_phrase(scan, *factor));
    std::string sentence = join_limited(fixes, 3);
    sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
    decision.what_would_change.push_back(
        sentence +
        (after.outcome == decision.outcome
             ? ", and the verdict stays " + std::string(to_string(after.outcome)) + " (other factors remain)"
             : ", and the verdict becomes " + std::string(to_string(after.outcome))) +
        ".");
  }
}

// What would change the verdict besides its findings: the thresholds, the
// model's size, a kernel's Metal port; and what would move an ADAPT.
void add_threshold_changes(const DecisionThresholds &thresholds, const ScanResult &scan,
                           const MemoryFit &memory, Decision &decision) {
  for (const auto &factor : decision.deciding) {
    if (factor.kind == FactorKind::EffortKeep || factor.kind == FactorKind::EffortDual)
      decision.what_would_change.push_back(
          "Bring the estimate under " +
          format_hours(factor.kind == FactorKind::EffortKeep
                           ? HourRange{thresholds.keep_min_hours, thresholds.keep_min_hours}
                           : HourRange{thresholds.adapt_max_hours, thresholds.adapt_max_hours}) +
          " (the largest items are first in the plan's later steps), or raise the threshold in the config.");
    else if (factor.kind == FactorKind::MemoryTraining)
      decision.what_would_change.push_back(
          "Training on a Mac needs a smaller model, LoRA/adapters or gradient checkpointing that cuts "
          "training "
          "memory under " +
          format_gib(usable_bytes(memory.largest_tier_gb)) + "; inference already fits.");
    else if (factor.kind == FactorKind::MemoryInference)
      decision.what_would_change.push_back(
          "Inference on a Mac needs a smaller or quantized model (fewer than " +
          format_gib(usable_bytes(memory.largest_tier_gb)) + " of weights and activations).");
    else if (factor.kind == FactorKind::FallbackItem && factor.finding_index < 0)
      decision.what_would_change.push_back("Port " + kernel_subject(scan, factor) +
                                           " to Metal, and the Mac no longer needs the slow fallback.");
  }
  if (decision.outcome == Outcome::Adapt)
    decision.what_would_change.push_back(
        "Nothing blocks ADAPT. It would become KEEP_LINUX_GPU if a CUDA-only library without fallback "
        "entered the "
        "model or inference path, and DUAL if one entered only the training code, or the estimate grew "
        "past " +
        format_hours({thresholds.adapt_max_hours, thresholds.adapt_max_hours}) + ".");
}

// The headline, the reasons and their groups, from the factors.
void write_reasons(const ScanResult &scan, const HourRange &deciding_effort, Assessment &assessment) {
  Decision &decision = assessment.decision;
  const std::string outcome_text(to_string(decision.outcome));
  if (decision.deciding.empty()) {
    // No figure here: the Effort line gives the recommended path's, and a
    // second range beside it (the threshold's own estimate) reads as a
    // contradiction in a table of many repositories.
    decision.headline =
        outcome_text + ": no blocker, and the estimate" +
        (deciding_effort.high < assessment.effort.total.high
             ? " without optional sub-projects, containers and tests"
             : "") +
        " is within " +
        format_hours({assessment.thresholds.adapt_max_hours, assessment.thresholds.adapt_max_hours});
  } else {
    const DecisionFactor &first = decision.deciding.front();
    decision.headline = outcome_text + ": " + first.summary;
    if (decision.deciding.size() > 1)
      decision.headline += " (and " + std::to_string(decision.deciding.size() - 1) + " more)";
  }
  std::vector<std::string> &context = decision.context_reasons;
  if (const std::string entry_line = entry_points_reason(scan, assessment.entry_points); !entry_line.empty())
    context.push_back(entry_line);
  context.push_back(effort_reason(assessment.effort, assessment.recommended));
  if (std::string credit = fix_credit_reason(assessment.effort, assessment.recommended); !credit.empty())
    context.push_back(std::move(credit));
  if (assessment.memory.has_estimate)
    context.push_back("Memory fit: " + assessment.memory.summary + ".");
  for (const auto &factor : decision.deciding)
    decision.reasons.push_back(factor.summary);
  for (const auto &factor : decision.secondary)
    decision.reasons.push_back("Also (" + std::string(to_string(factor.pushes_to)) + "): " + factor.summary);
  decision.reasons.insert(decision.reasons.end(), context.begin(), context.end());
  decision.deciding_groups = group_by_cause(decision.deciding, scan);
  decision.secondary_groups = group_by_cause(decision.secondary, scan);
}

} // namespace

Assessment assess(const AssessmentInput &input) {
  Assessment assessment;
  const ScanResult empty;
  const ScanResult &scan = input.scan ? *input.scan : empty;
  assessment.thresholds = input.thresholds;
  assessment.probe = input.probe;
  assessment.effort_model_origin = input.model.origin;
  const AssessPolicy &policy = policy_of(input);
  assessment.roles = classify_roles(scan.project_files, input.thresholds.role_overrides, policy);
  const auto [entries, reach] = trace_entry_points(scan.project_files, policy);
  return_free_memory(); // the module index and graph
  roles_from_reachability(scan, entries, reach, assessment.roles);
  const std::set<std::string> non_deciding = non_deciding_files(scan.project_files, reach, input.thresholds);
  assessment.optional_sub_projects = reach.optional_sub_projects;
  record_reachability(scan, entries, reach, input.thresholds, assessment.reachability);
  const std::map<std::string, Role> role_of = role_by_path(assessment.roles);
  const std::vector<std::string> accepted = scripts_to_accept(entries);
  assessment.effort = estimate_effort(scan, assessment.roles, input.model, {}, input.fix_target_torch,
                                      input.fixes, EstimateDetail::WithoutPlaces, policy,
                                      &accepted); // roll_up_by_place below, after the what-if
  return_free_memory(); // the estimate's grouping tables, before the what-if builds its own
  assessment.memory = estimate_memory_fit(scan.project_files, policy.mac_memory_tiers_gb);

  assessment.entry_points = judge_entry_points(scan, entries, reach, assessment.effort, input.thresholds);
  const std::map<std::string, std::string> kept_on_linux =
      files_of_entries_linux_keeps(scan, entries, reach, assessment.entry_points);
  const std::vector<bool> nothing_excluded;
  Verdict verdict = decide({scan, role_of, non_deciding, kept_on_linux, assessment.effort, assessment.memory,
                            input.thresholds, nothing_excluded},
                           VerdictDetail::Factors);
  Decision &decision = assessment.decision;
  decision.outcome = verdict.outcome;
  // The first effort figure prices the path the verdict recommends.
  assessment.recommended =
      plan_for(path_for(verdict.outcome), assessment.effort, assessment.roles, input.model,
               {off_recommended_path(scan.project_files, reach, kept_on_linux),
                linux_only_items(assessment.effort, input.thresholds), scan.display_prefix});
  for (auto &factor : verdict.factors) {
    name_entries(scan, factor, assessment.reachability);
    (factor.pushes_to == verdict.outcome ? decision.deciding : decision.secondary)
        .push_back(std::move(factor));
  }
  std::vector<DecisionFactor>().swap(verdict.factors);
  lead_with_strongest(decision.deciding, scan);

  // What would change it: resolve every deciding finding and decide again.
  resolve_deciding_findings(input,
                            {scan, role_of, non_deciding, kept_on_linux, assessment.effort, assessment.memory,
                             input.thresholds, nothing_excluded},
                            assessment.roles, accepted, decision);
  // Once the what-if estimate is gone: the two are never held at once.
  return_free_memory();
  roll_up_by_place(assessment.effort, role_of);
  add_threshold_changes(input.thresholds, scan, assessment.memory, decision);
  write_reasons(scan, verdict.deciding_effort, assessment);

  assessment.acceptance = acceptance_levels(scan, input.probe, assessment.effort);
  assessment.plan = action_plan(assessment.effort, assessment.recommended);
  return assessment;
}

} // namespace mpsaudit
