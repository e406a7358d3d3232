// The lab's portfolio (`mpsaudit portfolio`): many repositories, each judged
// on its own by `scan`, in one table a lab lead plans from.
//
// Every row is read from a repository's JSON report (docs/report.schema.json),
// whether `portfolio` scanned the tree itself or was handed a report written
// elsewhere: the two paths meet in row_from_report, so a portfolio over trees
// and one over their reports agree (docs/portfolio.md says what differs: when
// and from what each row was made).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assess/effort.h"

namespace mpsaudit {

// One cause the decision names as pushing a repository off ADAPT: a
// CUDA-only package, a rule's pattern, or CUDA kernel code (the cause groups
// of the report's decision).
struct PortfolioBlocker {
  std::string cause; // "package:xformers", "rule:MPS501", "cuda-code": the key across repositories
  std::string title; // "CUDA-only package `xformers`"
  std::string pushes_to;
  std::size_t findings = 0;
  // What the estimate gives the work items of this cause; none when no item
  // prices it (a dependency pin is priced with its package's code).
  std::optional<HourRange> hours;

  // A few characters for a narrow table: the package, the rule's ID, or
  // "CUDA code".
  std::string short_name() const;
};

struct PortfolioRow {
  std::string name;                  // the repository's folder name
  std::string input;                 // the path as given
  std::string source;                // "tree" (scanned here) or "report" (a JSON report read)
  std::optional<std::string> commit; // HEAD, where the repository is a git work tree
  std::string tool_version;          // of the mpsaudit that wrote the report
  std::string rules;                 // the fingerprint of the rule set that judged it
  std::vector<std::string> notes;    // e.g. a report from another mpsaudit version
  std::string error;                 // non-empty: no report; the fields below are empty
  std::string verdict;               // ADAPT, DUAL or KEEP_LINUX_GPU
  std::string reason; // the decision's headline without the verdict, paths from the repository's top
  HourRange effort;   // the recommended path
  std::optional<HourRange> native_port;   // DUAL and KEEP_LINUX_GPU: porting everything natively
  HourRange fix_removes;                  // of `effort`, what `mpsaudit fix --apply` edits away
  std::vector<PortfolioBlocker> blockers; // strongest first
  std::size_t entries_on_mac = 0; // entry points that run on a Mac (as is, after fixes, optional CUDA path)
  std::size_t entries = 0;
  std::size_t files = 0;    // files scanned
  std::size_t findings = 0; // unsuppressed findings
  std::string scanned_at;   // UTC, ISO 8601: when the tree was scanned, or the report file's time
  std::string html_report;  // the repository's own HTML report, where one was written beside its JSON
  // The first torch release with an MPS kernel for every call the report
  // says has none yet (the `operators` family's messages); empty when there
  // are none, or one has no kernel in any release.
  std::string operators_release;
  std::size_t missing_operators = 0;
  bool operators_decide = false;    // every cause pushing the verdict is such an operator
  std::vector<std::string> changes; // since the baseline portfolio, when one was given

  bool ok() const { return error.empty(); }
  double fix_share() const; // fix_removes over effort, by their midpoints; 0 when there is no effort
};

struct VerdictTotal {
  std::string verdict;
  std::size_t repositories = 0;
  HourRange hours; // the recommended paths, summed
};

// A cause that pushes repositories off ADAPT, with every repository it
// pushes: the lab's view of which dependency or pattern costs the most.
struct SharedBlocker {
  std::string cause;
  std::string title;
  std::vector<std::string> repositories; // the names of those it blocks
  HourRange hours;                       // its items' hours, summed over them
  // A package is replaced once for every repository (one port of the
  // library, or one substitute); a pattern or kernel code is work in each.
  bool replaced_once() const { return cause.rfind("package:", 0) == 0; }
};

// The torch release whose operator coverage helps the most repositories.
struct ReleaseEffect {
  std::string release;
  std::size_t repositories = 0;     // whose missing operators all gain an MPS kernel by then
  std::size_t verdicts_changed = 0; // of those, the ones whose verdict only those operators decide
};

struct Portfolio {
  std::string tool_version;
  std::vector<PortfolioRow> rows; // in input order
  std::vector<VerdictTotal> totals;
  std::vector<SharedBlocker> shared_blockers; // most repositories first
  std::optional<ReleaseEffect> release;
  std::string baseline_file; // empty: no baseline
  std::vector<std::string> removed_since_baseline;
};

inline constexpr int kPortfolioSchemaVersion = 1;
// The verdicts in the order tables list them.
inline constexpr const char *kPortfolioVerdicts[] = {"ADAPT", "DUAL", "KEEP_LINUX_GPU"};

// The row a scan's JSON report gives. A report without what a row needs
// (another program's JSON, a newer schema) gives a row with `error` set.
PortfolioRow row_from_report(const nlohmann::json &report, const std::string &our_version);

// The totals, the shared blockers and the release, from the rows; a row
// judged by another rule set than most rows gets a note saying so.
Portfolio summarize_portfolio(std::vector<PortfolioRow> rows, const std::string &tool_version);

// Marks what changed since `baseline`, a portfolio JSON written earlier:
// per row its `changes`, and the repositories no longer listed. False, with
// `error`, when the file is no portfolio.
bool compare_with_baseline(Portfolio &portfolio, const nlohmann::json &baseline, const std::string &file,
                           std::string &error);

// The JSON document (docs/portfolio.schema.json).
nlohmann::json portfolio_to_json(const Portfolio &portfolio);

// `text` with `root` + "/" taken off where a path starts: the reasons of a
// report scanned as `scan ../repos/x` read as if scanned from inside it.
std::string paths_from_top(const std::string &text, const std::string &root);

} // namespace mpsaudit
