#include "scan/result_cache.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "core/confined_file.h"
#include "core/descriptor.h"
#include "core/fnv1a.h"
#include "core/text.h"
#include "frontend/cxx/cxx_plugin.h"
#include "frontend/frontend.h"
#include "scan/cache_codec.h"

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

using cache_codec::KeyBuilder;
using cache_codec::Reader;
using cache_codec::Writer;

// ---- entry encoding ----

constexpr char kMagic[8] = {'M', 'P', 'S', 'C', 'A', 'C', 'H', 'E'};
constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kHeaderBytes = sizeof kMagic + 4 + kKeyBytes + 8 + 8;
// How often a run that wrote entries checks the cache's size.
constexpr std::int64_t kTrimIntervalSeconds = 3600;
// C/C++/CUDA files up to this size enter the C-family key by content.
constexpr std::uint64_t kMaxHashedHeaderBytes = 16ull << 20;
// No front end's facts for one file come near this; a larger entry is junk.
constexpr std::uint64_t kMaxEntryBytes = 256ull << 20;

std::uint64_t rotate_left(std::uint64_t value, int bits) {
  return (value << bits) | (value >> (64 - bits));
}

// A checksum over the payload that catches truncation and bit rot (the
// directory is the user's own, so no adversary forges entries). A warm scan
// checks every entry it reads: the payload goes in 8-byte words through four
// independent lanes (xxHash's round: each step is a bijection, so one changed
// word always changes its lane), several times faster than FNV-1a's byte at a
// time; the tail under 32 bytes goes through FNV-1a.
std::uint64_t checksum(std::string_view data) {
  constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
  constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
  std::uint64_t lanes[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
                            0x082EFA98EC4E6C89ull};
  std::size_t at = 0;
  for (; at + 32 <= data.size(); at += 32)
    for (std::size_t lane = 0; lane < 4; ++lane) {
      std::uint64_t word = 0;
      std::memcpy(&word, data.data() + at + 8 * lane, sizeof word);
      lanes[lane] = rotate_left(lanes[lane] + word * kPrime2, 31) * kPrime1;
    }
  std::uint64_t sum = fnv1a(data.substr(at)) ^ data.size();
  for (std::uint64_t lane : lanes)
    sum = rotate_left(sum ^ lane, 27) * kPrime1 + kPrime2;
  return sum;
}

constexpr auto kMaxGuard = static_cast<std::uint8_t>(Guard::CpuFallback);
constexpr auto kMaxLevel = static_cast<std::uint8_t>(DiagnosticLevel::Error);
constexpr auto kMaxFileKind = static_cast<std::uint8_t>(FileKind::Unknown);

// Stops compiling when a field is added to or removed from what an entry
// holds: write_fact and read_fact must learn it, and kResultCacheFormat go up,
// or warm scans would silently lose the new field.
[[maybe_unused]] void entry_fields_are_all_written(const EarlyResult &result, const FileFacts &facts,
                                                   const Fact &fact, const Argument &argument,
                                                   const Diagnostic &diagnostic, const Finding &finding) {
  [[maybe_unused]] const auto &[r1, r2, r3, r4, r5] = result;
  [[maybe_unused]] const auto &[u1, u2, u3] = result.api_uses.front();
  [[maybe_unused]] const auto &[n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, n13, n14, n15, n16] =
      finding;
  [[maybe_unused]] const auto &[f1, f2, f3] = facts;
  [[maybe_unused]] const auto &[g1, g2, g3, g4, g5, g6, g7, g8, g9, g10] = fact;
  [[maybe_unused]] const auto &[s1, s2, s3, s4] = fact.span;
  [[maybe_unused]] const auto &[a1, a2, a3, a4, a5, a6] = argument;
  [[maybe_unused]] const auto &[d1, d2, d3, d4, d5] = diagnostic;
}

void write_span(Writer &writer, const Span &span) {
  writer.u32(span.line);
  writer.u32(span.column);
  writer.u32(span.end_line);
  writer.u32(span.end_column);
}

Span read_span(Reader &reader) {
  Span span;
  span.line = reader.u32();
  span.column = reader.u32();
  span.end_line = reader.u32();
  span.end_column = reader.u32();
  return span;
}

