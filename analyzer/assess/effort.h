// The migration-effort model: findings and kernel facts -> person-hours, as
// low-high ranges, counting each distinct fix once (docs/effort-model.md).
//
//   trivial  per site, capped per file (a hundred .cuda() calls are one
//            device helper plus a capped mechanical edit per file)
//   small    once per hazard class (rule) per repository
//   medium   once per component: a rule and the library or extension it names
//   large    once per file with such findings (a kernel family in Python)
//   kernels  CUDA kernels from the C++ front end scale with their device
//            code; a kernel whose op has a CPU/Python fallback costs only the
//            routing now, and its port is listed as deferred
//   blocker  reported, never estimated
// Guarded findings (a fallback exists), info findings and suppressed ones
// need no work to run on a Mac and cost nothing; they are still counted.
// One-off costs (a device/dtype helper, an optional build) come once per
// repository when their trigger families have findings.
//
// The numbers live in rules/effort.toml, each with its source; the defaults
// below are the starting figures of docs/knowledge/effort.md, used when no
// file is loaded.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "assess/assess_policy.h"
#include "assess/roles.h"
#include "core/diagnostic.h"
#include "core/interned_string.h"
#include "rules/rule.h"
#include "scan/scan.h"

namespace mpsaudit {

class FixCatalog;

struct HourRange {
  double low = 0;
  double high = 0;
  HourRange &operator+=(const HourRange &other) {
    low += other.low;
    high += other.high;
    return *this;
  }
  HourRange scaled(double factor) const { return {low * factor, high * factor}; }
};

// "2–8 h", "3–6 d" (8 h days from 16 h up), "1.5–4 wk" (40 h weeks from 160 h),
// "4–9 person-months" (160 h months, whole, from 480 h: a range that long
// is not known to the week). The units are fixed display units, the ones
// the dev-set labels use (effort_days × 8 h), not part of the effort model.
std::string format_hours(const HourRange &range);

struct OneOffCost {
  std::string id;
  std::string title;
  HourRange hours;
  std::vector<std::string> when_families; // any unguarded finding of these families
  // Open findings of these families are this one-off's work, not items of
  // their own (a CUDA-only build line is what "make the build optional" edits).
  std::vector<std::string> absorbs_families;
  std::string source;
};

struct EffortModel {
  HourRange trivial_per_site{0.1, 0.25};
  double trivial_file_cap = 1.0;
  HourRange small_per_fix{2, 8};
  HourRange medium_per_fix{16, 40};
  HourRange large_per_fix{16, 40};
  // CUDA kernels (facts "cuda-kernel" from the C++ front end).
  HourRange kernel_base{16, 40};
  HourRange kernel_tensor_core{80, 240};
  double kernel_base_lines = 100; // device lines the base covers
  HourRange kernel_per_100_lines{8, 16};
  HourRange kernel_shared_memory{2, 8};
  HourRange kernel_warp_intrinsics{2, 8};
  HourRange kernel_atomics{2, 8};
  HourRange kernel_double{8, 40};
  HourRange kernel_host_glue{8, 16};
  HourRange kernel_with_fallback{2, 8};
  // Each further member of a kernel family (a dtype/head-dim/arch variant,
  // the same kernel in another file, an explicit instantiation file).
  HourRange kernel_per_variant{1, 4};
  // Acceptance on the Mac: the `mpsaudit env` record, a CPU-vs-MPS
  // comparison of one real input and a checkpoint load, once; each further
  // entry point on the Mac path adds a run, up to acceptance_entry_cap.
  HourRange acceptance_base{2, 4};
  HourRange acceptance_per_entry{0.25, 0.5};
  int acceptance_entry_cap = 12;
  // KEEP_LINUX_GPU: pin and document the Linux environment; guard the
  // imports of CUDA-only components, as far as that is cheap.
  HourRange keep_pin{4, 12};
  HourRange keep_guard_per_component{0.5, 1};
  int keep_guard_max_components = 4;
  std::vector<OneOffCost> one_offs;
  // Where each number comes from: "trivial" -> citation, and so on.
  std::vector<std::pair<std::string, std::string>> sources;
  std::string origin = "built-in defaults (docs/knowledge/effort.md)";
};

EffortModel default_effort_model();
// Reads rules/effort.toml (or any file of that shape) over the defaults.
// Problems are appended to `diagnostics` naming file and line.
EffortModel load_effort_model(const std::string &path, std::vector<Diagnostic> &diagnostics);

// What `mpsaudit fix` removes (docs/effort-model.md, "Fix credit"): the
// hours of the sites it edits by itself. Safe fixes are what `fix --apply`
// does; unsafe ones need `--unsafe` and a review, so they are counted apart.
struct FixCredit {
  int safe_sites = 0;
  int unsafe_sites = 0;  // fixable only with --unsafe
  HourRange safe;        // hours the safe fixes remove
  HourRange with_unsafe; // hours safe and unsafe fixes remove together
  FixCredit &operator+=(const FixCredit &other) {
    safe_sites += other.safe_sites;
    unsafe_sites += other.unsafe_sites;
    safe += other.safe;
    with_unsafe += other.with_unsafe;
    return *this;
  }
};

// "mpsaudit fix --apply removes 2–5 h of it (40 findings); --unsafe edits
// 6 more after review (3–7 h in all)." The reports' one line on the credit;
// `of_what` names the estimate it is part of ("it": the one just given).
std::string fix_credit_sentence(const FixCredit &fix, std::string_view of_what = "it");

// How much of an item one file carries, for the roll-ups.
struct FileShare {
  InternedString path; // the finding's own: a tree-wide item has a share in every file
  int sites = 0;
  HourRange hours;
  FixCredit fix;
};

// What an effort item prices: open findings of one rule (or package or
// component), a CUDA kernel family, or a one-off cost (acceptance, the
// environment).
enum class EffortItemKind : std::uint8_t { Finding, Kernel, OneOff };
inline constexpr std::string_view kEffortItemKindNames[] = {"finding", "kernel", "one-off"};
static_assert(std::size(kEffortItemKindNames) == static_cast<std::size_t>(EffortItemKind::OneOff) + 1);
inline std::string_view to_string(EffortItemKind kind) {
  return kEffortItemKindNames[static_cast<std::size_t>(kind)];
}

// One distinct fix: the unit of work of the estimate.
struct EffortItem {
  std::string key;     // "MPS201", "MPS405:bitsandbytes", "kernel:csrc/a.cu:roi_align"
  std::string rule_id; // empty for one-offs and kernels
  std::string title;
  std::string family; // category of the roll-up
  Effort effort = Effort::Trivial;
  EffortItemKind kind = EffortItemKind::Finding;
  int sites = 0;
  HourRange hours;
  bool estimable = true; // false for blockers
  std::string basis;     // how the hours were computed
  std::string replacement;
  std::vector<FileShare> files;
  std::vector<std::size_t> finding_indices; // into ScanResult::findings
  HourRange deferred;                       // kernel ports a fallback lets wait
  FixCredit fix;                            // what `mpsaudit fix` removes of `hours`
};

struct RollUp {
  std::string name;
  HourRange hours;
  int findings = 0; // open findings (not guarded, not info, not suppressed)
  FixCredit fix;
};

// The path the decision recommends, and so the plan the first figure prices:
// ADAPT ports; DUAL makes the Mac entry points (inference, evaluation,
// tests) run while training stays on Linux; KEEP_LINUX_GPU pins Linux.
enum class RecommendedPath : std::uint8_t { Port, MacEntryPoints, KeepLinux };
std::string_view to_string(RecommendedPath path); // "port", "mac-entry-points", "keep-linux"

// One family of CUDA kernels: the kernels of one name once the variant
// tokens are gone ("attn_fwd_hdim64_fp16" -> "attn_fwd"), in any file.
struct KernelFamily {
  std::string name;
  int members = 0;
  bool tensor_core = false;
  HourRange hours; // the port now (the fallback routing where one exists)
};

// A step of the recommended path that ports no finding: KEEP_LINUX_GPU's
// pin of the environment and guard of CUDA-only imports.
struct PathStep {
  std::string title;
  HourRange hours;
  std::string detail;
};

struct EffortEstimate {
  std::vector<EffortItem> items; // ordered: effort class, then hours, then key
  HourRange total;               // the port of everything the Mac needs now
  HourRange deferred;
  // The native port of everything: `total` plus the deferred kernel ports.
  HourRange native_port;
  std::vector<std::string> entry_points;     // the scripts accepted on the Mac (scripts_to_accept)
  std::vector<KernelFamily> kernel_families; // largest first
  FixCredit fix;                             // what `mpsaudit fix` removes of `total`
  int not_estimated = 0;                     // blocker items
  int open_findings = 0;
  int guarded_findings = 0;
  int advisory_findings = 0; // severity info, unguarded
  int suppressed_findings = 0;
  std::vector<RollUp> by_category, by_file, by_directory, by_role;
};

// Whether a finding asks for work to run on a Mac: unsuppressed, unguarded,
// severity warning or error.
bool is_open_finding(const Finding &finding);

// How much of the estimate to build: the roll-ups by file, directory and
// role serve the reports alone, and on a large tree they are a good part of
// the estimate's memory (roll_up_by_place adds them later).
enum class EstimateDetail : std::uint8_t { Full, WithoutPlaces };

// The estimate. `excluded` (may be empty) marks findings to leave out, for
// the decision's "what would change" question. Roles are by file path. The
// fix credit asks `fixes` (rules/fixes.toml as the session loaded it; null:
// no credit) which findings `mpsaudit fix` edits for `fix_target_torch`
// ("": its default). Kernels are grouped into families by the policy's
// [kernel_families] words. `entry_points` are the scripts whose runs the
// acceptance prices (null: those of the scan's own entry points,
// scripts_to_accept in entry_points.h).
EffortEstimate estimate_effort(const ScanResult &scan, const std::vector<FileRole> &roles,
                               const EffortModel &model, const std::vector<bool> &excluded = {},
                               std::string_view fix_target_torch = {}, const FixCatalog *fixes = nullptr,
                               EstimateDetail detail = EstimateDetail::Full,
                               const AssessPolicy &policy = bundled_assess_policy(),
                               const std::vector<std::string> *entry_points = nullptr);

// The roll-ups by file, directory and role (by_file, by_directory,
// by_role) of an estimate built without them; `role_of` is role_by_path of
// the roles it was built with.
void roll_up_by_place(EffortEstimate &estimate, const std::map<std::string, Role> &role_of);

// The plan of the path the decision recommends, priced over an estimate's
// items: the first figure of every report (docs/effort-model.md, "Two
// figures").
struct RecommendedPlan {
  RecommendedPath path = RecommendedPath::Port;
  HourRange hours;
  FixCredit fix;               // what `mpsaudit fix` removes of `hours`
  std::string goal;            // "run train.py and sample.py on MPS"
  std::string basis;           // how `hours` adds up, one sentence
  std::vector<PathStep> steps; // the path's own steps; none for a port
};

// What a plan leaves out and how it names entries: files in `off_path` are
// not on the path (code behind an option the Mac need not choose, optional
// sub-projects, and entry points that Linux keeps beside Mac-capable ones of
// the same purpose: an entry in it is no Mac entry); `linux_only_items`
// marks items DUAL leaves on Linux (training at scale, as the decision's
// thresholds say), by index into the estimate's items; the goal names entry
// points after `path_prefix` (ScanResult::display_prefix).
struct PlanScope {
  std::set<std::string> off_path;
  std::vector<bool> linux_only_items;
  std::string path_prefix;
};

// Prices `path` over the estimate's items.
RecommendedPlan plan_for(RecommendedPath path, const EffortEstimate &estimate,
                         const std::vector<FileRole> &roles, const EffortModel &model,
                         const PlanScope &scope = {});

// A kernel name or file stem without its variant tokens (the policy's
// [kernel_families]: dtype, head dimension, architecture, numbers):
// "flash_fwd_hdim64_fp16_sm80" -> "flash_fwd". The name itself when nothing
// else would be left.
std::string kernel_family_name(std::string_view name, const AssessPolicy &policy);

// A package name as one key however a manifest or import spells it:
// lower case, '_' as '-', without "-cu118", "-cuda12", "-gpu", "-full".
std::string package_key(std::string_view name);

// "4–9 person-months to port natively (9 kernel families, of which 2 use
// tensor cores or PTX: a, b)": the native-port figure in words.
std::string native_port_text(const EffortEstimate &estimate, RecommendedPath path);

} // namespace mpsaudit
