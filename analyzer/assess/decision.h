// The assessment: roles, effort, memory fit and probe verdicts -> one of
// three outcomes, with the findings that decided it, what would change it,
// the three acceptance levels and an ordered action plan. A pure function of
// its inputs (docs/decision.md documents every criterion).
//
//   KEEP_LINUX_GPU  a blocker on the model's critical path (a model or
//                   inference file, or inside forward()) with no fallback;
//                   or the low effort estimate beyond keep_min_hours; or
//                   not even inference fits the largest Mac.
//   DUAL            blockers or large items confined to training at scale:
//                   blockers in training/data/tooling files, distributed and
//                   CUDA-only speed libraries (effort small or more), large
//                   kernels that have a fallback; or training fits no Mac;
//                   or the high effort estimate over adapt_max_hours.
//   ADAPT           none of the above.
//
// A blocker is an open finding (unsuppressed, unguarded, warning or error)
// whose rule has effort "blocker", or severity error with effort of at least
// blocker_min_effort: CUDA-only code with no MPS path that is more than a
// mechanical edit. Blockers in tests and docs/examples never decide.
#pragma once

#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "assess/assess_policy.h"
#include "assess/decision_probe.h"
#include "assess/effort.h"
#include "assess/entry_points.h"
#include "assess/memory_fit.h"
#include "assess/roles.h"
#include "scan/scan.h"

