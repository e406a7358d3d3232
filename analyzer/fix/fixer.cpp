// Planning and writing fixes: from a scan's findings to the new text of
// every file they touch.
#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "core/text.h"
#include "fix/fix.h"
#include "fix/fix_files.h"
#include "fix/fix_kind.h"
#include "fix/python_module.h"
#include "scan/sha256.h"

namespace mpsaudit {
namespace fs = std::filesystem;

FixContext::FixContext(std::string path, FileKind kind, std::string text, const FileFacts *facts,
                       std::string target_torch, const FixCatalog *catalog)
    : path_(std::move(path)), kind_(kind), text_(std::move(text)), lines_(text_), facts_(facts),
      target_torch_(std::move(target_torch)), catalog_(catalog) {}

FixContext::~FixContext() = default;

bool FixContext::target_at_least(std::string_view release) const {
  return compare_releases(target_torch_, release) >= 0;
}

std::string FixContext::release_gate(std::string_view feature) const {
  const ReleaseFeature *entry = catalog_ ? catalog_->release(feature) : nullptr;
  if (!entry) // a kind asking for a feature the data lacks: never guess that it exists
    return "no [[release]] entry '" + std::string(feature) + "' in rules/fixes.toml";
  if (target_at_least(entry->min_torch))
    return {};
  return release_gate_reason(entry->min_torch, entry->summary, target_torch_);
}

std::size_t FixContext::offset(std::uint32_t line, std::uint32_t column) const {
  if (line == 0 || line > lines_.line_count())
    return text_.size();
  return std::min(text_.size(), lines_.line_start(line) + (column > 0 ? column - 1 : 0));
}

PythonModule &FixContext::python() {
  if (!python_)
    python_ = std::make_unique<PythonModule>(text_, facts_, target_torch_);
  return *python_;
}

std::size_t FixRun::applied_count() const {
  std::size_t count = 0;
  for (const auto &file : files)
    count += file.fixes.size();
  return count;
}

std::size_t FixRun::unsafe_withheld_count() const {
  return static_cast<std::size_t>(std::count_if(skipped.begin(), skipped.end(),
                                                [](const SkippedFix &skip) { return skip.unsafe_withheld; }));
}

namespace {

// Decides whether `finding` gets a fix at all: the definition to use, or a
// skip (with its reason) or nothing (`unfixable`: no fix for the rule).
const FixDefinition *select_fix(const Finding &finding, const FixCatalog &catalog, const FixOptions &options,
                                const std::string &target, std::vector<SkippedFix> &skipped,
                                std::size_t &unfixable) {
  if (finding.suppressed || (!options.rules.empty() && !options.rules.count(finding.rule_id)))
    return nullptr;
  const FixDefinition *definition = catalog.find(finding, target);
  if (!definition) {
    const bool rule_has_fixes =
        std::any_of(catalog.definitions().begin(), catalog.definitions().end(),
                    [&](const FixDefinition &candidate) { return candidate.rule_id == finding.rule_id; });
    const FixDefinition *newer = catalog.find_any_release(finding);
    if (!rule_has_fixes)
      ++unfixable;
    else if (!fix_edits_file_kind(finding.file_kind))
      skipped.push_back(
          {finding, std::string(to_string(finding.file_kind)) + " files are not edited", false});
    else if (newer)
      skipped.push_back(
          {finding, release_gate_reason(newer->min_torch, newer->min_torch_why, target), false});
    else
      skipped.push_back({finding, "no fix for `" + finding.name + "` at target release " + target, false});
    return nullptr;
  }
  if (options.test_files.count(finding.path) && !options.include_tests) {
    // A test says what the code must do: changing it can hide the very
    // difference it checks (a test comparing the CPU with CUDA).
    skipped.push_back({finding, "a test file: pass --include-tests to edit tests", false});
    return nullptr;
  }
  if (finding.guard != Guard::None) {
    skipped.push_back(
        {finding, "guarded (" + std::string(to_string(finding.guard)) + "): left as written", false});
    return nullptr;
  }
  if (!fix_edits_file_kind(finding.file_kind)) {
    skipped.push_back({finding, std::string(to_string(finding.file_kind)) + " files are not edited", false});
    return nullptr;
  }
  return definition;
}

// The edits accepted so far in one file, for overlap checks in O(log n):
// a file with thousands of fixes must not compare each with all the others.
// Replacements are kept as merged ranges (two that merely touch stay apart,
// as edits_overlap allows an insertion between them); insertions as points.
class AcceptedEdits {
public:
  bool overlaps(const TextEdit &edit) const {
    if (edit.begin == edit.end)
      return range_covers(edit.begin);
    // A replacement overlaps a range that starts before its end and ends
    // after its start, or an insertion strictly inside it.
    const auto range = ranges_.lower_bound(edit.end);
    if (range != ranges_.begin() && std::prev(range)->second > edit.begin)
      return true;
    const auto point = insertions_.upper_bound(edit.begin);
    return point != insertions_.end() && *point < edit.end;
  }
  void add(const TextEdit &edit) {
    if (edit.begin == edit.end) {
      insertions_.insert(edit.begin);
      return;
    }
    std::size_t begin = edit.begin, end = edit.end;
    // Merge the ranges this one overlaps (a fix's own edits may overlap).
    auto range = ranges_.lower_bound(end);
    while (range != ranges_.begin() && std::prev(range)->second > begin) {
      --range;
      begin = std::min(begin, range->first);
      end = std::max(end, range->second);
      range = ranges_.erase(range);
    }
    ranges_[begin] = end;
  }
  std::vector<TextEdit> edits;

private:
  // Whether `point` lies strictly inside an accepted range.
  bool range_covers(std::size_t point) const {
    const auto range = ranges_.lower_bound(point);
    return range != ranges_.begin() && std::prev(range)->second > point;
  }
  std::map<std::size_t, std::size_t> ranges_; // begin -> end, disjoint
  std::set<std::size_t> insertions_;
};

// Where the file imports a CUDA-only library (the MPS4xx family): a branch
// with such an import is a CUDA-only path (TensorRT, apex).
std::vector<std::size_t> cuda_only_import_offsets(FixContext &context, const std::vector<Finding> &findings) {
  std::vector<std::size_t> offsets;
  if (context.kind() != FileKind::Python)
    return offsets;
  for (const Finding &finding : findings)
    if (starts_with(finding.rule_id, "MPS4"))
      offsets.push_back(context.offset(finding.span.line, finding.span.column));
  return offsets;
}

// Why a finding sits in code that only runs with CUDA by design, where an
// edit would add nothing and obscure the code; "" when it does not. A device
// selection is the exception: its fix adds the MPS branch beside the CUDA one.
std::string cuda_only_by_design(FixContext &context, const FixDefinition &definition, const Finding &finding,
                                const std::vector<std::size_t> &cuda_only_imports) {
  if (context.kind() != FileKind::Python || definition.kind == "device-selection")
    return {};
  PythonModule &module = context.python();
  const std::size_t at = context.offset(finding.span.line, finding.span.column);
  const TSNode node =
      ts_node_descendant_for_byte_range(module.root(), static_cast<uint32_t>(at), static_cast<uint32_t>(at));
  return ts_node_is_null(node) ? std::string() : module.cuda_only_branch(node, cuda_only_imports);
}

std::string target_of(const FixOptions &options) {
  return options.target_torch.empty() ? std::string(kDefaultFixTargetTorch) : options.target_torch;
}

} // namespace

SourceFix fix_source(const std::string &path, FileKind kind, const std::string &text,
                     const std::vector<Finding> &findings, const FileFacts *facts, const FixCatalog &catalog,
                     const FixOptions &options) {
  SourceFix out;
  out.fixed = text;
  const std::string target = target_of(options);
  FixContext context(path, kind, text, facts, target, &catalog);
  AcceptedEdits accepted;
  bool torch_import = false, module_device = false;
  // tree-sitter recovers from syntax errors, but where it puts the nodes
  // around an error is a guess: fix edits only files that parse.
  const bool unparsable = kind == FileKind::Python && context.python().has_error();
  const std::vector<std::size_t> cuda_only_imports = cuda_only_import_offsets(context, findings);
  for (const Finding &finding : findings) {
    std::size_t unfixable = 0;
    const FixDefinition *definition = select_fix(finding, catalog, options, target, out.skipped, unfixable);
    if (!definition)
      continue;
    if (unparsable) {
      out.skipped.push_back({finding, "the file has syntax errors; fix edits only files that parse", false});
      continue;
    }
    if (const std::string why = cuda_only_by_design(context, *definition, finding, cuda_only_imports);
        !why.empty()) {
      out.skipped.push_back({finding, why + ": it runs only with CUDA by design; left as written", false});
      continue;
    }
    const FixKindEntry *entry = fix_registry().find(definition->kind);
    FixOutcome outcome;
    try {
      outcome = entry->plan(context, finding);
    } catch (const std::exception &exception) {
      // A fix kind must never take the run down with it.
      outcome = FixOutcome::none(std::string("internal error: ") + exception.what());
    }
    if (!outcome.plan) {
      out.skipped.push_back({finding, outcome.reason, false});
      continue;
    }
    PlannedFix &fix = *outcome.plan;
    const FixSafety safety = fix.shown_safe ? fix.safety : worse(definition->safety, fix.safety);
    if (safety == FixSafety::Unsafe && !options.include_unsafe) {
      out.skipped.push_back({finding, "unsafe fix (" + fix.description + "): pass --unsafe to apply", true});
      continue;
    }
    const bool conflict = std::any_of(fix.edits.begin(), fix.edits.end(),
                                      [&](const TextEdit &edit) { return accepted.overlaps(edit); });
    if (conflict) {
      out.skipped.push_back({finding, "overlaps another fix on this line; run fix again", false});
      continue;
    }
    for (const TextEdit &edit : fix.edits)
      accepted.add(edit);
    accepted.edits.insert(accepted.edits.end(), fix.edits.begin(), fix.edits.end());
    torch_import = torch_import || fix.needs_torch_import;
    module_device = module_device || fix.needs_module_device;
    out.applied.push_back({finding, safety, fix.description});
  }
  if (out.applied.empty())
    return out;

  auto give_up = [&](DiagnosticLevel level, const std::string &code, const std::string &message,
                     const std::string &reason) {
    out.diagnostics.push_back({level, path, 0, code, message});
    for (auto &applied : out.applied)
      out.skipped.push_back({std::move(applied.finding), reason, false});
    out.applied.clear();
    out.fixed = text;
  };
  if (kind == FileKind::Python && (torch_import || module_device)) {
    const TextEdit prelude = context.python().prelude_edit(
        torch_import && context.python().torch_binding().empty(), module_device);
    if (accepted.overlaps(prelude)) {
      give_up(DiagnosticLevel::Warning, "fix-conflict",
              "a fix overlaps where the module device goes; nothing was changed in this file",
              "overlaps the module device");
      return out;
    }
    accepted.edits.push_back(prelude);
  }
  out.fixed = apply_edits(text, accepted.edits);
  if (kind == FileKind::Python) {
    // The safety net: a fix never turns a file Python can parse into one it
    // cannot.
    const PythonModule check(out.fixed, nullptr, target);
    if (check.has_error() && !context.python().has_error())
      give_up(DiagnosticLevel::Error, "fix-broke-syntax",
              "the fixes for this file would not parse; nothing was changed in it",
              "the fixed file would not parse");
  }
  return out;
}

namespace {

// The scanned directory a finding's path is relative to, and the path below
// it. The scan names files of its first path relative to that path, and
// files of the others as `<path>/<relative>` (run_scan); a path that is a
// file stands for its directory.
std::pair<std::string, std::string> locate(const std::string &path, const std::vector<std::string> &roots) {
  auto directory_of = [](const std::string &root) {
    std::error_code error;
    if (fs::is_directory(root, error))
      return root;
    const std::string parent = fs::path(root).parent_path().string();
    return parent.empty() ? std::string(".") : parent;
  };
  for (std::size_t i = 1; i < roots.size(); ++i) {
    if (!starts_with(path, roots[i] + "/"))
      continue;
    const std::string below = path.substr(roots[i].size() + 1);
    std::error_code error;
    if (fs::is_directory(roots[i], error))
      return {roots[i], below};
    return {directory_of(roots[i]), fs::path(roots[i]).filename().string()};
  }
  return {directory_of(roots.empty() ? "." : roots.front()), path};
}

// A file with findings to fix, as read from disk.
struct ReadFile {
  std::string path;
  TreePath location;
  FileIdentity identity;
  std::string text;
  const std::vector<Finding> *findings = nullptr;
  bool via_symlink = false; // its name, or a directory on the way, is a symlink
};

// Reads the files of `by_path`, each once: several names for one file (a
// symlink inside the tree and its target, two symlinks) yield one entry,
// under the name that is not a symlink when there is one. Files that cannot
// be read, or only through a symlink out of their tree, become diagnostics
// and skips.
std::vector<ReadFile> read_files(const std::map<std::string, std::vector<Finding>> &by_path,
                                 const std::vector<std::string> &roots, FixRun &run) {
  std::vector<ReadFile> files;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> by_inode;
  std::vector<std::pair<std::string, std::size_t>> aliases; // a name, and the entry it reaches
  for (const auto &[path, findings] : by_path) {
    const auto [root, below] = locate(path, roots);
    Diagnostic problem;
    auto location = resolve_in_tree(root, below, problem);
    ReadFile file{path, {}, {}, {}, &findings, false};
    std::string error;
    std::optional<std::string> text;
    if (location)
      text = read_in_tree(*location, file.identity, error);
    if (!location || !text) {
      if (location)
        problem = {DiagnosticLevel::Error, path, 0, "unreadable", "cannot read the file to fix it: " + error};
      problem.path = path;
      for (const auto &finding : findings)
        run.skipped.push_back({finding, problem.message, false});
      run.diagnostics.push_back(std::move(problem));
      continue;
    }
    file.location = std::move(*location);
    file.text = std::move(*text);
    file.via_symlink = file.location.relative != fs::path(below).lexically_normal().generic_string();
    const auto key = std::make_pair(file.identity.device, file.identity.inode);
    const auto known = by_inode.find(key);
    if (known == by_inode.end()) {
      by_inode.emplace(key, files.size());
      files.push_back(std::move(file));
    } else if (!file.via_symlink && files[known->second].via_symlink) {
      // The target itself comes after a symlink to it: fix it by its own name.
      aliases.emplace_back(files[known->second].path, known->second);
      files[known->second] = std::move(file);
    } else {
      aliases.emplace_back(path, known->second);
    }
  }
  for (const auto &[alias, index] : aliases)
    run.diagnostics.push_back({DiagnosticLevel::Note, alias, 0, "same-file",
                               "the same file as " + files[index].path + ", which fix edits once"});
  return files;
}

// The SHA-256 of the bytes the scan read of each file (ScanOptions::keep_content_digests).
std::map<std::string, std::string_view> scanned_digests(const ScanResult &result) {
  std::map<std::string, std::string_view> digests;
  for (const auto &record : result.files)
    if (!record.content_sha256.empty())
      digests.emplace(record.path, record.content_sha256);
  return digests;
}

// Whether fix read the very bytes the scan made the file's findings from.
// Another fix (or an editor) may have rewritten the file in between; the
// findings' positions then point into other text, and edits planned from
// them could fix a line twice or break it.
bool holds_scanned_bytes(const ReadFile &file, const std::map<std::string, std::string_view> &digests) {
  const auto digest = digests.find(file.path);
  return digest != digests.end() && digest->second == sha256_raw(file.text);
}

// A file fix does not plan because it changed since the scan: an error, and
// its findings are left as written.
void refuse_changed_since_scan(const ReadFile &file, FixRun &run) {
  run.diagnostics.push_back({DiagnosticLevel::Error, file.path, 0, "file-changed",
                             "the file changed since the scan read it; fix did not edit it (run fix again)"});
  for (const auto &finding : *file.findings)
    run.skipped.push_back({finding, "not edited: the file changed since the scan read it", false});
  ++run.files_not_written;
}

} // namespace

FixRun plan_fixes(const ScanResult &result, const FixCatalog &catalog, const FixOptions &options,
                  const std::vector<std::string> &roots) {
  FixRun run;
  const std::string target = target_of(options);
  std::map<std::string, const FileFacts *> facts_by_path;
  for (const auto &file : result.project_files)
    facts_by_path[file.path] = &file.facts;

  // Files with at least one finding to fix, with all their findings.
  std::map<std::string, std::vector<Finding>> by_path;
  for (const Finding &finding : result.findings) {
    if (select_fix(finding, catalog, options, target, run.skipped, run.unfixable))
      by_path[finding.path].push_back(finding);
  }
  const std::vector<std::string> scanned =
      roots.empty() ? std::vector<std::string>{result.root.empty() ? "." : result.root} : roots;
  const auto digests = scanned_digests(result);
  for (auto &file : read_files(by_path, scanned, run)) {
    if (!holds_scanned_bytes(file, digests)) {
      refuse_changed_since_scan(file, run);
      continue;
    }
    const auto &findings = *file.findings;
    const auto facts = facts_by_path.find(file.path);
    SourceFix fixed = fix_source(file.path, findings.front().file_kind, file.text, findings,
                                 facts == facts_by_path.end() ? nullptr : facts->second, catalog, options);
    run.skipped.insert(run.skipped.end(), std::make_move_iterator(fixed.skipped.begin()),
                       std::make_move_iterator(fixed.skipped.end()));
    run.diagnostics.insert(run.diagnostics.end(), fixed.diagnostics.begin(), fixed.diagnostics.end());
    if (fixed.applied.empty() || fixed.fixed == file.text)
      continue;
    FileFix fix;
    fix.path = file.path;
    fix.location = std::move(file.location);
    fix.identity = file.identity;
    fix.original = std::move(file.text);
    fix.fixed = std::move(fixed.fixed);
    fix.fixes = std::move(fixed.applied);
    run.files.push_back(std::move(fix));
  }
  return run;
}

} // namespace mpsaudit
