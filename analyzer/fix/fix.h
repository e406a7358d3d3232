// `mpsaudit fix`: safe automatic rewrites for the mechanical part of a port.
//
// Which findings can be fixed, and how safely, is data: rules/fixes.toml maps
// rule IDs (and, within a rule, finding names) to a fix kind and a safety
// class. How a kind edits the source is C++: one small unit per kind under
// fix/kinds/, registered by name in fix/registry.cpp. The fixer re-reads the
// scanned files, asks each kind for text edits at the finding's span, drops
// edits that overlap, checks that Python still parses, and yields the new
// text of every changed file (docs/fix.md).
//
// Safety follows ruff: a fix is `safe` when it cannot change behaviour on a
// machine where the code works today, a CUDA machine or a CPU-only one (a
// Mac path is added, the CUDA path kept); `unsafe` fixes need review and are
// only applied with --unsafe (docs/fix.md, "Safety model").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "core/finding.h"
#include "scan/scan.h"

namespace mpsaudit {

enum class FixSafety : std::uint8_t {
  Safe,   // behaviour on CUDA and CPU-only machines unchanged
  Unsafe, // may change behaviour on one of them: review before committing
};
std::string_view to_string(FixSafety safety);
std::optional<FixSafety> fix_safety_from_string(std::string_view text);
// The less safe of two classes.
FixSafety worse(FixSafety a, FixSafety b);

// The PyTorch release fixes target when the project config names none
// (target-torch): old enough for most pinned research code, new enough for
// torch.mps (2.0) and torch.amp.GradScaler (2.3). torch.accelerator (2.6)
// is only used when the config asks for 2.6 or later. See docs/fix.md.
inline constexpr std::string_view kDefaultFixTargetTorch = "2.4";
// Compares dotted release numbers ("2.4" < "2.6.0" < "2.11"); missing parts
// count as 0, non-numeric parts stop the comparison.
int compare_releases(std::string_view a, std::string_view b);

// One [[fix]] entry of rules/fixes.toml.
struct FixDefinition {
  std::string rule_id; // "MPS201"
  std::string kind;    // a registered fix kind, e.g. "dot-cuda-to-device"
  FixSafety safety = FixSafety::Safe;
  std::vector<std::string> names; // globs on Finding::name; empty: every finding of the rule
  std::string min_torch;          // offered only for target releases at least this; "" always
  // [[release]] features the edit writes ("autocast-mps"); each raises min_torch to its release.
  std::vector<std::string> requires_features;
  std::string min_torch_why; // what sets min_torch: "autocast on MPS (PR #99272)"; "" min_torch itself
  std::string summary;       // one line for `fix` output and docs
  std::string origin;        // file and line, for messages
};

// One [[release]] entry of rules/fixes.toml: the first PyTorch release with
// an API or an MPS capability that fixed code may rely on.
struct ReleaseFeature {
  std::string name;      // "autocast-mps", "torch.mps.synchronize"
  std::string min_torch; // "2.5"
  std::string summary;   // "autocast on MPS"
  std::vector<std::string> sources;
};

class FixCatalog {
public:
  // Reads a fixes file. Problems (bad TOML, unknown keys, unknown fix kinds,
  // bad safety classes) are appended to `diagnostics`; good entries are kept.
  static FixCatalog load_file(const std::string &path, std::vector<Diagnostic> &diagnostics);
  void load_text(std::string_view toml_text, const std::string &origin, std::vector<Diagnostic> &diagnostics);

