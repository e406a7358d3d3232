// The per-file result cache (docs/cache.md): what the scan keeps of one file
// once its front end has run and its first rules have met its facts
// (EarlyResult), kept on disk so that a second scan of an unchanged file
// neither parses it nor evaluates a rule on it, as ruff's cache does.
//
// An entry is keyed by the SHA-256 of everything that result depends on: the
// file's content, path and kind, the rule catalog, the extraction settings
// (config and flags), what the scan keeps of each fact (the session's goal and
// the inputs of the passes' retention, such as the operator-coverage tables),
// the tool build, and for C/C++/CUDA the content of every C/C++/CUDA file of
// the scan plus compile_commands.json (an edited header changes what its
// includers parse to). Its file name is that hash in hex, so no entry can name
// a path outside the cache directory. The answers the tree's layout gave
// (which imports are first-party) travel in the entry and are checked on load.
//
// Entries are written to a temporary file and renamed into place (concurrent
// runs at worst write the same entry twice), carry their key and a checksum
// (a truncated or corrupt entry is a miss and is rewritten), and the cache's
// size is bounded (kDefaultMaxBytes, oldest entries evicted first). Below
// the cache's root nothing is reached through a symbolic link: the entries
// folder, each shard folder and each entry are opened from their parent's
// descriptor with O_NOFOLLOW and must be this user's own, so links planted
// there (a cache kept inside the scanned tree) are misses, never read or
// written through.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/descriptor.h"
#include "core/fact.h"
#include "core/finding.h"
#include "core/source.h"
#include "rules/rule.h"
#include "scan/sha256.h"

namespace mpsaudit {

struct ExtractOptions;

// Bumped whenever the entry layout or the meaning of a key changes.
inline constexpr std::uint32_t kResultCacheFormat = 2;
// The cache's size bound unless MPSAUDIT_CACHE_MAX_BYTES says otherwise.
inline constexpr std::uint64_t kDefaultCacheMaxBytes = 512ull << 20;

// SHA-256 of `data` in 64 lowercase hex digits (sha256_raw: scan/sha256.h).
std::string sha256_hex(std::string_view data);

// `$XDG_CACHE_HOME/mpsaudit`, else `$HOME/.cache/mpsaudit`; empty when
// neither is set to an absolute path.
std::string default_cache_directory();

// A digest of the rules' content: what they match and report.
std::string catalog_fingerprint(const RuleCatalog &catalog);

// The running binary's size and modification time: a rebuilt tool does not
// trust what an older build wrote.
std::string executable_identity();

// A payload kept under `key` (32 raw bytes) in the cache at `directory`, with
// the checks of an entry (header, key echo, checksum): what the rule-catalog
// snapshot (scan/catalog_snapshot.h) keeps there. nullopt when absent or bad.
std::optional<std::string> load_cache_payload(const std::string &directory, std::string_view key);
void store_cache_payload(const std::string &directory, std::string_view key, std::string_view payload);

// What the scan keeps of one file after its first rules (scan/scan.cpp).
struct EarlyResult {
  // The front end's mode and diagnostics, and the facts kept for the project
  // passes and the assessment (or held back for the late rules).
  FileFacts facts;
  // The text of the lines those facts sit on, for the late rules' snippets.
  std::vector<std::pair<std::uint32_t, std::string>> fact_lines;
  // The first rules' findings, snippets included.
  std::vector<Finding> findings;
  struct ApiUse {
    std::string name;
    std::uint32_t first_line = 0;
    std::uint32_t count = 0;
  };
  std::vector<ApiUse> api_uses; // torch.* calls and attributes
  // Each top-level module this file imports that was asked of the tree's
  // layout (TreePackages), with the answer: a first-party import meets no
  // library rule, so the findings hold only while the answers do.
  std::vector<std::pair<std::string, bool>> tree_package_answers;
};

// An entry's bytes for `key` (32 raw bytes) and back. decode_entry accepts
// only an entry of this format whose key echo and checksum match, whose
// payload parses to its exact end and whose findings name rules of `catalog`
// (each finding's rule pointer is bound to it).
std::string encode_entry(std::string_view key, const EarlyResult &result);
std::optional<EarlyResult> decode_entry(std::string_view key, std::string_view bytes,
                                        const RuleCatalog &catalog);

class ResultCache {
public:
  // Opens (creating it if needed) the cache under `directory`. Null with
  // `note` set when it cannot be used, e.g. a read-only directory: the scan
  // then runs without it.
  // `retention` names what the scan keeps of each fact beyond the catalog
  // and the build: the session's goal and the passes' retention inputs.
  static std::unique_ptr<ResultCache> open(const std::string &directory, const RuleCatalog &catalog,
                                           const ExtractOptions &extract, std::string_view retention,
                                           std::string &note);

  // Whether a file of `kind` may be cached: not when its front end reads
  // other files than its own (requirements includes) or the file on disk
  // rather than the text the scan loaded (checkpoints), and C/C++/CUDA only
  // once set_cxx_inputs has named the files Clang may include.
  bool caches_kind(FileKind kind) const;

  // Files whose content enters the key of every C/C++/CUDA entry: the
  // tree's C, C++ and CUDA files. Call before the scan's threads start.
  void set_cxx_inputs(std::vector<std::string> absolute_paths);

  // The key (32 raw bytes) of `file`, whose text the scan has loaded.
  std::string key_for(const SourceFile &file);
  // The entry under `key` when it decodes and `still_holds` accepts it
  // (the scan checks the answers of the tree's layout); else nullopt, a miss.
  std::optional<EarlyResult> load(const std::string &key,
                                  const std::function<bool(const EarlyResult &)> &still_holds = {});
  void store(const std::string &key, const EarlyResult &result);
  // Trims the cache to its bound when this run added entries.
  void finish();

  std::size_t hits() const { return hits_.load(); }
  std::size_t misses() const { return misses_.load(); }

private:
  ResultCache(Descriptor entries_folder, std::string context, std::uint64_t max_bytes,
              const RuleCatalog &catalog);
  const std::string &cxx_digest();
  void trim();

  Descriptor entries_;         // <directory>/v<format>, opened without following a link
  std::string context_;        // digest of what every key shares
  const RuleCatalog &catalog_; // binds the findings of loaded entries
  std::uint64_t max_bytes_;
  std::vector<std::string> cxx_inputs_;
  bool cxx_inputs_known_ = false;
  std::once_flag cxx_once_;
  std::string cxx_digest_;
  std::mutex mutex_;
  std::atomic<std::size_t> hits_{0}, misses_{0};
  std::atomic<std::uint64_t> written_bytes_{0};
  std::atomic<bool> write_failed_{false};
};

} // namespace mpsaudit
