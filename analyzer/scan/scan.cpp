#include "scan/scan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

#include "core/confined_file.h"
#include "core/free_memory.h"
#include "core/project_pass.h"
#include "core/text.h"
#include "frontend/checkpoint/checkpoint_reader.h"
#include "frontend/frontend.h"
#include "frontend/python/python_frontend.h"
#include "rules/engine.h"
#include "scan/discover.h"
#include "scan/python_prefilter.h"
#include "scan/read_schedule.h"
#include "scan/result_cache.h"
#include "scan/sha256.h"
#include "scan/tree_packages.h"

namespace mpsaudit {
namespace {

// Longest source line quoted in a finding.
constexpr std::size_t kMaxSnippetBytes = 400;

// Whether a setup.py packages something: it names setuptools, distutils,
// scikit-build or torch's extension builder. Otherwise it is a plain module
// (`from config import setup` is not packaging).
bool is_packaging_script(std::string_view text) {
  for (std::string_view marker : {"setuptools", "distutils", "skbuild", "cpp_extension"})
    if (text.find(marker) != std::string_view::npos)
      return true;
  return false;
}

// Checkpoints are binary by nature; every other kind is text.
bool is_binary_kind(FileKind kind) {
  return kind == FileKind::Checkpoint;
}

std::string human_bytes(std::uint64_t bytes) {
  const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f MiB", mib);
  return buffer;
}

// Where the run put the skipped entry that discovery lists beside a file
// whose kind it guessed: none (the kind was known, or guessed from a text
// file's bytes), among the skipped entries, or counted as not selected.
enum class GuessPlaceholder : std::uint8_t { None, Skipped, NotSelected };

// One file's journey through the pipeline.
struct Work {
  std::size_t order = 0; // position in the scan, for deterministic merges
  DiscoveredFile file;
  double extract_seconds = 0; // in the front end (ScanProfile)
  bool prefiltered = false;   // a Python file the prefilter spared the full extraction
  bool safety_only = false;   // read only for the safety rules (ScanOptions::keep_for_safety)
  FileRecord record;
  FileFacts facts;
  // The text of every line a fact sits on, kept so that findings can quote
  // it after the file's text has been released.
  std::unordered_map<std::uint32_t, std::string> fact_lines;
  std::vector<Diagnostic> diagnostics;
  // A guessed kind (DiscoveredFile::kind_guessed) its front end refuted: the
  // file stays listed as skipped, unknown-kind, as if never guessed.
  bool guess_refuted = false;
  // Where the skipped entry of a kind discovery guessed is (discover.h).
  GuessPlaceholder guess_placeholder = GuessPlaceholder::None;
  // Inline `mpsaudit: ignore[...]` directives, applied after rule evaluation.
  FileSuppressions suppressions;
  SuppressionCounts suppression_counts;
  // Findings of the facts no project pass can change, made while the file
  // was in memory; the rest are evaluated after the passes.
  std::vector<Finding> findings;
  // torch.* calls and attributes of this file: name -> (first line, count);
  // merged into the scan's ApiUseTable as soon as the file is done.
  std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> api_uses;
  // The top-level modules of this file's imports asked of TreePackages, and
  // the answers (EarlyResult::tree_package_answers).
  std::vector<std::pair<std::string, bool>> tree_package_answers;
};

// The torch API uses of the whole scan, merged as each file finishes rather
// than held per file until the end (a per-file table costs about 1.5 KiB a
// file): name -> the first use in scan order, and the count.
class ApiUseTable {
public:
  void merge(Work &work) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &[name, use] : work.api_uses) {
      auto [it, inserted] = uses_.try_emplace(name, Use{work.order, use.first, 0});
      if (!inserted && work.order < it->second.order) {
        it->second.order = work.order;
        it->second.line = use.first;
      }
      it->second.count += use.second;
    }
    decltype(work.api_uses)().swap(work.api_uses);
  }
  std::vector<ApiUse> take(const std::vector<Work> &work) {
    std::vector<ApiUse> result;
    for (const auto &[name, use] : uses_)
      result.push_back({name, work[use.order].file.path, use.line, use.count});
    uses_.clear();
    return result;
  }

private:
  struct Use {
    std::size_t order = 0;
    std::uint32_t line = 0;
    std::uint32_t count = 0;
  };
  std::mutex mutex_;
  std::map<std::string, Use> uses_;
};