void write_fact(Writer &writer, const Fact &fact) {
  writer.str(fact.kind);
  writer.str(fact.name);
  write_span(writer, fact.span);
  writer.u32(static_cast<std::uint32_t>(fact.arguments.size()));
  for (const Argument &argument : fact.arguments) {
    writer.str(argument.keyword);
    writer.str(argument.text);
    writer.str(argument.canonical);
    writer.str(argument.value);
    writer.u8(argument.is_string ? 1 : 0);
    write_span(writer, argument.written_at);
  }
  writer.u32(static_cast<std::uint32_t>(fact.attributes.size()));
  for (const auto &[key, value] : fact.attributes) {
    writer.str(key);
    writer.str(value);
  }
  writer.u8(static_cast<std::uint8_t>(fact.guard));
  writer.str(fact.scope);
  writer.u8(fact.in_forward ? 1 : 0);
  writer.u32(static_cast<std::uint32_t>(fact.cell));
  writer.u32(fact.cell_line);
}

Fact read_fact(Reader &reader) {
  Fact fact;
  fact.kind = reader.str();
  fact.name = reader.str();
  fact.span = read_span(reader);
  fact.arguments.resize(reader.count(33));
  for (Argument &argument : fact.arguments) {
    argument.keyword = reader.str();
    argument.text = reader.str();
    argument.canonical = reader.str();
    argument.value = reader.str();
    argument.is_string = reader.u8() != 0;
    argument.written_at = read_span(reader);
  }
  const std::size_t attributes = reader.count(8);
  fact.attributes.reserve(attributes);
  for (std::size_t i = 0; i < attributes; ++i) {
    std::string key = reader.str();
    fact.attributes.emplace_back(std::move(key), reader.str());
  }
  const std::uint8_t guard = reader.u8();
  if (guard > kMaxGuard)
    reader.failed = true;
  fact.guard = static_cast<Guard>(guard);
  fact.scope = reader.str();
  fact.in_forward = reader.u8() != 0;
  fact.cell = static_cast<int>(reader.u32());
  fact.cell_line = reader.u32();
  return fact;
}

// Reads a regular file without following a symbolic link, up to `limit` bytes.
std::optional<std::string> read_regular_file(const std::string &path, std::uint64_t limit) {
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  return file.valid() ? read_stated_size(file.get(), limit) : std::nullopt;
}

// A file's size and modification time, or "none".
std::string file_identity(const std::string &path) {
  struct stat info {};
  if (path.empty() || ::stat(path.c_str(), &info) != 0)
    return "none";
  return std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec);
}

// The C/C++/CUDA front end is a plugin beside the binary, or where
// MPSAUDIT_CXX_PLUGIN points (frontend/cxx/cxx_lazy_frontend.cpp): a
// rebuilt or another plugin parses differently.
std::string cxx_plugin_identity() {
  const char *explicit_path = std::getenv("MPSAUDIT_CXX_PLUGIN");
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  const std::string beside = error ? std::string() : (self.parent_path() / kCxxPluginFileName).string();
  return std::string(explicit_path ? explicit_path : "") + "|" +
         file_identity(explicit_path ? explicit_path : "") + "|" + file_identity(beside);
}

std::uint64_t cache_max_bytes() {
  if (const char *text = std::getenv("MPSAUDIT_CACHE_MAX_BYTES"); text && *text) {
    char *end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (end && *end == '\0' && value > 0)
      return value;
  }
  return kDefaultCacheMaxBytes;
}

std::string unique_suffix() {
  static std::atomic<std::uint64_t> counter{0};
  std::random_device device;
  return std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
         std::to_string(device());
}

// The cache's folders below its root: `v<format>`, then a shard folder per
// first byte of a key (so that no folder holds more than a few thousand
// entries), then the entries. When the cache lives inside the scanned tree
// (a CI workspace) the tree can plant any of them as a symbolic link, so each
// is opened from its parent's descriptor with O_NOFOLLOW, and must be a real
// folder of this user's; a link anywhere below the root is never followed,
// for reading or writing. The root itself is the one the user named.
constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// `name` in the folder `parent`, when it is a real folder owned by this
// user; created (mode 0700) first when `create`. Invalid otherwise, with
// errno set.
Descriptor open_own_folder(int parent, const std::string &name, bool create) {
  if (create && ::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST)
    return Descriptor();
  Descriptor folder(::openat(parent, name.c_str(), kFolderFlags));
  struct stat info {};
  if (!folder.valid())
    return folder;
  if (::fstat(folder.get(), &info) != 0)
    return Descriptor();
  if (!S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) {
    errno = EACCES;
    return Descriptor();
  }
  return folder;
}

