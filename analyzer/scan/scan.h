// One scan: discover files, extract facts on a thread pool, run project
// passes, evaluate rules, and return a deterministic result.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "core/finding.h"
#include "core/project_pass.h"
#include "core/source.h"
#include "rules/rule.h"
#include "scan/discover.h"
#include "workflow/workflow_summary.h"

namespace mpsaudit {

// Where a running scan is, for a progress line (`scan --progress`): the
// scan's threads write it with relaxed atomic stores and increments (no
// lock), a reporter thread reads it. `phase` points at a string literal.
struct ScanProgress {
  std::atomic<const char *> phase{"discovering files"};
  std::atomic<std::size_t> done{0};
  std::atomic<std::size_t> total{0}; // 0: the phase counts nothing
};

struct ScanOptions {
  std::vector<std::string> paths{"."};
  unsigned jobs = 0;                         // 0: number of cores
  std::uint64_t max_file_bytes = 10u << 20;  // larger files are skipped with a note
  bool use_git = true;                       // list as git would inside a work tree (.gitignore)
  std::string compile_commands_dir;          // -p DIR for C++/CUDA
  unsigned max_parse_ms = 10000;             // per-file parse time limit (--max-parse-time)
  std::uint64_t max_parse_memory_mib = 1024; // per-file clang parse memory (--max-parse-memory)
  // What to keep in ScanResult::project_files of each fact once its rules
  // have run: the assessment's inputs. What the project passes read
  // (ProjectPass::retention) and the facts whose rules wait for a pass are
  // kept until the passes and those rules have run. Unset keeps every fact.
  // Keeping little keeps the memory of a large scan flat.
  std::function<FactRetention(const Fact &fact)> retain_fact;
  // Names retain_fact in the result cache's key ("assessment"): entries keep
  // what it left, so scans that keep other facts must not share them.
  std::string retain_fact_name;
  // Words a Python file must contain for retain_fact to keep anything of it
  // beyond what the rules and passes read (assessment_python_triggers()).
  // With retain_fact set and no words, the Python prefilter is off.
  std::vector<std::string> retain_fact_python_triggers;
  // The Python prefilter (scan/python_prefilter.h): a Python file with none
  // of the words that the rules, passes and retain_fact need is parsed for
  // its syntax diagnostics only. Off: every file is extracted in full; so is
  // the environment variable MPSAUDIT_NO_PREFILTER=1.
  bool python_prefilter = true;
  // Which discovered files to read, by path relative to their scan root
  // (config include/exclude globs, --changed-since/--staged); empty: all.
  std::function<bool(const std::string &relative_path)> keep_file;
  // Of the files keep_file leaves out, those the safety rules (Rule::safety)
  // read all the same: a config that comes with the scanned tree may not
  // hide them. Only the safety rules' findings of such a file are kept, and
  // none of its facts. Unset: none.
  std::function<bool(const std::string &relative_path, FileKind kind)> keep_for_safety;
  // When the candidates are known before discovery (changed files, files
  // named by pre-commit), the paths relative to the one scan root that can
  // pass keep_file: discovery then asks about these alone instead of listing
  // the tree. keep_file still decides; unset: discover everything.
  std::optional<std::vector<std::string>> only_paths;
  // Non-empty when keep_file limits the scan to changed files: the label the
  // report puts on decision and effort, e.g. "files changed since origin/main".
  std::string partial_scan;
  // Updated as the scan goes when set; the caller owns it.
  ScanProgress *progress = nullptr;
  // The per-file result cache's directory (scan/result_cache.h); empty: no cache.
  std::string cache_directory;
  // Keep the SHA-256 of the bytes each file was scanned from
  // (FileRecord::content_sha256): fix edits a file only while it still
  // holds the bytes its findings were made from.
  bool keep_content_digests = false;
};

// What became of one discovered file.
struct FileRecord {
  std::string path;
  FileKind kind = FileKind::Unknown;
  std::string mode; // "ast", "lexical", "skipped", "error"
  std::uint64_t bytes = 0;
  std::uint32_t lines = 0;
  // SHA-256 (32 raw bytes) of the text the front end read, with
  // ScanOptions::keep_content_digests; else, or when no text was read, empty.
  // (`= {}` lets records be built from their first fields alone.)
  std::string content_sha256 = {};
};

// A torch API used by the scanned code, with its first location: the input
// of the runtime probe's operator mapping.
struct ApiUse {
  std::string name; // canonical, e.g. torch.nn.functional.grid_sample
  std::string path;
  std::uint32_t line = 0;
  std::uint32_t count = 0;
};

// Where a scan's time went (`scan --profile`): wall seconds per phase, in
// order, and for each file kind the seconds its front end spent (summed over
// threads) and how many files it read.
struct ScanProfile {
  struct FrontEnd {
    std::size_t files = 0;
    double seconds = 0;
  };
  std::vector<std::pair<std::string, double>> phases;
  std::map<std::string, FrontEnd> front_ends; // by file kind
  // Files whose facts came from the result cache, and files it had no entry for.
  std::size_t cache_hits = 0, cache_misses = 0;
  // The Python prefilter: the words searched for (0 when off, with why),
  // and the Python files (and their bytes) it spared the full extraction.
  struct Prefilter {
    std::size_t words = 0;
    std::string off_because;
    std::size_t files = 0, skipped_files = 0;
    std::uint64_t bytes = 0, skipped_bytes = 0;
  } python_prefilter;
};

struct ScanResult {
  std::string root; // the first scanned path, as given
  // The directory the paths of findings, files and diagnostics are relative
  // to, as given: the root itself, or a single file's directory ("." when
  // the file was named without one). JSON's `root` and SARIF's SRCROOT.
  std::string root_directory;
  // What a report puts before a relative path so that it reads from the
  // current directory, as ripgrep prints it: "pkg/" for `scan pkg`, "" for
  // `scan .`. With several roots, the first root's (path_for_display).
  std::string display_prefix;
  // With several roots, the prefixes the second and later roots' paths
  // carry already (their roots as given, ending in '/'), or a later file
  // root's own name when it sits in the current directory: such paths are
  // shown as they are.
  std::vector<std::string> other_root_prefixes;
  std::vector<FileRecord> files;
  // Entries found but not read, with why (scan/discover.h): with `files`
  // and `not_selected`, every entry of the tree that git does not ignore.
  std::vector<SkippedFile> skipped;
  // Files and skipped entries that keep_file left out: outside the config's
  // include/exclude globs or a partial scan's change set.
  std::size_t not_selected = 0;
  std::vector<Finding> findings;
  std::vector<Diagnostic> diagnostics;
  std::vector<ApiUse> api_uses;
  // Suppressions, per-path ignores, baseline, partial scan (workflow/workflow_summary.h).
  WorkflowSummary workflow;
  // Every file's facts after the project passes: the assessment's input
  // (component roles, kernel sizes, memory fit). Not written to reports.
  std::vector<ProjectFile> project_files;
  ScanProfile profile;
  // Findings a baseline already records: not reported as new, but the
  // assessment still counts them (a baseline must not hide the port).
  std::vector<Finding> baseline_findings;
  // Why the result cache was not used (e.g. a read-only directory), for one
  // note on standard error; empty when it was used or not asked for.
  std::string cache_note;
  bool has_errors() const;
  // Files a front end read (not skipped, not failed).
  std::size_t scanned_file_count() const;
};

ScanResult run_scan(const ScanOptions &options, const RuleCatalog &catalog);

// The directory a scan root's relative paths start from: the root when it is
// a directory, else the named file's directory ("." when it has none).
std::string directory_of_root(const std::string &root);
// A directory as an absolute, normal path without a trailing separator
// ("repo/" is the folder "repo"): its own name is the path's filename. Sets
// `error` when the directory cannot be resolved.
std::filesystem::path canonical_directory(const std::string &directory, std::error_code &error);
// `prefix + path` for a report shown to the user: a path the current
// directory can open (ScanResult::display_prefix); a later root's path as it
// is. Also for "path:line".
std::string path_for_display(const ScanResult &result, const std::string &path);
// A directory of the tree ("." for its top) read from the current directory.
std::string directory_for_display(const ScanResult &result, const std::string &directory);

} // namespace mpsaudit