// What the per-file stage needs to know about the whole scan.
struct Stage {
  const ScanOptions &options;
  ExtractOptions extract;
  const RuleEngine &engine;
  // Kinds a project pass adds or annotates: their rules run after the passes.
  std::set<std::string, std::less<>> deferred;
  // What the passes read, by kind: each reader's retention (null: the
  // whole fact).
  std::map<std::string, std::vector<const std::function<FactRetention(const Fact &)> *>, std::less<>>
      pass_reads;
  // What the assessment keeps; null keeps every fact.
  const std::function<FactRetention(const Fact &)> *retain = nullptr;
  ApiUseTable *api_uses = nullptr;
  ResultCache *cache = nullptr; // null: every file goes through its front end
  // Set when the Python prefilter is on (scan/python_prefilter.h).
  std::optional<LiteralFilter> python_prefilter;
  // The tree's own packages: imports of them meet no rule (tree_packages.h).
  const TreePackages *tree_packages = nullptr;

  FactRetention retention(const Fact &fact) const {
    FactRetention result = retain ? (*retain)(fact) : FactRetention::Keep;
    const auto readers = pass_reads.find(fact.kind);
    if (readers != pass_reads.end())
      for (const auto *pass_retention : readers->second)
        result = std::max(result, *pass_retention ? (*pass_retention)(fact) : FactRetention::Keep);
    return result;
  }
  bool pass_keeps_whole(const Fact &fact) const {
    const auto readers = pass_reads.find(fact.kind);
    if (readers != pass_reads.end())
      for (const auto *pass_retention : readers->second)
        if (!*pass_retention || (*pass_retention)(fact) == FactRetention::Keep)
          return true;
    return false;
  }
};

std::string snippet_of(std::string_view line) {
  // A snippet quotes one line; minified code can put megabytes on one line.
  std::string snippet(line.substr(0, kMaxSnippetBytes));
  if (line.size() > kMaxSnippetBytes)
    snippet += " …";
  return snippet;
}

// Whether `module` is one of the tree's own packages, noting the answer for
// the result cache (EarlyResult::tree_package_answers).
bool is_first_party(Work &work, const Stage &stage, std::string_view module) {
  const bool provided = stage.tree_packages->provides(module);
  const std::string_view top = module.substr(0, module.find('.'));
  const bool noted = std::any_of(work.tree_package_answers.begin(), work.tree_package_answers.end(),
                                 [&](const auto &answer) { return answer.first == top; });
  if (!noted)
    work.tree_package_answers.emplace_back(std::string(top), provided);
  return provided;
}

// Evaluates the facts whose rules need no project pass, records the file's
// torch API uses, then drops what later stages do not read
// (Stage::retention): the passes and the assessment keep only the facts they
// look at, many of them by name only (FactRetention::NameOnly), since they
// ask which functions a file calls or imports, not how often or with what,
// and some once a file (FactRetention::Presence).
void evaluate_early_and_prune(Work &work, const Stage &stage, const LineIndex *index) {
  FileFacts early;
  std::vector<Fact> kept;
  // Keyed by the facts' interned texts: no copy per fact.
  std::set<std::tuple<InternedString, InternedString, InternedString, Guard>> seen_by_name;
  std::set<std::pair<InternedString, InternedString>> seen_at_all;
  for (Fact &fact : work.facts.facts) {
    if ((fact.kind == fact_kind::Call || fact.kind == fact_kind::Attribute) &&
        starts_with(fact.name, "torch.")) {
      auto [it, inserted] = work.api_uses.try_emplace(fact.name, fact.span.line, 0);
      ++it->second.second;
    }
    const bool deferred = stage.deferred.count(fact.kind) > 0;
    if (deferred) {
      if (index && fact.span.line > 0 && !fact.attribute("snippet"))
        work.fact_lines.try_emplace(fact.span.line, snippet_of(index->line_text(fact.span.line)));
      kept.push_back(std::move(fact));
      continue;
    }
    switch (stage.retention(fact)) {
    case FactRetention::Keep:
      // A pass may turn a fact it keeps whole into a finding at the same
      // line (mps-operator-coverage does): keep the line for its snippet.
      if (index && fact.span.line > 0 && stage.pass_keeps_whole(fact))
        work.fact_lines.try_emplace(fact.span.line, snippet_of(index->line_text(fact.span.line)));
      kept.push_back(fact);
      break;
    case FactRetention::NameOnly:
      if (seen_by_name.emplace(fact.kind, fact.name, fact.scope, fact.guard).second)
        kept.push_back(fact_at(fact, fact.kind, fact.name));
      break;
    case FactRetention::Presence:
      if (seen_at_all.emplace(fact.kind, fact.name).second)
        kept.push_back(fact_at(fact, fact.kind, fact.name));
      break;
    case FactRetention::Drop:
      break;
    }
    if (fact.kind == fact_kind::Import && stage.tree_packages && is_first_party(work, stage, fact.name))
      continue; // first-party: kept for the passes above, but no library rule's business
    early.facts.push_back(std::move(fact));
  }
  kept.shrink_to_fit(); // held until the assessment: no growth slack
  work.facts.facts = std::move(kept);
  work.findings = stage.engine.evaluate(work.file.path, work.file.kind, early, [&](std::uint32_t line) {
    return index ? snippet_of(index->line_text(line)) : std::string();
  });
}