namespace mpsaudit {

// Whether a rule is about CUDA (its cuda_only attribute; a finding without a
// rule, a kernel family, is). Reasons call its findings CUDA-only; others (an
// old torch pin) they describe by their own message.
bool about_cuda(const Rule *rule);

enum class Outcome : std::uint8_t { Adapt, Dual, KeepLinuxGpu };
std::string_view to_string(Outcome outcome); // "ADAPT", "DUAL", "KEEP_LINUX_GPU"
std::string_view outcome_meaning(Outcome outcome);
// The path whose plan an outcome recommends: ADAPT ports, DUAL makes the Mac
// entry points run, KEEP_LINUX_GPU pins Linux.
RecommendedPath path_for(Outcome outcome);

// The criteria's knobs, with their documented defaults. The config file
// (mpsaudit.toml [assess]) fills this struct.
struct DecisionThresholds {
  double adapt_max_hours = 80; // high estimate above two person-weeks: not ADAPT
  double keep_min_hours = 480; // low estimate above twelve person-weeks: KEEP
  Effort blocker_min_effort = Effort::Small;
  Effort fallback_item_min_effort = Effort::Large; // guarded items this large make DUAL
  // Findings that mean "training at scale": families and rule IDs. The
  // rules' training_scale attributes fill them (take_training_scale); a
  // config's lists replace that.
  std::vector<std::string> training_scale_families;
  std::vector<std::string> training_scale_rules;
  Effort training_scale_min_effort = Effort::Small;
  std::vector<Role> critical_roles{Role::Model, Role::Inference};
  std::vector<Role> peripheral_roles{Role::Tests, Role::Docs};
  bool memory_decides = true;
  std::vector<RoleOverride> role_overrides;
};

// The catalog's training-scale rules as the thresholds list them: the
// families whose [family] table sets training_scale, and the rules that set
// it in other families (rules/distributed.toml; apex, bitsandbytes, deepspeed).
void take_training_scale(const RuleCatalog &catalog, DecisionThresholds &thresholds);

// What kind of reason a factor is (docs/decision.md, "Criteria").
enum class FactorKind : std::uint8_t {
  CriticalBlocker, // a CUDA-only item on the model's critical path, no fallback: KEEP_LINUX_GPU
  TrainingBlocker, // the same, confined to training or tooling code: DUAL
  EntryBlocker,    // CUDA-only in an entry Linux keeps beside a Mac-capable one: DUAL
  TrainingScale,   // multi-GPU machinery or a CUDA-only speed library: DUAL
  FallbackItem,    // a large CUDA-only item with a fallback the Mac runs
  EffortKeep,      // even the low estimate is past the KEEP threshold
  EffortDual,      // the high estimate is past the ADAPT threshold
  MemoryInference, // inference fits no Mac
  MemoryTraining,  // training fits no Mac
};
// Each kind's name as JSON writes it, in the order above: also the JSON
// schema's list (a unit test holds docs/report.schema.json to it).
inline constexpr std::string_view kFactorKindNames[] = {
    "critical-blocker", "training-blocker", "entry-blocker",    "training-scale", "fallback-item",
    "effort-keep",      "effort-dual",      "memory-inference", "memory-training"};
static_assert(std::size(kFactorKindNames) == static_cast<std::size_t>(FactorKind::MemoryTraining) + 1);
inline std::string_view to_string(FactorKind kind) {
  return kFactorKindNames[static_cast<std::size_t>(kind)];
}

// One reason the outcome is what it is.
// Its texts but the summary are interned: a large tree has tens of thousands
// of factors, most of them naming the same rules, files and replacements.
struct DecisionFactor {
  FactorKind kind = FactorKind::CriticalBlocker;
  Outcome pushes_to = Outcome::Adapt;
  std::string summary; // one sentence
  // The finding behind it, when there is one.
  long finding_index = -1; // into ScanResult::findings
  InternedString rule_id, path, name, role, replacement;
  std::uint32_t line = 0;
  // The entry points that run the finding's file (main entries first).
  std::vector<InternedString> entries;
};

// Deciding (or secondary) factors with one cause: CUDA kernels and their C++
// glue, one CUDA-only package, one hazard class (rule), or a finding-less
// factor (effort, memory, a kernel with a fallback). Built by
// group_by_cause (assess/reason_groups.h); the reports show a few of these
// instead of every factor.
struct ReasonGroup {
  FactorKind kind = FactorKind::CriticalBlocker; // the members' DecisionFactor::kind
  std::string cause;                             // "cuda-code", "package:triton", "rule:MPS216" or the kind
  Outcome pushes_to = Outcome::Adapt;
  std::string title;   // "CUDA kernels and CUDA C++ code", "package `triton`", ...
  std::string summary; // one sentence with the count and one example location
  std::size_t count = 0;
  std::size_t files = 0;
  std::vector<std::pair<std::string, std::size_t>> rules;       // rule ID and count, most first
  std::vector<std::pair<std::string, std::size_t>> directories; // members' directories and counts, most first
  std::string example;                                          // path:line of the strongest member
  std::vector<std::string> entries;                             // entry points that run members (at most 3)
  std::vector<std::size_t> members; // indexes into the factor list, strongest first
};

struct Decision {
  Outcome outcome = Outcome::Adapt;
  std::string headline; // "KEEP_LINUX_GPU: flash_attn sits in model/attn.py with no fallback"
  std::vector<std::string> reasons;
  std::vector<DecisionFactor> deciding;  // the factors that set the outcome
  std::vector<DecisionFactor> secondary; // factors for a milder outcome, also present
  // The same factors grouped by cause, strongest group first.
  std::vector<ReasonGroup> deciding_groups, secondary_groups;
  // The reasons that are not factors: entry points, effort, fix, memory.
  std::vector<std::string> context_reasons;
  // The outcome once every deciding finding is resolved (recomputed, not
  // guessed); absent when no finding decided (effort, memory).
  std::optional<Outcome> if_resolved;
  std::vector<std::string> what_would_change;
};

// How far an acceptance level is shown (docs/acceptance.md).
enum class AcceptanceStatus : std::uint8_t { Confirmed, Refuted, Likely, NotYetConfirmed };
inline constexpr std::string_view kAcceptanceStatusNames[] = {"confirmed", "refuted", "likely",
                                                              "not-yet-confirmed"};
static_assert(std::size(kAcceptanceStatusNames) ==
              static_cast<std::size_t>(AcceptanceStatus::NotYetConfirmed) + 1);
inline std::string_view to_string(AcceptanceStatus status) {
  return kAcceptanceStatusNames[static_cast<std::size_t>(status)];
}

struct AcceptanceLevel {
  int level = 1;
  std::string title; // "MPS is available"
  AcceptanceStatus status = AcceptanceStatus::NotYetConfirmed;
  std::string evidence;
  std::string how_to_confirm;
};

struct ActionStep {
  int order = 0;
  std::string title;
  std::string effort; // effort class
  int count = 0;      // sites
  int files = 0;
  HourRange hours;
  std::string detail; // the replacement or basis
  std::vector<std::string> rule_ids;
  bool deferred = false;
  // A porting step of a KEEP_LINUX_GPU plan, after the recommended path's
  // own steps: the reports fold these under "If you port anyway".
  bool if_port_anyway = false;
  FixCredit fix; // what `mpsaudit fix` does of this step

