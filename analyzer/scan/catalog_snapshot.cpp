#include "scan/catalog_snapshot.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/cache_codec.h"
#include "scan/result_cache.h"

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

using cache_codec::KeyBuilder;
using cache_codec::Reader;
using cache_codec::Writer;

constexpr auto kMaxEffort = static_cast<std::uint8_t>(Effort::Blocker);
constexpr auto kMaxSeverity = static_cast<std::uint8_t>(Severity::Error);
constexpr auto kMaxGuardPolicy = static_cast<std::uint8_t>(GuardPolicy::Ignore);
constexpr auto kMaxAcceptanceCheck = static_cast<std::uint8_t>(AcceptanceCheck::Float64);

void write_strings(Writer &out, const std::vector<std::string> &items) {
  out.u32(static_cast<std::uint32_t>(items.size()));
  for (const std::string &item : items)
    out.str(item);
}

std::vector<std::string> read_strings(Reader &in) {
  std::vector<std::string> items(in.count(4));
  for (std::string &item : items)
    item = in.str();
  return items;
}

void write_argument_tests(Writer &out, const std::vector<ArgumentTest> &tests) {
  out.u32(static_cast<std::uint32_t>(tests.size()));
  for (const ArgumentTest &test : tests) {
    out.str(test.keyword);
    out.u32(static_cast<std::uint32_t>(test.position + 1));
    write_strings(out, test.patterns);
  }
}

std::vector<ArgumentTest> read_argument_tests(Reader &in) {
  std::vector<ArgumentTest> tests(in.count(12));
  for (ArgumentTest &test : tests) {
    test.keyword = in.str();
    test.position = static_cast<int>(in.u32()) - 1;
    test.patterns = read_strings(in);
  }
  return tests;
}

void write_matcher(Writer &out, const Matcher &match) {
  write_strings(out, match.kinds);
  write_strings(out, match.names);
  write_strings(out, match.not_names);
  out.u32(static_cast<std::uint32_t>(match.where.size()));
  for (const auto &[attribute, patterns] : match.where) {
    out.str(attribute);
    write_strings(out, patterns);
  }
  write_argument_tests(out, match.argument_absent);
  write_argument_tests(out, match.argument_matches);
  out.u8(match.in_forward ? (*match.in_forward ? 2 : 1) : 0);
}

Matcher read_matcher(Reader &in) {
  Matcher match;
  match.kinds = read_strings(in);
  match.names = read_strings(in);
  match.not_names = read_strings(in);
  match.where.resize(in.count(8));
  for (auto &[attribute, patterns] : match.where) {
    attribute = in.str();
    patterns = read_strings(in);
  }
  match.argument_absent = read_argument_tests(in);
  match.argument_matches = read_argument_tests(in);
  const std::uint8_t in_forward = in.u8();
  if (in_forward > 2)
    in.failed = true;
  if (in_forward != 0)
    match.in_forward = in_forward == 2;
  return match;
}

void write_rule(Writer &out, const Rule &rule) {
  for (const std::string *text : {&rule.id, &rule.name, &rule.family, &rule.summary, &rule.message, &rule.why,
                                  &rule.replacement, &rule.docs, &rule.examples_waived, &rule.origin})
    out.str(*text);
  write_strings(out, rule.sources);
  out.u8(static_cast<std::uint8_t>(rule.effort));
  out.u8(static_cast<std::uint8_t>(rule.severity));
  out.u8(static_cast<std::uint8_t>(rule.guarded));
  out.u32(static_cast<std::uint32_t>(rule.kinds.size()));
  for (FileKind kind : rule.kinds)
    out.str(to_string(kind));
  write_matcher(out, rule.match);
  out.u32(static_cast<std::uint32_t>(rule.examples.size()));
  for (const RuleExample &example : rule.examples) {
    out.u8(example.must_flag ? 1 : 0);
    out.str(to_string(example.kind));
    out.str(example.code);
    write_strings(out, example.also);
  }
  write_strings(out, rule.superseded_by);
  for (const bool flag :
       {rule.fallback, rule.safety, rule.cuda_only, rule.training_scale, rule.package_cause})
    out.u8(flag ? 1 : 0);
  out.u8(static_cast<std::uint8_t>(rule.acceptance));
}

// A file kind written by name: a name this build does not know is a bad snapshot.
FileKind read_file_kind(Reader &in) {
  const std::string name = in.str();
  const FileKind kind = file_kind_from_string(name);
  if (to_string(kind) != name)
    in.failed = true;
  return kind;
}

Rule read_rule(Reader &in) {
  Rule rule;
  for (std::string *text : {&rule.id, &rule.name, &rule.family, &rule.summary, &rule.message, &rule.why,
                            &rule.replacement, &rule.docs, &rule.examples_waived, &rule.origin})
    *text = in.str();
  rule.sources = read_strings(in);
  const std::uint8_t effort = in.u8(), severity = in.u8(), guarded = in.u8();
  if (effort > kMaxEffort || severity > kMaxSeverity || guarded > kMaxGuardPolicy)
    in.failed = true;
  rule.effort = static_cast<Effort>(effort);
  rule.severity = static_cast<Severity>(severity);
  rule.guarded = static_cast<GuardPolicy>(guarded);
  rule.kinds.resize(in.count(4));
  for (FileKind &kind : rule.kinds)
    kind = read_file_kind(in);
  rule.match = read_matcher(in);
  rule.examples.resize(in.count(13));
  for (RuleExample &example : rule.examples) {
    example.must_flag = in.u8() != 0;
    example.kind = read_file_kind(in);
    example.code = in.str();
    example.also = read_strings(in);
  }
  rule.superseded_by = read_strings(in);
  for (bool *flag :
       {&rule.fallback, &rule.safety, &rule.cuda_only, &rule.training_scale, &rule.package_cause})
    *flag = in.u8() != 0;
  const std::uint8_t acceptance = in.u8();
  if (acceptance > kMaxAcceptanceCheck)
    in.failed = true;
  rule.acceptance = static_cast<AcceptanceCheck>(acceptance);
  return rule;
}