// What the result cache keeps of `work` once its first rules have run.
EarlyResult early_result_of(const Work &work, std::vector<Diagnostic> front_end_diagnostics) {
  EarlyResult result;
  result.facts.mode = work.facts.mode;
  result.facts.diagnostics = std::move(front_end_diagnostics);
  result.facts.facts = work.facts.facts;
  result.fact_lines.assign(work.fact_lines.begin(), work.fact_lines.end());
  std::sort(result.fact_lines.begin(), result.fact_lines.end()); // the same entry for the same file
  result.findings = work.findings;
  for (const auto &[name, use] : work.api_uses)
    result.api_uses.push_back({name, use.first, use.second});
  result.tree_package_answers = work.tree_package_answers;
  return result;
}

// `work` as a cached EarlyResult left it: what extraction and the first
// rules would have made of the unchanged file.
void adopt_early_result(Work &work, EarlyResult &&cached) {
  work.facts = std::move(cached.facts);
  work.fact_lines.insert(std::make_move_iterator(cached.fact_lines.begin()),
                         std::make_move_iterator(cached.fact_lines.end()));
  work.findings = std::move(cached.findings);
  for (EarlyResult::ApiUse &use : cached.api_uses)
    work.api_uses.emplace(std::move(use.name), std::make_pair(use.first_line, use.count));
  work.tree_package_answers = std::move(cached.tree_package_answers);
}

// Whether the tree's layout still answers as it did when `cached` was made.
bool tree_answers_hold(const EarlyResult &cached, const Stage &stage) {
  return std::all_of(
      cached.tree_package_answers.begin(), cached.tree_package_answers.end(), [&](const auto &answer) {
        return stage.tree_packages && stage.tree_packages->provides(answer.first) == answer.second;
      });
}

// Whether a front end said that a file whose kind was guessed is not of
// that kind (SourceFile::kind_guessed): no facts, and its note.
bool is_refuted_guess(const FileFacts &facts) {
  return facts.facts.empty() &&
         std::any_of(facts.diagnostics.begin(), facts.diagnostics.end(),
                     [](const Diagnostic &diagnostic) { return diagnostic.code == "not-a-checkpoint"; });
}

// A text file that turned out binary may be a checkpoint under another name
// (a pickle saved as config.yaml loads all the same): when its first bytes
// say so, it is read as a checkpoint whose kind is guessed.
bool may_be_renamed_checkpoint(std::string_view binary_text) {
  constexpr std::size_t kSignatureBytes = 512;
  return checkpoint::has_checkpoint_signature(binary_text.substr(0, kSignatureBytes));
}

// A text file with NUL bytes is not read.
void skip_as_binary(Work &work) {
  work.diagnostics.push_back({DiagnosticLevel::Note, work.file.path, 0, "binary-file",
                              "contains NUL bytes; treated as binary and skipped"});
}