  // "16 sites in 3 files", "1 site in 1 file"; the sites alone when no file
  // is known (a step for the whole repository); empty without sites.
  std::string extent() const;
};

// Where a file with findings stands against the entry points
// (assess/reachability.h), for the reports. Its texts are interned: a large
// tree has a record for each of tens of thousands of files, and their
// entries and chains repeat the same few paths.
struct FileReachability {
  InternedString status;               // reached | test-only | ... (to_string(ReachStatus))
  bool may_decide = true;              // false: only tests, examples, a container or an optional sub-project
  std::vector<InternedString> entries; // entry paths that run it (capped)
  std::vector<InternedString> chain;   // entry -> module ... -> the file
};

struct Assessment {
  std::vector<FileRole> roles;
  std::vector<EntryAssessment> entry_points; // main entries first
  std::vector<std::string> optional_sub_projects;
  // By path, for files with findings.
  std::map<std::string, FileReachability> reachability;
  EffortEstimate effort;
  RecommendedPlan recommended; // the path the decision recommends, priced over `effort`
  MemoryFit memory;
  ProbeVerdicts probe;
  Decision decision;
  std::vector<AcceptanceLevel> acceptance;
  std::vector<ActionStep> plan;
  DecisionThresholds thresholds;
  std::string effort_model_origin;
};

// What decide() weighs, built by assess() (tests build it directly): the
// scan's findings and what each file is.
struct VerdictInput {
  const ScanResult &scan;
  // Each file's role by path; a file not listed is Tooling.
  const std::map<std::string, Role> &role_of;
  // Files no main entry point runs (only tests, examples, a container or an
  // optional sub-project): they never decide.
  const std::set<std::string> &non_deciding;
  // Files only entries that Linux keeps run, each beside a Mac-capable entry
  // of the same purpose: by path, that entry ("sample.py (inference)").
  const std::map<std::string, std::string> &kept_on_linux;
  const EffortEstimate &effort;
  const MemoryFit &memory;
  const DecisionThresholds &thresholds;
  // Findings taken as resolved (by index; may be empty): the what-if.
  const std::vector<bool> &excluded;
};

struct Verdict {
  Outcome outcome = Outcome::Adapt;
  std::vector<DecisionFactor> factors; // empty with VerdictDetail::OutcomeOnly
  HourRange deciding_effort;           // the estimate the effort criteria weighed
};

// The what-if question needs the outcome alone: without a factor for each
// finding, it holds no second copy of the reasons (a large tree has tens of
// thousands).
enum class VerdictDetail : std::uint8_t { Factors, OutcomeOnly };

// The verdict's rule (docs/decision.md, "Criteria"): every open finding,
// guarded item, kernel with a fallback, the estimate and the memory fit
// become factors, and the strongest outcome any factor pushes to is the
// verdict. A pure function of its input.
Verdict decide(const VerdictInput &input, VerdictDetail detail = VerdictDetail::Factors);

struct AssessmentInput {
  const ScanResult *scan = nullptr;
  EffortModel model = default_effort_model();
  DecisionThresholds thresholds;
  ProbeVerdicts probe; // present = false when no probe ran
  // The PyTorch release `mpsaudit fix` would target (config target-torch);
  // decides which fixes the effort model credits. "": fix's default.
  std::string fix_target_torch;
  // rules/fixes.toml as the session loaded it (session/session.h); null:
  // the effort model credits no fix.
  const FixCatalog *fixes = nullptr;
  // rules/assess.toml as the session loaded it; null: the bundled one.
  const AssessPolicy *policy = nullptr;
};

Assessment assess(const AssessmentInput &input);

// An error in a file that no main entry point runs (only tests, examples, a
// container recipe or an optional sub-project run it) blocks nothing on the
// Mac, and the verdict already ignores it: it is reported as a warning that
// says why, so that `--fail-on error` and the error count mean "blocks the
// port". Run after assess(), on the findings the reports print.
void demote_errors_off_entry_paths(std::vector<Finding> &findings, const Assessment &assessment);

// How strongly a factor argues for its outcome, for ordering (greater is
// stronger): code before manifests, then the factor's kind, then the size of
// its porting work.
std::tuple<bool, int, int> reason_strength(const DecisionFactor &factor, const ScanResult &scan);

// "path:line" of a factor (the path alone without a line), from the root.
std::string factor_location(const DecisionFactor &factor);

// Whether a finding is a blocker under `thresholds` (see the header comment).
bool is_blocker(const Finding &finding, const DecisionThresholds &thresholds);
// Whether a finding is training-at-scale machinery (multi-GPU, a CUDA-only
// speed library): a rule of the thresholds' families or IDs, at least as
// large as their minimum effort. The one predicate the verdict and the
// entry table share.
bool is_training_scale(const Finding &finding, const DecisionThresholds &thresholds);

} // namespace mpsaudit