// The shard folder of `key` (32 raw bytes) and the entry's name in it.
std::pair<std::string, std::string> entry_name(std::string_view key) {
  std::string hex = to_hex(key);
  std::string shard = hex.substr(0, 2);
  return {std::move(shard), std::move(hex)};
}

// The bytes of the entry under `key`, read without following a link at its
// shard folder or at its own name; nullopt when it is not there or not a
// regular file of at most `limit` bytes. `fd_out` (when given) receives the
// open entry for the caller to close.
std::optional<std::string> read_entry_file(int entries, std::string_view key, std::uint64_t limit,
                                           struct stat *info_out = nullptr, int *fd_out = nullptr) {
  const auto [shard_name, name] = entry_name(key);
  const Descriptor shard = open_own_folder(entries, shard_name, false);
  if (!shard.valid())
    return std::nullopt;
  Descriptor file(::openat(shard.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!file.valid())
    return std::nullopt;
  std::optional<std::string> data = read_stated_size(file.get(), limit, info_out);
  if (data && fd_out)
    *fd_out = file.release();
  return data;
}

enum class EntryWrite { Written, Refused, Failed };

// Writes `bytes` beside the entry of `key`, then renames it into place: a
// reader sees the whole entry or none, and two runs writing the same entry
// both leave a whole one; the rename replaces a link planted at the entry's
// name rather than writing through it. Refused when the shard folder is not
// a real folder of this user's; Failed when the write failed (a full disk).
EntryWrite write_entry_file(int entries, std::string_view key, std::string_view bytes) {
  const auto [shard_name, name] = entry_name(key);
  if (::mkdirat(entries, shard_name.c_str(), 0700) != 0 && errno != EEXIST)
    return EntryWrite::Failed;
  const Descriptor shard = open_own_folder(entries, shard_name, false);
  if (!shard.valid())
    return EntryWrite::Refused;
  const std::string temporary = ".tmp." + unique_suffix();
  Descriptor file(
      ::openat(shard.get(), temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file.valid())
    return EntryWrite::Failed;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote = ::write(file.get(), bytes.data() + done, bytes.size() - done);
    if (wrote <= 0)
      break;
    done += static_cast<std::size_t>(wrote);
  }
  const bool complete = done == bytes.size();
  if (!file.close() || !complete ||
      ::renameat(shard.get(), temporary.c_str(), shard.get(), name.c_str()) != 0) {
    ::unlinkat(shard.get(), temporary.c_str(), 0);
    return EntryWrite::Failed;
  }
  return EntryWrite::Written;
}

// The names in the folder open on `folder`, but `.` and `..`.
std::vector<std::string> names_in(int folder) {
  std::vector<std::string> names;
  // A descriptor of its own: readdir moves the offset it shares with dups.
  const int listing = ::openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (listing < 0)
    return names;
  DIR *directory = ::fdopendir(listing);
  if (!directory) {
    ::close(listing);
    return names;
  }
  while (const dirent *entry = ::readdir(directory)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..")
      names.emplace_back(name);
  }
  ::closedir(directory);
  return names;
}

} // namespace

// A developer's rebuilt binary keeps its version number, so the binary
// itself is what identifies the build.
std::string executable_identity() {
  return file_identity("/proc/self/exe");
}

std::string sha256_hex(std::string_view data) {
  return to_hex(sha256_raw(data));
}

std::string default_cache_directory() {
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return std::string(xdg) + "/mpsaudit";
  if (const char *home = std::getenv("HOME"); home && *home == '/')
    return std::string(home) + "/.cache/mpsaudit";
  return {};
}