void load_and_extract(Work &work, const Stage &stage) {
  const ScanOptions &options = stage.options;
  const ExtractOptions &extract_options = stage.extract;
  const DiscoveredFile &file = work.file;
  work.record.path = file.path;
  work.record.kind = file.kind;
  work.record.mode = "skipped";

  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(file.absolute_path, error);
  if (error) {
    work.record.mode = "error";
    work.diagnostics.push_back({DiagnosticLevel::Error, file.path, 0, "unreadable", error.message()});
    return;
  }
  work.record.bytes = size;
  const Extractor *extractor = find_extractor(file.kind);
  if (!extractor) {
    work.diagnostics.push_back(
        {DiagnosticLevel::Note, file.path, 0, "no-frontend",
         "no front end for " + std::string(to_string(file.kind)) + " files in this build; skipped"});
    return;
  }
  SourceFile source;
  source.path = file.path;
  source.absolute_path = file.absolute_path;
  source.kind = file.kind;
  source.kind_guessed = file.kind_guessed;
  // An oversized checkpoint is still inspected: its extractor reads only the
  // parts it needs from absolute_path when `text` is empty. So is every
  // guessed one: a directory of dataset archives costs their directories,
  // not their bytes.
  const bool oversized = size > options.max_file_bytes || file.kind_guessed;
  if (oversized && !is_binary_kind(file.kind)) {
    work.diagnostics.push_back({DiagnosticLevel::Warning, file.path, 0, "file-too-large",
                                "skipped: " + human_bytes(size) + " exceeds the " +
                                    human_bytes(options.max_file_bytes) + " limit (--max-file-size)"});
    return;
  }
  if (!oversized) {
    const int fd = ::open(file.absolute_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      work.record.mode = "error";
      work.diagnostics.push_back({DiagnosticLevel::Error, file.path, 0, "unreadable",
                                  "cannot open the file (permission denied or removed)"});
      return;
    }
    std::optional<std::string> text = read_stated_size(fd, options.max_file_bytes);
    ::close(fd);
    if (!text) {
      work.record.mode = "error";
      work.diagnostics.push_back({DiagnosticLevel::Error, file.path, 0, "unreadable",
                                  "read error (or the file changed while it was read)"});
      return;
    }
    source.text = std::move(*text);
    if (options.keep_content_digests)
      work.record.content_sha256 = sha256_raw(source.text);
  }
  if (file.kind == FileKind::SetupPy && !oversized && !is_packaging_script(source.text)) {
    // A module that happens to be called setup.py (`eval/setup.py` building
    // a model) is Python code, and the Python rules apply to it.
    if (const Extractor *python = find_extractor(FileKind::Python)) {
      work.file.kind = source.kind = work.record.kind = FileKind::Python;
      extractor = python;
    }
  }
  const FileKind listed_kind = file.kind;
  if (!is_binary_kind(file.kind) && looks_binary(source.text)) {
    const Extractor *checkpoint_extractor = find_extractor(FileKind::Checkpoint);
    if (!checkpoint_extractor || !may_be_renamed_checkpoint(source.text)) {
      skip_as_binary(work);
      return;
    }
    work.file.kind = source.kind = work.record.kind = FileKind::Checkpoint;
    work.file.kind_guessed = source.kind_guessed = true;
    extractor = checkpoint_extractor;
  }
  if (!is_binary_kind(file.kind)) {
    const std::size_t invalid = find_invalid_utf8(source.text);
    if (invalid != std::string_view::npos) {
      const LineIndex index(source.text);
      work.diagnostics.push_back(
          {DiagnosticLevel::Warning, file.path, index.line_of(invalid), "invalid-utf8",
           "invalid UTF-8 at byte " + std::to_string(invalid) + "; the file was scanned as bytes"});
    }
    work.record.lines = static_cast<std::uint32_t>(count_newlines(source.text) +
                                                   (!source.text.empty() && source.text.back() != '\n'));
  }
  // An empty file costs its front end less than an entry.
  const bool cacheable = stage.cache && stage.cache->caches_kind(source.kind) && !source.text.empty();
  std::string key;
  bool from_cache = false;
  try {
    const auto started = std::chrono::steady_clock::now();
    if (cacheable) {
      key = stage.cache->key_for(source);
      std::optional<EarlyResult> cached =
          stage.cache->load(key, [&](const EarlyResult &entry) { return tree_answers_hold(entry, stage); });
      if ((from_cache = cached.has_value()))
        adopt_early_result(work, std::move(*cached));
    }
    if (!from_cache) {
      work.prefiltered = stage.python_prefilter && work.file.kind == FileKind::Python &&
                         !stage.python_prefilter->may_match(source.text);
      work.facts = work.prefiltered ? extract_python_syntax_only(source.text, source.path,
                                                                 extract_options.parse_timeout_ms)
                                    : (*extractor)(source, extract_options);
    }
    work.extract_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  } catch (const std::exception &exception) {
    work.record.mode = "error";
    work.diagnostics.push_back({DiagnosticLevel::Error, file.path, 0, "internal-error",
                                std::string("front end failed: ") + exception.what()});
    return;
  }
  if (file.kind_guessed && is_refuted_guess(work.facts)) {
    work.facts = FileFacts{};
    if (listed_kind == FileKind::Checkpoint) { // guessed by discovery
      work.guess_refuted = true;
      return;
    }
    work.file.kind = work.record.kind = listed_kind; // a binary text file, as before
    work.file.kind_guessed = false;
    skip_as_binary(work);
    return;
  }
  work.record.mode = work.facts.mode;
  std::vector<Diagnostic> front_end_diagnostics = std::move(work.facts.diagnostics);
  work.facts.diagnostics.clear();
  for (auto &diagnostic : front_end_diagnostics) {
    if (diagnostic.path.empty())
      diagnostic.path = file.path;
    work.diagnostics.push_back(diagnostic);
  }
  if (!is_binary_kind(file.kind))
    work.suppressions = find_suppressions(file.path, file.kind, source.text);
  if (!from_cache) {
    if (is_binary_kind(file.kind)) {
      evaluate_early_and_prune(work, stage, nullptr);
    } else {
      const LineIndex index(source.text);
      evaluate_early_and_prune(work, stage, &index);
    }
    // An error may be the run's rather than the file's (a parse timeout, a
    // missing C++ front end): such a result is not cached.
    if (cacheable && !has_error(front_end_diagnostics))
      stage.cache->store(key, early_result_of(work, std::move(front_end_diagnostics)));
  }
  // Only the result cache reads the answers, and it has them now.
  decltype(work.tree_package_answers)().swap(work.tree_package_answers);
  work.findings.shrink_to_fit(); // held until the merge: no growth slack
  stage.api_uses->merge(work);
}

