#include "scan/result_cache.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "core/confined_file.h"
#include "core/fnv1a.h"
#include "frontend/cxx/cxx_plugin.h"
#include "frontend/frontend.h"
#include "scan/cache_codec.h"

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

using cache_codec::KeyBuilder;
using cache_codec::Reader;
using cache_codec::Writer;

std::string to_hex(std::string_view raw) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(raw.size() * 2);
  for (unsigned char byte : raw) {
    hex.push_back(digits[byte >> 4]);
    hex.push_back(digits[byte & 15]);
  }
  return hex;
}

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
std::optional<std::string> read_regular_file(const std::string &path, std::uint64_t limit,
                                             struct stat *info_out = nullptr, int *fd_out = nullptr) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return std::nullopt;
  std::optional<std::string> data = read_stated_size(fd, limit, info_out);
  if (data && fd_out)
    *fd_out = fd;
  else
    ::close(fd);
  return data;
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

// An entry's file: a shard folder per first byte of the key, so that no
// folder holds more than a few thousand entries.
std::string entry_path_in(const std::string &entries, std::string_view key) {
  const std::string hex = to_hex(key);
  return entries + "/" + hex.substr(0, 2) + "/" + hex;
}

// Writes `bytes` beside `path`, then renames it into place: a reader sees the
// whole entry or none, and two runs writing the same entry both leave a whole
// one. False when it could not (a full disk, say).
bool write_entry_file(const std::string &path, std::string_view bytes) {
  const std::string directory = fs::path(path).parent_path().string();
  ::mkdir(directory.c_str(), 0700);
  const std::string temporary = directory + "/.tmp." + unique_suffix();
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return false;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (wrote <= 0)
      break;
    done += static_cast<std::size_t>(wrote);
  }
  const bool complete = done == bytes.size();
  if (::close(fd) != 0 || !complete || ::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
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

// Where the entries of this cache format live under `directory`.
std::string entries_directory_of(const std::string &directory) {
  return directory + "/v" + std::to_string(kResultCacheFormat);
}

// In a shared directory another user could have made the entries folder, or
// a link to elsewhere: only a real folder of our own is used.
bool is_own_folder(const std::string &path) {
  struct stat owner {};
  return ::lstat(path.c_str(), &owner) == 0 && S_ISDIR(owner.st_mode) && owner.st_uid == ::geteuid();
}

// `directory`'s entries folder, created if needed, when it is a real folder
// of this user's that can be written; else empty, with `note` saying why.
std::string usable_entries_directory(const std::string &directory, std::string &note) {
  const std::string entries = entries_directory_of(directory);
  // The directory itself may be one the user shares (`--cache-dir /tmp`):
  // leave its mode alone, and keep what mpsaudit creates inside private.
  std::error_code error;
  fs::create_directories(directory, error);
  if (!error && ::mkdir(entries.c_str(), 0700) != 0 && errno != EEXIST)
    error.assign(errno, std::generic_category());
  if (!error && !is_own_folder(entries))
    error = std::make_error_code(std::errc::permission_denied);
  // Writable? A probe file, created and removed, answers for this run.
  const std::string probe = entries + "/.probe." + unique_suffix();
  const int fd =
      error ? -1 : ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const std::string why = error ? error.message() : std::strerror(errno);
    note = "mpsaudit: note: the result cache " + directory + " cannot be written (" + why +
           "); scanning without it";
    return {};
  }
  ::close(fd);
  ::unlink(probe.c_str());

  return entries;
}

} // namespace

ResultCache::ResultCache(std::string entries_directory, std::string context, std::uint64_t max_bytes,
                         const RuleCatalog &catalog)
    : entries_(std::move(entries_directory)), context_(std::move(context)), catalog_(catalog),
      max_bytes_(max_bytes) {}