std::string catalog_fingerprint(const RuleCatalog &catalog) {
  KeyBuilder key;
  const auto add_list = [&key](const std::vector<std::string> &items) {
    key.add(items.size());
    for (const auto &item : items)
      key.add(item);
  };
  for (const Rule &rule : catalog.rules()) {
    key.add(rule.id).add(rule.name).add(rule.family).add(rule.message).add(rule.replacement);
    key.add(static_cast<std::uint64_t>(rule.effort)).add(static_cast<std::uint64_t>(rule.severity));
    key.add(static_cast<std::uint64_t>(rule.guarded));
    key.add(rule.kinds.size());
    for (FileKind kind : rule.kinds)
      key.add(to_string(kind));
    add_list(rule.match.kinds);
    add_list(rule.match.names);
    add_list(rule.match.not_names);
    for (const auto &[attribute, patterns] : rule.match.where) {
      key.add(attribute);
      add_list(patterns);
    }
    for (const auto *tests : {&rule.match.argument_absent, &rule.match.argument_matches}) {
      key.add(tests->size());
      for (const ArgumentTest &test : *tests) {
        key.add(test.keyword).add(static_cast<std::uint64_t>(test.position + 1));
        add_list(test.patterns);
      }
    }
    key.add(rule.match.in_forward ? (*rule.match.in_forward ? "forward" : "not-forward") : "any");
    add_list(rule.superseded_by);
  }
  return key.digest();
}