// Each file whose kind discovery guessed is listed twice (discover.h): read,
// and skipped as unknown-kind. A confirmed guess keeps the file (and drops
// the skipped entry, and a single-file root's unknown-kind note); a refuted
// one keeps the skipped entry, so the report is what it was without guessing.
void settle_guessed_kinds(std::vector<Work> &work, ScanResult &result) {
  std::set<std::string> confirmed_paths, confirmed_roots;
  for (const Work &item : work)
    if (item.guess_placeholder != GuessPlaceholder::None && !item.guess_refuted) {
      confirmed_paths.insert(item.file.path);
      confirmed_roots.insert(item.file.absolute_path);
      result.not_selected -= item.guess_placeholder == GuessPlaceholder::NotSelected;
    }
  if (!confirmed_paths.empty()) {
    auto &skipped = result.skipped;
    skipped.erase(std::remove_if(skipped.begin(), skipped.end(),
                                 [&](const SkippedFile &entry) {
                                   return entry.reason == "unknown-kind" && confirmed_paths.count(entry.path);
                                 }),
                  skipped.end());
    auto &diagnostics = result.diagnostics;
    diagnostics.erase(std::remove_if(diagnostics.begin(), diagnostics.end(),
                                     [&](const Diagnostic &diagnostic) {
                                       return diagnostic.code == "unknown-kind" &&
                                              confirmed_roots.count(diagnostic.path);
                                     }),
                      diagnostics.end());
  }
  work.erase(std::remove_if(work.begin(), work.end(), [](const Work &item) { return item.guess_refuted; }),
             work.end());
}

// The words a Python file must contain to be worth a full extraction: the
// rules', the passes', the retained facts' and those of the torch API table
// (evaluate_early_and_prune records every torch.* call and attribute).
void set_up_python_prefilter(const ScanOptions &options, const RuleCatalog &catalog, Stage &stage,
                             ScanProfile::Prefilter &profile) {
  const char *disabled = std::getenv("MPSAUDIT_NO_PREFILTER");
  if (!options.python_prefilter || (disabled && *disabled && std::string_view(disabled) != "0")) {
    profile.off_because = "turned off";
    return;
  }
  if (options.retain_fact && options.retain_fact_python_triggers.empty()) {
    profile.off_because = "the retained facts name no words";
    return;
  }
  std::vector<std::string> words = options.retain_fact_python_triggers;
  words.push_back("torch");
  stage.python_prefilter =
      python_prefilter(catalog.rules(), frontend_project_passes(), words, profile.off_because);
  if (stage.python_prefilter)
    profile.words = stage.python_prefilter->words().size();
}

template <typename Fn> void parallel_for(std::size_t count, unsigned jobs, Fn &&body) {
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;)
      body(i);
  };
  run_on_threads(std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(count))), worker);
}

} // namespace

bool ScanResult::has_errors() const {
  return has_error(diagnostics);
}

std::size_t ScanResult::scanned_file_count() const {
  return static_cast<std::size_t>(std::count_if(files.begin(), files.end(), [](const FileRecord &file) {
    return file.mode != "skipped" && file.mode != "error";
  }));
}

std::string directory_of_root(const std::string &root) {
  std::error_code error;
  if (root.empty() || std::filesystem::is_directory(root, error))
    return root.empty() ? "." : root;
  const std::string parent = std::filesystem::path(root).parent_path().generic_string();
  return parent.empty() ? "." : parent;
}