std::unique_ptr<ResultCache> ResultCache::open(const std::string &directory, const RuleCatalog &catalog,
                                               const ExtractOptions &extract, std::string_view retention,
                                               std::string &note) {
  const std::string entries = usable_entries_directory(directory, note);
  if (entries.empty())
    return nullptr;
  KeyBuilder context;
  context.add("mpsaudit result cache").add(kResultCacheFormat).add(executable_identity());
  context.add(catalog_fingerprint(catalog)).add(retention);
  context.add(extract.compile_commands_dir).add(extract.root).add(extract.roots.size());
  for (const auto &root : extract.roots)
    context.add(root);
  context.add(extract.max_file_bytes).add(extract.parse_timeout_ms);
  // compile_commands.json decides how Clang parses every C/C++/CUDA file.
  const std::string database_directory =
      !extract.compile_commands_dir.empty() ? extract.compile_commands_dir : extract.root;
  const auto database = read_regular_file(database_directory + "/compile_commands.json", kMaxEntryBytes);
  context.add(database ? sha256_raw(*database) : std::string("none"));
  return std::unique_ptr<ResultCache>(new ResultCache(entries, context.digest(), cache_max_bytes(), catalog));
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

std::string ResultCache::entry_path(std::string_view key) const {
  return entry_path_in(entries_, key);
}

std::optional<EarlyResult> ResultCache::load(const std::string &key,
                                             const std::function<bool(const EarlyResult &)> &still_holds) {
  struct stat info {};
  int fd = -1;
  const auto bytes = read_regular_file(entry_path(key), kMaxEntryBytes, &info, &fd);
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
  if (!write_entry_file(entry_path(key), bytes)) {
    write_failed_ = true; // a full disk: stop trying for this run
    return;
  }
  written_bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);
}

std::optional<std::string> load_cache_payload(const std::string &directory, std::string_view key) {
  // A read needs the folder's owner checked, not a folder made or a probe
  // file written: that is for the writes (store_cache_payload, open).
  const std::string entries = entries_directory_of(directory);
  if (!is_own_folder(entries))
    return std::nullopt;
  const auto bytes = read_regular_file(entry_path_in(entries, key), kMaxEntryBytes);
  const std::optional<std::string_view> payload = bytes ? unwrap_payload(key, *bytes) : std::nullopt;
  return payload ? std::optional<std::string>(std::string(*payload)) : std::nullopt;
}

void store_cache_payload(const std::string &directory, std::string_view key, std::string_view payload) {
  std::string unused_note;
  const std::string entries = usable_entries_directory(directory, unused_note);
  if (!entries.empty())
    write_entry_file(entry_path_in(entries, key), wrap_payload(key, payload));
}

void ResultCache::finish() {
  const std::uint64_t written = written_bytes_.load();
  if (written == 0)
    return;
  // Walking the cache costs a stat per entry (about 40 ms per 1,000 entries
  // on a loaded machine): a pre-commit run cannot pay that each time. Walk
  // at most once an hour, unless this run alone wrote a good share of the bound.
  const std::string stamp = entries_ + "/.last-trim";
  struct stat info {};
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  if (::lstat(stamp.c_str(), &info) == 0 && now - info.st_mtim.tv_sec < kTrimIntervalSeconds &&
      written < max_bytes_ / 8)
    return;
  const int fd = ::open(stamp.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::futimens(fd, nullptr);
    ::close(fd);
  }
  trim();
}

void ResultCache::trim() {
  struct Entry {
    std::int64_t used = 0;
    std::uint64_t bytes = 0;
    std::string path;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  std::error_code error;
  for (fs::directory_iterator shard(entries_, error), end; !error && shard != end; shard.increment(error)) {
    if (!shard->is_directory(error) || shard->is_symlink(error))
      continue;
    std::error_code inner;
    for (fs::directory_iterator it(shard->path(), inner); !inner && it != end; it.increment(inner)) {
      struct stat info {};
      const std::string path = it->path().string();
      if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
        continue;
      // A temporary file a killed run left behind.
      if (it->path().filename().string().rfind(".tmp.", 0) == 0) {
        if (now - info.st_mtim.tv_sec > 3600)
          ::unlink(path.c_str());
        continue;
      }
      // What the entry takes on disk: a small file still fills a block.
      const auto bytes = std::max<std::uint64_t>(static_cast<std::uint64_t>(info.st_size),
                                                 static_cast<std::uint64_t>(info.st_blocks) * 512);
      entries.push_back({info.st_mtim.tv_sec, bytes, path});
      total += bytes;
    }
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
    if (::unlink(entry.path.c_str()) == 0)
      total -= entry.bytes;
  }
}

} // namespace mpsaudit