// The key of the rules files of `rules_dir`: `key`, then their count, then
// each file's name (as `name_of` gives it) and bytes, in the order
// load_directory reads them. Each file is hashed as it is read, through one
// small buffer: holding the 240 KB of rules at once cost a small scan more in
// fresh pages than the hashing itself. nullopt when the directory or a file
// cannot be read (the catalog is then parsed, and its diagnostics say why).
template <typename NameOf>
std::optional<std::string> rules_files_key(const std::string &rules_dir, KeyBuilder key, NameOf name_of) {
  std::error_code error;
  const std::vector<fs::path> paths = RuleCatalog::files_in(rules_dir, error);
  if (error)
    return std::nullopt;
  key.add(paths.size());
  char buffer[16384];
  for (const fs::path &path : paths) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return std::nullopt;
    struct stat info {};
    bool complete = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
    auto left = complete ? static_cast<std::uint64_t>(info.st_size) : 0;
    key.add(name_of(path)).begin_field(left);
    while (complete && left > 0) {
      const ssize_t got =
          ::read(fd, buffer, static_cast<std::size_t>(std::min<std::uint64_t>(left, sizeof buffer)));
      if (got < 0 && errno == EINTR)
        continue;
      complete = got > 0;
      if (complete) {
        key.add_to_field(std::string_view(buffer, static_cast<std::size_t>(got)));
        left -= static_cast<std::uint64_t>(got);
      }
    }
    ::close(fd);
    if (!complete)
      return std::nullopt;
  }
  return key.digest();
}

// A snapshot in the cache holds its rules' origins as paths, and the codec
// of the binary that wrote it.
std::optional<std::string> cache_key(const std::string &rules_dir) {
  KeyBuilder key;
  key.add("mpsaudit rule catalog").add(kResultCacheFormat).add(executable_identity());
  return rules_files_key(rules_dir, key, [](const fs::path &path) { return path.string(); });
}

} // namespace

std::string encode_catalog(const RuleCatalog &catalog) {
  Writer out;
  out.u32(static_cast<std::uint32_t>(catalog.families().size()));
  for (const RuleFamily &family : catalog.families()) {
    for (const std::string *text : {&family.name, &family.prefix, &family.title, &family.description})
      out.str(*text);
    for (const bool flag : {family.cuda_only, family.training_scale, family.package_cause})
      out.u8(flag ? 1 : 0);
  }
  out.u32(static_cast<std::uint32_t>(catalog.rules().size()));
  for (const Rule &rule : catalog.rules())
    write_rule(out, rule);
  return out.out;
}

std::optional<RuleCatalog> decode_catalog(std::string_view payload, const std::string &rules_dir) {
  Reader in(payload);
  std::vector<RuleFamily> families(in.count(16));
  for (RuleFamily &family : families) {
    for (std::string *text : {&family.name, &family.prefix, &family.title, &family.description})
      *text = in.str();
    for (bool *flag : {&family.cuda_only, &family.training_scale, &family.package_cause})
      *flag = in.u8() != 0;
  }
  const std::size_t rule_count = in.count(64);
  std::vector<Rule> rules;
  rules.reserve(rule_count);
  for (std::size_t i = 0; i < rule_count && !in.failed; ++i)
    rules.push_back(read_rule(in));
  if (in.failed || !in.at_end())
    return std::nullopt;
  if (!rules_dir.empty())
    for (Rule &rule : rules)
      rule.origin = (fs::path(rules_dir) / fs::path(rule.origin).filename()).string();
  return RuleCatalog::from_parts(std::move(rules), std::move(families));
}

// A bundled snapshot stands for rules files by name, wherever they lie.
std::optional<std::string> bundled_catalog_key(const std::string &rules_dir) {
  KeyBuilder key;
  key.add("mpsaudit bundled rule catalog").add(kResultCacheFormat);
  return rules_files_key(rules_dir, key, [](const fs::path &path) { return path.filename().string(); });
}

RuleCatalog load_rule_catalog_via_snapshots(const std::string &rules_dir, const std::string &cache_directory,
                                            const BundledCatalog &bundled,
                                            std::vector<Diagnostic> &diagnostics) {
  if (!bundled.key.empty() && bundled_catalog_key(rules_dir) == bundled.key)
    if (std::optional<RuleCatalog> catalog = decode_catalog(bundled.payload, rules_dir))
      return std::move(*catalog);
  const std::optional<std::string> key = cache_directory.empty() ? std::nullopt : cache_key(rules_dir);
  if (key)
    if (const std::optional<std::string> payload = load_cache_payload(cache_directory, *key))
      if (std::optional<RuleCatalog> catalog = decode_catalog(*payload))
        return std::move(*catalog);
  const std::size_t problems_before = diagnostics.size();
  RuleCatalog catalog = RuleCatalog::load_directory(rules_dir, diagnostics);
  if (key && diagnostics.size() == problems_before) // a catalog with problems is never kept
    store_cache_payload(cache_directory, *key, encode_catalog(catalog));
  return catalog;
}

} // namespace mpsaudit