std::filesystem::path canonical_directory(const std::string &directory, std::error_code &error) {
  std::filesystem::path path = std::filesystem::weakly_canonical(directory, error);
  if (path.has_parent_path() && path.filename().empty())
    path = path.parent_path();
  return path;
}

std::string path_for_display(const ScanResult &result, const std::string &path) {
  for (const std::string &root : result.other_root_prefixes) {
    const bool directory = !root.empty() && root.back() == '/';
    if (directory ? starts_with(path, root) || path + "/" == root  // a path of that root, or the root itself
                  : path == root || starts_with(path, root + ":")) // that file root, or a place in it
      return path;
  }
  return result.display_prefix + path;
}

std::string directory_for_display(const ScanResult &result, const std::string &directory) {
  if (directory != "." && directory != "./")
    return path_for_display(result, directory);
  return result.display_prefix.empty() ? "."
                                       : result.display_prefix.substr(0, result.display_prefix.size() - 1);
}

namespace {

// Starts a phase of the progress line: its name and how many files it counts.
void enter_phase(ScanProgress *progress, const char *phase, std::size_t total) {
  if (!progress)
    return;
  // The name first: a reader may briefly see the new name without its count,
  // never a count under the wrong name.
  progress->phase.store(phase, std::memory_order_relaxed);
  progress->done.store(0, std::memory_order_relaxed);
  progress->total.store(total, std::memory_order_relaxed);
}

void count_file_done(ScanProgress *progress) {
  if (progress)
    progress->done.fetch_add(1, std::memory_order_relaxed);
}

// `directory` ending in one slash, to be put before a relative path; empty
// stays empty.
std::string as_path_prefix(const std::string &directory) {
  return directory.empty() || directory.back() == '/' ? directory : directory + "/";
}

// A file read only for the safety rules: the rest of what the scan found in it
// stays out, as its exclusion asked (ScanOptions::keep_for_safety).
void keep_only_safety(std::vector<Finding> &findings, FileFacts &facts) {
  findings.erase(
      std::remove_if(findings.begin(), findings.end(),
                     [](const Finding &finding) { return !finding.rule || !finding.rule->safety; }),
      findings.end());
  decltype(facts.facts)().swap(facts.facts);
}

// The prefix that makes a path of the first root read from the current
// directory: none for "." or "./".
std::string display_prefix_of(const std::string &root_directory) {
  if (root_directory == "." || root_directory == "./")
    return {};
  return as_path_prefix(root_directory);
}

// What a root's discovered paths are prefixed with when it is not the
// first: the directory as given, or a file's directory (discovery names a
// file root by its file name).
std::string root_prefix(const std::string &root) {
  std::error_code error;
  if (std::filesystem::is_directory(root, error))
    return as_path_prefix(root);
  return as_path_prefix(std::filesystem::path(root).parent_path().generic_string());
}

// What the scan keeps of each fact, for the result cache's key: the
// session's retention and the inputs of the passes' retention.
std::string retention_key(const ScanOptions &options) {
  std::string key =
      options.retain_fact ? "keeps: " + options.retain_fact_name : std::string("keeps every fact");
  for (const auto &pass : frontend_project_passes())
    if (pass.retention_inputs)
      key += "\n" + pass.name + "\n" + pass.retention_inputs();
  return key;
}

} // namespace