  // The definition that fixes `finding` for `target_torch`, or null.
  const FixDefinition *find(const Finding &finding, std::string_view target_torch) const;
  // The definition that would fix `finding` if the target release were new
  // enough (for the reason a fix is not offered), or null.
  const FixDefinition *find_any_release(const Finding &finding) const;
  const std::vector<FixDefinition> &definitions() const { return definitions_; }
  // The [[release]] entry of `feature`, or null.
  const ReleaseFeature *release(std::string_view feature) const;
  const std::vector<ReleaseFeature> &releases() const { return releases_; }

private:
  const FixDefinition *find_definition(const Finding &finding, std::string_view target_torch,
                                       bool check_release) const;
  std::vector<FixDefinition> definitions_;
  std::vector<ReleaseFeature> releases_;
};

// Why a fix needing `min_torch` is not offered at `target_torch`:
// "needs PyTorch 2.5 (autocast on MPS); the target is 2.4".
std::string release_gate_reason(std::string_view min_torch, std::string_view why,
                                std::string_view target_torch);

// The release `fix` targets without --target-torch or a config target-torch:
// the torch pin of the project's manifests (`torch==2.1.0`, "2.1"), else "".
std::string manifest_torch_release(const ScanResult &result);

// Whether `mpsaudit fix` has an automatic fix for this finding, and how safe
// it is: the input of the effort model's credit for what fix removes.
// Findings that fix leaves alone on purpose (guarded, suppressed, in
// notebooks) have none. This is the class of the fix kind; an individual
// edit may still turn out impossible (`.cuda(1)`) or be reclassed unsafe (an
// existing `device` variable of unknown origin). For exact per-finding
// answers run plan_fixes().
std::optional<FixSafety> fix_available(const Finding &finding, const FixCatalog &catalog,
                                       std::string_view target_torch = kDefaultFixTargetTorch);

// The file kinds fix can edit.
bool fix_edits_file_kind(FileKind kind);

struct FixOptions {
  std::set<std::string> rules; // --rule: only these rule IDs; empty: all
  bool include_unsafe = false; // --unsafe
  std::string target_torch;    // "" → kDefaultFixTargetTorch
  // Files with the test role (analyzer/assess/roles.h): a test states what
  // the code must do, so fix leaves it alone unless include_tests (--include-tests).
  std::set<std::string> test_files;
  bool include_tests = false;
};

// A finding that was fixed, with what was done.
struct AppliedFix {
  Finding finding;
  FixSafety safety = FixSafety::Safe;
  std::string description;
};

// A finding with a fix definition that was not fixed, and why.
struct SkippedFix {
  Finding finding;
  std::string reason;
  bool unsafe_withheld = false; // a fix exists but needs --unsafe
};

// What fix saw of a file when it read it: what must still hold when the
// file is replaced, and the owner, group and mode the new file gets.
struct FileIdentity {
  std::uint64_t device = 0, inode = 0, links = 0;
  std::int64_t size = 0, modified_ns = 0;
  std::uint32_t mode = 0; // st_mode: type and permission bits
  std::uint32_t owner = 0, group = 0;
};
bool operator==(const FileIdentity &a, const FileIdentity &b);
inline bool operator!=(const FileIdentity &a, const FileIdentity &b) {
  return !(a == b);
}

// A file in a scanned tree, with every symlink resolved: `relative` names
// it below `root` with no symlink on the way, so it can be opened without
// following one (fix/fix_files.h).
struct TreePath {
  std::string root;     // the real path of the scanned directory
  std::string relative; // the real path below it
};

struct FileFix {
  std::string path;  // as in findings (relative to the scan root); a symlink's own name
  TreePath location; // the file that is replaced (a symlink's target)
  FileIdentity identity;
  std::string original;
  std::string fixed;
  std::vector<AppliedFix> fixes;
};

struct FixRun {
  std::vector<FileFix> files; // only files that change; after write_fixes, only files written
  std::vector<SkippedFix> skipped;
  std::vector<Diagnostic> diagnostics;
  std::size_t unfixable = 0; // findings whose rule has no fix at all
  // Files changed since the scan (plan_fixes), and files write_fixes refused
  // or failed to write: each with a diagnostic.
  std::size_t files_not_written = 0;
  std::size_t applied_count() const;
  std::size_t unsafe_withheld_count() const;
};

// Fixes one file held in memory: `findings` are the scan's findings of
// `text` (others are ignored), `facts` its facts or null. The unit of
// plan_fixes, and what unit tests drive.
struct SourceFix {
  std::string fixed; // the text itself when nothing applies
  std::vector<AppliedFix> applied;
  std::vector<SkippedFix> skipped;
  std::vector<Diagnostic> diagnostics;
};
SourceFix fix_source(const std::string &path, FileKind kind, const std::string &text,
                     const std::vector<Finding> &findings, const FileFacts *facts, const FixCatalog &catalog,
                     const FixOptions &options);

// Plans every fix for the findings of `result` (read again from disk).
// `roots` are the scanned paths as given (ScanOptions::paths): which tree
// each finding's file belongs to, and so which tree no symlink may lead
// out of. Empty: the scan's one root (ScanResult::root). The scan must keep
// content digests (ScanOptions::keep_content_digests): a file whose bytes
// now differ from those the scan read, or whose digest the scan did not
// keep, is not planned (an error, `file-changed`), since its findings'
// positions no longer fit it. write_fixes then checks, under the file's
// lock, that it still holds the bytes planned from.
FixRun plan_fixes(const ScanResult &result, const FixCatalog &catalog, const FixOptions &options,
                  const std::vector<std::string> &roots = {});

// A unified diff (`--- a/path`, `+++ b/path`, 3 lines of context).
std::string unified_diff(const std::string &path, std::string_view before, std::string_view after);

// Test seams of write_fixes.
struct FixWriteHooks {
  // Runs once the new text is written and synced beside the file, before
  // the last check that the file is unchanged and the rename.
  std::function<void(const FileFix &file)> before_rename;
};

// Writes every changed file: to a new temporary file beside it, with its
// owner, group and mode, synced, then renamed over it if it is still the
// file that was read (docs/fix.md, "Writing files"). A file not written
// (read-only, hard-linked, locked by another fix, changed since it was
// read, or a failed write) leaves run.files, its fixes join run.skipped,
// and a diagnostic says why. Returns false when any write failed or a file
// changed (an error); refusals on purpose (read-only, hard links) are notes
// and warnings.
bool write_fixes(FixRun &run, std::vector<Diagnostic> &diagnostics, const FixWriteHooks *hooks = nullptr);

} // namespace mpsaudit