namespace {

// The entry's bytes: a header (magic, format, key echo, payload size and
// checksum), then the payload.
std::string wrap_payload(std::string_view key, std::string_view payload) {
  Writer entry;
  entry.out.append(kMagic, sizeof kMagic);
  entry.u32(kResultCacheFormat);
  entry.out.append(key.substr(0, kKeyBytes));
  entry.u64(payload.size());
  entry.u64(checksum(payload));
  entry.out += payload;
  return entry.out;
}

// The payload of an entry whose header matches `key`, else nullopt.
std::optional<std::string_view> unwrap_payload(std::string_view key, std::string_view bytes) {
  if (key.size() != kKeyBytes || bytes.size() < kHeaderBytes ||
      std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return std::nullopt;
  Reader header(bytes.substr(sizeof kMagic, kHeaderBytes - sizeof kMagic));
  const std::uint32_t format = header.u32();
  const std::string_view echoed_key = bytes.substr(sizeof kMagic + 4, kKeyBytes);
  header = Reader(bytes.substr(sizeof kMagic + 4 + kKeyBytes, 16));
  const std::uint64_t size = header.u64();
  const std::uint64_t sum = header.u64();
  if (format != kResultCacheFormat || echoed_key != key)
    return std::nullopt;
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (size != payload.size() || sum != checksum(payload))
    return std::nullopt;
  return payload;
}

void write_diagnostic(Writer &payload, const Diagnostic &diagnostic) {
  payload.u8(static_cast<std::uint8_t>(diagnostic.level));
  payload.str(diagnostic.path);
  payload.u32(diagnostic.line);
  payload.str(diagnostic.code);
  payload.str(diagnostic.message);
}

Diagnostic read_diagnostic(Reader &reader) {
  Diagnostic diagnostic;
  const std::uint8_t level = reader.u8();
  if (level > kMaxLevel)
    reader.failed = true;
  diagnostic.level = static_cast<DiagnosticLevel>(level);
  diagnostic.path = reader.str();
  diagnostic.line = reader.u32();
  diagnostic.code = reader.str();
  diagnostic.message = reader.str();
  return diagnostic;
}

// A finding without its rule pointer, which read_finding binds by ID.
void write_finding(Writer &payload, const Finding &finding) {
  payload.str(finding.rule_id);
  payload.str(finding.path);
  payload.u8(static_cast<std::uint8_t>(finding.file_kind));
  write_span(payload, finding.span);
  payload.u32(static_cast<std::uint32_t>(finding.cell + 1));
  payload.u32(finding.cell_line);
  payload.str(finding.name);
  payload.str(finding.message);
  payload.str(finding.snippet);
  payload.u32(static_cast<std::uint32_t>(finding.severity));
  payload.u8(static_cast<std::uint8_t>(finding.guard));
  payload.str(finding.scope);
  payload.u8(finding.in_forward);
  payload.u8(finding.suppressed);
  payload.str(finding.suppression_reason);
}

Finding read_finding(Reader &reader, const RuleCatalog &catalog) {
  Finding finding;
  finding.rule_id = reader.str();
  finding.rule = catalog.find(finding.rule_id);
  finding.path = reader.str();
  const std::uint8_t kind = reader.u8();
  finding.file_kind = static_cast<FileKind>(kind);
  finding.span = read_span(reader);
  finding.cell = static_cast<int>(reader.u32()) - 1;
  finding.cell_line = reader.u32();
  finding.name = reader.str();
  finding.message = reader.str();
  finding.snippet = reader.str();
  finding.severity = static_cast<int>(reader.u32());
  const std::uint8_t guard = reader.u8();
  finding.guard = static_cast<Guard>(guard);
  finding.scope = reader.str();
  finding.in_forward = reader.u8() != 0;
  finding.suppressed = reader.u8() != 0;
  finding.suppression_reason = reader.str();
  if (!finding.rule || kind > kMaxFileKind || guard > kMaxGuard ||
      finding.severity > static_cast<int>(Severity::Error) || finding.severity < 0)
    reader.failed = true;
  return finding;
}

} // namespace

std::string encode_entry(std::string_view key, const EarlyResult &result) {
  Writer payload;
  payload.str(result.facts.mode);
  payload.u32(static_cast<std::uint32_t>(result.facts.diagnostics.size()));
  for (const Diagnostic &diagnostic : result.facts.diagnostics)
    write_diagnostic(payload, diagnostic);
  payload.u32(static_cast<std::uint32_t>(result.facts.facts.size()));
  for (const Fact &fact : result.facts.facts)
    write_fact(payload, fact);
  payload.u32(static_cast<std::uint32_t>(result.fact_lines.size()));
  for (const auto &[line, text] : result.fact_lines) {
    payload.u32(line);
    payload.str(text);
  }
  payload.u32(static_cast<std::uint32_t>(result.findings.size()));
  for (const Finding &finding : result.findings)
    write_finding(payload, finding);
  payload.u32(static_cast<std::uint32_t>(result.api_uses.size()));
  for (const EarlyResult::ApiUse &use : result.api_uses) {
    payload.str(use.name);
    payload.u32(use.first_line);
    payload.u32(use.count);
  }
  payload.u32(static_cast<std::uint32_t>(result.tree_package_answers.size()));
  for (const auto &[module, provided] : result.tree_package_answers) {
    payload.str(module);
    payload.u8(provided);
  }
  return wrap_payload(key, payload.out);
}

std::optional<EarlyResult> decode_entry(std::string_view key, std::string_view bytes,
                                        const RuleCatalog &catalog) {
  const std::optional<std::string_view> payload = unwrap_payload(key, bytes);
  if (!payload)
    return std::nullopt;
  Reader reader(*payload);
  EarlyResult result;
  result.facts.mode = reader.str();
  result.facts.diagnostics.resize(reader.count(17));
  for (Diagnostic &diagnostic : result.facts.diagnostics)
    diagnostic = read_diagnostic(reader);
  const std::size_t fact_count = reader.count(50);
  result.facts.facts.reserve(fact_count);
  for (std::size_t i = 0; i < fact_count && !reader.failed; ++i)
    result.facts.facts.push_back(read_fact(reader));
  result.fact_lines.resize(reader.count(8));
  for (auto &[line, text] : result.fact_lines) {
    line = reader.u32();
    text = reader.str();
  }
  const std::size_t finding_count = reader.count(60);
  result.findings.reserve(finding_count);
  for (std::size_t i = 0; i < finding_count && !reader.failed; ++i)
    result.findings.push_back(read_finding(reader, catalog));
  result.api_uses.resize(reader.count(12));
  for (EarlyResult::ApiUse &use : result.api_uses) {
    use.name = reader.str();
    use.first_line = reader.u32();
    use.count = reader.u32();
  }
  result.tree_package_answers.resize(reader.count(5));
  for (auto &[module, provided] : result.tree_package_answers) {
    module = reader.str();
    const std::uint8_t answer = reader.u8();
    reader.failed = reader.failed || answer > 1;
    provided = answer == 1;
  }
  if (reader.failed || !reader.at_end())
    return std::nullopt;
  return result;
}

namespace {

// The name of this cache format's entries folder below the cache root.
std::string entries_folder_name() {
  return "v" + std::to_string(kResultCacheFormat);
}

// The entries folder of the cache at `directory` when it is a real folder of
// this user's (in a shared directory another user could have made it, or a
// link to elsewhere); created when `create`, and then the root too. Invalid
// otherwise, with `why` saying why.
Descriptor open_entries_folder(const std::string &directory, bool create, std::string &why) {
  if (create) {
    // The directory itself may be one the user shares (`--cache-dir /tmp`):
    // leave its mode alone, and keep what mpsaudit creates inside private.
    std::error_code error;
    fs::create_directories(directory, error);
  }
  // The root is the one the user named, links and all; below it, nothing is followed.
  const Descriptor root(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  Descriptor entries =
      root.valid() ? open_own_folder(root.get(), entries_folder_name(), create) : Descriptor();
  if (!entries.valid())
    why = errno == ELOOP || errno == ENOTDIR ? std::strerror(EACCES) : std::strerror(errno);
  return entries;
}

// `directory`'s entries folder, created if needed, when it is a real folder
// of this user's that can be written; else invalid, with `note` saying why.
Descriptor usable_entries_folder(const std::string &directory, std::string &note) {
  std::string why;
  Descriptor entries = open_entries_folder(directory, true, why);
  if (entries.valid()) {
    // Writable? A probe file, created and removed, answers for this run.
    const std::string probe = ".probe." + unique_suffix();
    const int fd =
        ::openat(entries.get(), probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::close(fd);
      ::unlinkat(entries.get(), probe.c_str(), 0);
      return entries;
    }
    why = std::strerror(errno);
  }
  note = "mpsaudit: note: the result cache " + directory + " cannot be written (" + why +
         "); scanning without it";
  return Descriptor();
}

} // namespace

ResultCache::ResultCache(Descriptor entries_folder, std::string context, std::uint64_t max_bytes,
                         const RuleCatalog &catalog)
    : entries_(std::move(entries_folder)), context_(std::move(context)), catalog_(catalog),
      max_bytes_(max_bytes) {}

std::unique_ptr<ResultCache> ResultCache::open(const std::string &directory, const RuleCatalog &catalog,
                                               const ExtractOptions &extract, std::string_view retention,
                                               std::string &note) {
  Descriptor entries = usable_entries_folder(directory, note);
  if (!entries.valid())
    return nullptr;
  KeyBuilder context;
  context.add("mpsaudit result cache").add(kResultCacheFormat).add(executable_identity());
  context.add(catalog_fingerprint(catalog)).add(retention);
  context.add(extract.compile_commands_dir).add(extract.root).add(extract.roots.size());
  for (const auto &root : extract.roots)
    context.add(root);
  context.add(extract.max_file_bytes).add(extract.parse_timeout_ms).add(extract.parse_memory_bytes);
  // compile_commands.json decides how Clang parses every C/C++/CUDA file.
  const std::string database_directory =
      !extract.compile_commands_dir.empty() ? extract.compile_commands_dir : extract.root;
  const auto database = read_regular_file(database_directory + "/compile_commands.json", kMaxEntryBytes);
  context.add(database ? sha256_raw(*database) : std::string("none"));
  return std::unique_ptr<ResultCache>(
      new ResultCache(std::move(entries), context.digest(), cache_max_bytes(), catalog));
}

bool ResultCache::caches_kind(FileKind kind) const {
  if (is_native_source(kind))
    return cxx_inputs_known_;
  return kind != FileKind::Checkpoint && kind != FileKind::Requirements && kind != FileKind::Unknown;
}

void ResultCache::set_cxx_inputs(std::vector<std::string> absolute_paths) {
  std::sort(absolute_paths.begin(), absolute_paths.end());
  cxx_inputs_ = std::move(absolute_paths);
  cxx_inputs_known_ = true;
}

const std::string &ResultCache::cxx_digest() {
  std::call_once(cxx_once_, [this] {
    KeyBuilder digest;
    digest.add(cxx_plugin_identity());
    for (const auto &path : cxx_inputs_) {
      // A huge file (a generated header, a planted sparse file) is known by
      // its size and time rather than read whole.
      const auto text = read_regular_file(path, kMaxHashedHeaderBytes);
      digest.add(path).add(text ? sha256_raw(*text) : file_identity(path));
    }
    cxx_digest_ = digest.digest();
  });
  return cxx_digest_;
}

std::string ResultCache::key_for(const SourceFile &file) {
  KeyBuilder key;
  key.add(context_).add(file.path).add(to_string(file.kind)).add(sha256_raw(file.text));
  if (is_native_source(file.kind))
    key.add(cxx_digest());
  return key.digest();
}

std::optional<EarlyResult> ResultCache::load(const std::string &key,
                                             const std::function<bool(const EarlyResult &)> &still_holds) {
  struct stat info {};
  int fd = -1;
  const auto bytes = read_entry_file(entries_.get(), key, kMaxEntryBytes, &info, &fd);
  std::optional<EarlyResult> entry = bytes ? decode_entry(key, *bytes, catalog_) : std::nullopt;
  if (entry && still_holds && !still_holds(*entry))
    entry.reset();
  if (fd >= 0) {
    // Eviction drops the entries least recently used: mark a hit as used,
    // at most once a day, to keep warm runs from writing much.
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    if (entry && std::chrono::duration_cast<std::chrono::seconds>(now).count() - info.st_mtim.tv_sec > 86400)
      ::futimens(fd, nullptr);
    ::close(fd);
  }
  (entry ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed);
  return entry;
}

void ResultCache::store(const std::string &key, const EarlyResult &result) {
  if (write_failed_.load(std::memory_order_relaxed))
    return;
  const std::string bytes = encode_entry(key, result);
  switch (write_entry_file(entries_.get(), key, bytes)) {
  case EntryWrite::Written:
    written_bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);
    break;
  case EntryWrite::Refused: // a shard folder planted as a link: this entry only
    break;
  case EntryWrite::Failed:
    write_failed_ = true; // a full disk: stop trying for this run
    break;
  }
}

std::optional<std::string> load_cache_payload(const std::string &directory, std::string_view key) {
  // A read needs the folder's owner checked, not a folder made or a probe
  // file written: that is for the writes (store_cache_payload, open).
  std::string unused_why;
  const Descriptor entries = open_entries_folder(directory, false, unused_why);
  if (!entries.valid())
    return std::nullopt;
  const auto bytes = read_entry_file(entries.get(), key, kMaxEntryBytes);
  const std::optional<std::string_view> payload = bytes ? unwrap_payload(key, *bytes) : std::nullopt;
  return payload ? std::optional<std::string>(std::string(*payload)) : std::nullopt;
}

void store_cache_payload(const std::string &directory, std::string_view key, std::string_view payload) {
  std::string unused_note;
  const Descriptor entries = usable_entries_folder(directory, unused_note);
  if (entries.valid())
    write_entry_file(entries.get(), key, wrap_payload(key, payload));
}

void ResultCache::finish() {
  const std::uint64_t written = written_bytes_.load();
  if (written == 0)
    return;
  // Walking the cache costs a stat per entry (about 40 ms per 1,000 entries
  // on a loaded machine): a pre-commit run cannot pay that each time. Walk
  // at most once an hour, unless this run alone wrote a good share of the bound.
  const char *stamp = ".last-trim";
  struct stat info {};
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  if (::fstatat(entries_.get(), stamp, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
      now - info.st_mtim.tv_sec < kTrimIntervalSeconds && written < max_bytes_ / 8)
    return;
  const Descriptor touched(
      ::openat(entries_.get(), stamp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
  if (touched.valid())
    ::futimens(touched.get(), nullptr);
  trim();
}

void ResultCache::trim() {
  struct Entry {
    std::int64_t used = 0;
    std::uint64_t bytes = 0;
    std::size_t shard = 0; // in `shards`
    std::string name;
  };
  // Shard folders that are real folders of this user's: never a link.
  std::vector<Descriptor> shards;
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  for (const std::string &shard_name : names_in(entries_.get())) {
    Descriptor shard = open_own_folder(entries_.get(), shard_name, false);
    if (!shard.valid())
      continue;
    for (std::string &name : names_in(shard.get())) {
      struct stat info {};
      if (::fstatat(shard.get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode))
        continue;
      // A temporary file a killed run left behind.
      if (name.rfind(".tmp.", 0) == 0) {
        if (now - info.st_mtim.tv_sec > 3600)
          ::unlinkat(shard.get(), name.c_str(), 0);
        continue;
      }
      // What the entry takes on disk: a small file still fills a block.
      const auto bytes = std::max<std::uint64_t>(static_cast<std::uint64_t>(info.st_size),
                                                 static_cast<std::uint64_t>(info.st_blocks) * 512);
      entries.push_back({info.st_mtim.tv_sec, bytes, shards.size(), std::move(name)});
      total += bytes;
    }
    shards.push_back(std::move(shard));
  }
  if (total <= max_bytes_)
    return;
  // Down to three quarters of the bound, least recently used first, so the
  // next runs do not trim again at once.
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.used < b.used; });
  const std::uint64_t target = max_bytes_ / 4 * 3;
  for (const Entry &entry : entries) {
    if (total <= target)
      break;
    if (::unlinkat(shards[entry.shard].get(), entry.name.c_str(), 0) == 0)
      total -= entry.bytes;
  }
}

} // namespace mpsaudit
