// The per-file result cache (docs/cache.md): what a front end extracted from
// one file, kept on disk so that a second scan of an unchanged file skips its
// parser, as ruff's cache does.
//
// An entry is keyed by the SHA-256 of everything the front end's output
// depends on: the file's content, path and kind, the rule catalog, the
// extraction settings (config and flags), the tool build, and for C/C++/CUDA
// the content of every C/C++/CUDA file of the scan plus compile_commands.json
// (an edited header changes what its includers parse to). Its file name is
// that hash in hex, so no entry can name a path outside the cache directory.
//
// Entries are written to a temporary file and renamed into place (concurrent
// runs at worst write the same entry twice), carry their key and a checksum
// (a truncated or corrupt entry is a miss and is rewritten), and the cache's
// size is bounded (kDefaultMaxBytes, oldest entries evicted first).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "core/source.h"
#include "rules/rule.h"

namespace mpsaudit {

struct ExtractOptions;

// Bumped whenever the entry layout or the meaning of a key changes.
inline constexpr std::uint32_t kResultCacheFormat = 1;
// The cache's size bound unless MPSAUDIT_CACHE_MAX_BYTES says otherwise.
inline constexpr std::uint64_t kDefaultCacheMaxBytes = 512ull << 20;

// SHA-256 of `data`, 32 raw bytes / 64 lowercase hex digits.
std::string sha256_raw(std::string_view data);
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

// An entry's bytes for `key` (32 raw bytes) and back. decode_entry accepts
// only an entry of this format whose key echo and checksum match and whose
// payload parses to its exact end.
std::string encode_entry(std::string_view key, const FileFacts &facts);
std::optional<FileFacts> decode_entry(std::string_view key, std::string_view bytes);

class ResultCache {
public:
  // Opens (creating it if needed) the cache under `directory`. Null with
  // `note` set when it cannot be used, e.g. a read-only directory: the scan
  // then runs without it.
  static std::unique_ptr<ResultCache> open(const std::string &directory, const RuleCatalog &catalog,
                                           const ExtractOptions &extract, std::string &note);

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
  std::optional<FileFacts> load(const std::string &key);
  void store(const std::string &key, const FileFacts &facts);
  // Trims the cache to its bound when this run added entries.
  void finish();

  std::size_t hits() const { return hits_.load(); }
  std::size_t misses() const { return misses_.load(); }

private:
  ResultCache(std::string entries_directory, std::string context, std::uint64_t max_bytes);
  std::string entry_path(std::string_view key) const;
  const std::string &cxx_digest();
  void trim();

  std::string entries_; // <directory>/v<format>
  std::string context_; // digest of what every key shares
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