ScanResult run_scan(const ScanOptions &options, const RuleCatalog &catalog) {
  ScanResult result;
  result.root = options.paths.empty() ? "." : options.paths.front();
  result.root_directory = directory_of_root(result.root);
  result.display_prefix = display_prefix_of(result.root_directory);
  result.workflow.partial_scan = options.partial_scan;
  const unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  // Phase timer for ScanProfile: each call records the time since the last.
  auto phase_started = std::chrono::steady_clock::now();
  auto end_phase = [&](std::string name) {
    const auto now = std::chrono::steady_clock::now();
    result.profile.phases.emplace_back(std::move(name),
                                       std::chrono::duration<double>(now - phase_started).count());
    phase_started = now;
  };

  std::vector<Work> work;
  std::vector<std::string> cxx_inputs; // every C/C++/CUDA file found, selected or not
  for (const auto &path : options.paths) {
    // only_paths names paths under a single root; with several it is unused.
    const bool narrowed = options.only_paths && options.paths.size() == 1;
    Discovery discovery = discover_files(path, options.use_git, narrowed ? &*options.only_paths : nullptr);
    for (auto &diagnostic : discovery.diagnostics)
      result.diagnostics.push_back(std::move(diagnostic));
    // With several roots, keep paths distinct by prefixing all but the first
    // with their root; a file root's own path is its name under its directory.
    const std::string prefix = &path != &options.paths.front() ? root_prefix(path) : std::string();
    const bool later_root = &path != &options.paths.front();
    if (later_root && !prefix.empty())
      result.other_root_prefixes.push_back(prefix);
    else if (later_root) // a file in the current directory: its own name
      for (const auto &file : discovery.files)
        result.other_root_prefixes.push_back(file.path);
    const auto for_safety = [&options](const std::string &relative, FileKind kind) {
      return options.keep_for_safety && options.keep_for_safety(relative, kind);
    };
    for (auto &skipped : discovery.skipped) {
      skipped.path = prefix + skipped.path;
      if (options.keep_file && !options.keep_file(skipped.path) &&
          !for_safety(skipped.path, classify_path(skipped.path)))
        ++result.not_selected;
      else
        result.skipped.push_back(std::move(skipped));
    }
    for (auto &file : discovery.files) {
      file.path = prefix + file.path;
      if (is_native_source(file.kind)) // Clang may include it: part of every C/C++/CUDA cache key
        cxx_inputs.push_back(file.absolute_path);
      const bool selected = !options.keep_file || options.keep_file(file.path);
      // A guessed kind's skipped entry (discover.h) went where the loop
      // above sent it: it is the file's, once the guess is confirmed.
      const GuessPlaceholder placeholder = !file.kind_guessed ? GuessPlaceholder::None
                                           : selected || for_safety(file.path, FileKind::Unknown)
                                               ? GuessPlaceholder::Skipped
                                               : GuessPlaceholder::NotSelected;
      if (!selected && !for_safety(file.path, file.kind)) {
        result.not_selected += placeholder == GuessPlaceholder::None; // else counted with its entry
        continue;
      }
      Work &item = work.emplace_back();
      item.order = work.size() - 1;
      item.safety_only = !selected;
      item.guess_placeholder = placeholder;
      item.file = std::move(file);
    }
  }

  const RuleEngine engine(catalog);
  ApiUseTable api_uses;
  Stage stage{options,   {}, engine, {}, {}, options.retain_fact ? &options.retain_fact : nullptr,
              &api_uses, {}, {}};
  stage.extract.compile_commands_dir = options.compile_commands_dir;
  stage.extract.root = result.root;
  stage.extract.roots = options.paths;
  stage.extract.max_file_bytes = options.max_file_bytes;
  stage.extract.parse_timeout_ms = options.max_parse_ms;
  stage.extract.parse_memory_bytes = std::min<std::uint64_t>(options.max_parse_memory_mib, 1ull << 40) << 20;
  const TreePackages tree_packages(result.root_directory);
  stage.tree_packages = &tree_packages;
  set_up_python_prefilter(options, catalog, stage, result.profile.python_prefilter);
  std::unique_ptr<ResultCache> cache;
  if (!options.cache_directory.empty()) {
    // A file the prefilter spares is cached with its syntax-only result.
    const std::string prefilter = stage.python_prefilter ? "\nprefilter on" : "\nprefilter off";
    cache = ResultCache::open(options.cache_directory, catalog, stage.extract,
                              retention_key(options) + prefilter, result.cache_note);
    // Discovery that looked only at named files (a partial scan) did not see
    // the headers those files include: their C/C++/CUDA files bypass the cache.
    if (cache && !(options.only_paths && options.paths.size() == 1))
      cache->set_cxx_inputs(std::move(cxx_inputs));
    stage.cache = cache.get();
  }
  for (const auto &pass : frontend_project_passes()) {
    stage.deferred.insert(pass.writes.begin(), pass.writes.end());
    for (const auto &kind : pass.reads)
      stage.pass_reads[kind].push_back(&pass.retention);
  }
  end_phase("discover");
  enter_phase(options.progress, "reading", work.size());
  // C/C++/CUDA files first, so that the Clang libraries' pages can go as soon
  // as the last of them is read (release_reading_memory), before most of the
  // tree's facts and findings are held. The results keep `work`'s order.
  std::vector<std::size_t> native_files, other_files;
  for (std::size_t i = 0; i < work.size(); ++i)
    (is_native_source(work[i].file.kind) ? native_files : other_files).push_back(i);
  std::atomic<std::size_t> native_files_left{native_files.size()};
  read_natives_first(native_files, other_files, jobs, extractors_loaded, [&](std::size_t i) {
    load_and_extract(work[i], stage);
    if (is_native_source(work[i].file.kind) && native_files_left.fetch_sub(1) == 1)
      release_reading_memory();
    count_file_done(options.progress);
  });
  if (cache) {
    cache->finish();
    result.profile.cache_hits = cache->hits();
    result.profile.cache_misses = cache->misses();
  }
  end_phase("read, extract facts, first rules");
  result.api_uses = api_uses.take(work); // before settle_guessed_kinds renumbers `work`
  settle_guessed_kinds(work, result);
  for (const auto &item : work) {
    ScanProfile::FrontEnd &front_end = result.profile.front_ends[std::string(to_string(item.file.kind))];
    ++front_end.files;
    front_end.seconds += item.extract_seconds;
    if (item.file.kind == FileKind::Python && stage.python_prefilter) {
      ScanProfile::Prefilter &prefilter = result.profile.python_prefilter;
      ++prefilter.files;
      prefilter.bytes += item.record.bytes;
      prefilter.skipped_files += item.prefiltered;
      prefilter.skipped_bytes += item.prefiltered ? item.record.bytes : 0;
    }
  }

  // Project passes see every file's remaining facts at once.
  std::vector<ProjectFile> project;
  project.reserve(work.size());
  for (auto &item : work)
    project.push_back(ProjectFile{item.file.path, item.file.kind, std::move(item.facts)});
  std::vector<std::size_t> facts_before_passes;
  for (const auto &file : project)
    facts_before_passes.push_back(file.facts.facts.size());
  end_phase("prepare project passes");
  enter_phase(options.progress, "project passes", 0);
  for (const auto &pass : frontend_project_passes()) {
    pass.run(project);
    end_phase("project pass " + pass.name);
  }

  // The deferred facts, and whatever the passes added, meet their rules now.
  enter_phase(options.progress, "late rules", work.size());
  parallel_for(work.size(), jobs, [&](std::size_t i) {
    FileFacts late;
    const auto &facts = project[i].facts.facts;
    for (std::size_t k = 0; k < facts.size(); ++k)
      if (k >= facts_before_passes[i] || stage.deferred.count(facts[k].kind))
        late.facts.push_back(facts[k]);
    const auto &lines = work[i].fact_lines;
    std::vector<Finding> findings = engine.evaluate(
        project[i].path, project[i].kind, late,
        [&lines](std::uint32_t line) {
          const auto it = lines.find(line);
          return it == lines.end() ? std::string() : it->second;
        },
        [&result](const std::string &location) { return path_for_display(result, location); });
    std::vector<Finding> &all = work[i].findings;
    all.insert(all.end(), std::make_move_iterator(findings.begin()), std::make_move_iterator(findings.end()));
    drop_redundant_findings(all);
    if (work[i].safety_only)
      keep_only_safety(all, project[i].facts);
    // Every pass has run and every rule has met its facts: what the
    // assessment does not read (facts kept for a pass or held back for the
    // late rules) can go now.
    if (stage.retain) {
      auto &kept = project[i].facts.facts;
      kept.erase(
          std::remove_if(kept.begin(), kept.end(),
                         [&](const Fact &fact) { return (*stage.retain)(fact) == FactRetention::Drop; }),
          kept.end());
      kept.shrink_to_fit();
    }
    decltype(work[i].fact_lines)().swap(work[i].fact_lines); // clear() would keep its bucket array
    work[i].suppression_counts =
        apply_suppressions(work[i].suppressions, all, engine, project[i].path, project[i].kind);
    count_file_done(options.progress);
  });

  end_phase("late rules, suppressions");
  enter_phase(options.progress, "merging", 0);
  std::size_t finding_count = 0;
  for (const auto &item : work)
    finding_count += item.findings.size();
  result.findings.reserve(result.findings.size() + finding_count);
  result.files.reserve(result.files.size() + work.size());
  for (std::size_t i = 0; i < work.size(); ++i) {
    result.files.push_back(std::move(work[i].record));
    result.workflow.suppressions += work[i].suppression_counts;
    for (auto &diagnostic : work[i].diagnostics)
      result.diagnostics.push_back(std::move(diagnostic));
    for (auto &finding : work[i].findings)
      result.findings.push_back(std::move(finding));
    std::vector<Finding>().swap(work[i].findings); // moved-from findings still hold their storage
  }
  result.project_files = std::move(project);
  std::sort(result.findings.begin(), result.findings.end(), finding_less);
  std::stable_sort(result.diagnostics.begin(), result.diagnostics.end(),
                   [](const Diagnostic &a, const Diagnostic &b) {
                     return std::tie(a.path, a.line, a.code) < std::tie(b.path, b.line, b.code);
                   });
  return_free_memory(); // the files' own findings vectors, and what the passes freed
  end_phase("merge, sort");
  return result;
}

} // namespace mpsaudit
