// The per-file result cache (scan/result_cache.h): entries round-trip, a
// damaged entry is never trusted, concurrent writers leave whole entries, and
// a warm scan reports what a cold one does.
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "core/temporary_directory.h"
#include "frontend/frontend.h"
#include "scan/result_cache.h"
#include "scan/scan.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

// core's TemporaryDirectory, with the path as a filesystem path for `/`.
struct TempDirectory : TemporaryDirectory {
  TempDirectory() : TemporaryDirectory("mpsaudit-cache-test-") {}
  fs::path path() const { return TemporaryDirectory::path(); }
};

FileFacts sample_facts() {
  FileFacts facts;
  facts.mode = "ast";
  Fact call;
  call.kind = "call";
  call.name = "torch.cuda.synchronize";
  call.span = {3, 5, 3, 29};
  call.arguments.push_back({"device", "dev", "dev", "", false});
  call.arguments.push_back({"", "'cuda:0'", "", "cuda:0", true});
  call.arguments.push_back({"gpus", "n", "n", "", false, {1, 9, 1, 10}});
  call.set_attribute("snippet", "torch.cuda.synchronize()");
  call.guard = Guard::CudaCheck;
  call.scope = "Model.forward";
  call.in_forward = true;
  call.cell = 2;
  call.cell_line = 7;
  facts.facts.push_back(call);
  facts.diagnostics.push_back({DiagnosticLevel::Warning, "a.py", 4, "parse-error", "unexpected token"});
  return facts;
}

std::string serialized(const Fact &fact) {
  std::ostringstream out;
  out << fact.kind << '|' << fact.name << '|' << fact.span.line << ':' << fact.span.column << '-'
      << fact.span.end_line << ':' << fact.span.end_column << '|' << static_cast<int>(fact.guard) << '|'
      << fact.scope << '|' << fact.in_forward << '|' << fact.cell << '|' << fact.cell_line;
  for (const auto &argument : fact.arguments)
    out << "|arg:" << argument.keyword << ',' << argument.text << ',' << argument.canonical << ','
        << argument.value << ',' << argument.is_string << ',' << argument.written_at.line << ':'
        << argument.written_at.column << '-' << argument.written_at.end_line << ':'
        << argument.written_at.end_column;
  for (const auto &[key, value] : fact.attributes)
    out << "|attr:" << key << '=' << value;
  return out.str();
}

std::string serialized(const ScanResult &result) {
  std::ostringstream out;
  for (const auto &finding : result.findings)
    out << finding.rule_id << ' ' << finding.path << ':' << finding.span.line << ' ' << finding.severity
        << ' ' << finding.message << ' ' << finding.snippet << '\n';
  for (const auto &diagnostic : result.diagnostics)
    out << diagnostic.code << ' ' << diagnostic.path << ':' << diagnostic.line << '\n';
  for (const auto &file : result.project_files)
    for (const auto &fact : file.facts.facts)
      out << file.path << ' ' << serialized(fact) << '\n';
  return out.str();
}

ScanResult scan_with_cache(const fs::path &tree, const fs::path &cache, const RuleCatalog &catalog) {
  ScanOptions options;
  options.paths = {tree.string()};
  options.jobs = 2;
  options.use_git = false;
  options.cache_directory = cache.string();
  return run_scan(options, catalog);
}

std::vector<fs::path> entries_of(const fs::path &cache) {
  std::vector<fs::path> entries;
  for (const auto &entry : fs::recursive_directory_iterator(cache))
    if (entry.is_regular_file() && entry.path().filename().string().size() == 64)
      entries.push_back(entry.path());
  return entries;
}

} // namespace

TEST_CASE("sha256 matches the FIPS 180-4 test vectors", "[result-cache]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("a cache entry round-trips every field of the facts", "[result-cache]") {
  const std::string key = sha256_raw("key");
  const FileFacts facts = sample_facts();
  const auto decoded = decode_entry(key, encode_entry(key, facts));
  REQUIRE(decoded);
  CHECK(decoded->mode == "ast");
  REQUIRE(decoded->facts.size() == 1);
  CHECK(serialized(decoded->facts[0]) == serialized(facts.facts[0]));
  REQUIRE(decoded->diagnostics.size() == 1);
  CHECK(decoded->diagnostics[0].code == "parse-error");
  CHECK(decoded->diagnostics[0].message == "unexpected token");
  CHECK(decoded->diagnostics[0].level == DiagnosticLevel::Warning);
}

TEST_CASE("a truncated, corrupt or foreign entry is never trusted", "[result-cache]") {
  const std::string key = sha256_raw("key");
  const std::string entry = encode_entry(key, sample_facts());
  for (std::size_t size = 0; size < entry.size(); ++size)
    CHECK_FALSE(decode_entry(key, entry.substr(0, size)));
  for (std::size_t at = 0; at < entry.size(); ++at) {
    std::string flipped = entry;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x20);
    CHECK_FALSE(decode_entry(key, flipped));
  }
  CHECK_FALSE(decode_entry(sha256_raw("another file"), entry));
  CHECK_FALSE(decode_entry(key, entry + "x"));
}

TEST_CASE("a warm scan reports what the cold scan did, without parsing", "[result-cache]") {
  TempDirectory cache;
  const fs::path sample = fs::path(MPSAUDIT_SOURCE_DIR) / "samples" / "cuda-extension";
  const RuleCatalog &catalog = testing::repository_catalog();
  ScanOptions uncached;
  uncached.paths = {sample.string()};
  uncached.use_git = false;
  const ScanResult reference = run_scan(uncached, catalog);
  const ScanResult cold = scan_with_cache(sample, cache.path(), catalog);
  const ScanResult warm = scan_with_cache(sample, cache.path(), catalog);
  CHECK(cold.profile.cache_hits == 0);
  CHECK(cold.profile.cache_misses > 0);
  CHECK(warm.profile.cache_misses == 0);
  CHECK(warm.profile.cache_hits == cold.profile.cache_misses);
  CHECK(serialized(cold) == serialized(reference));
  CHECK(serialized(warm) == serialized(reference));
  CHECK_FALSE(reference.findings.empty());
}

TEST_CASE("a truncated entry on disk is rebuilt and the findings stay", "[result-cache]") {
  TempDirectory tree, cache;
  std::ofstream(tree.path() / "train.py")
      << "import torch\ntorch.cuda.synchronize()\nx = torch.randn(3).cuda()\n";
  const RuleCatalog &catalog = testing::repository_catalog();
  const ScanResult cold = scan_with_cache(tree.path(), cache.path(), catalog);
  const auto entries = entries_of(cache.path());
  REQUIRE(entries.size() == 1);
  fs::resize_file(entries[0], fs::file_size(entries[0]) / 2);
  const ScanResult damaged = scan_with_cache(tree.path(), cache.path(), catalog);
  CHECK(damaged.profile.cache_misses == 1);
  CHECK(serialized(damaged) == serialized(cold));
  const ScanResult rebuilt = scan_with_cache(tree.path(), cache.path(), catalog);
  CHECK(rebuilt.profile.cache_hits == 1);
  CHECK(serialized(rebuilt) == serialized(cold));
}

TEST_CASE("an edited file, rule or header misses the cache", "[result-cache]") {
  TempDirectory tree, cache;
  std::ofstream(tree.path() / "train.py") << "import torch\ntorch.cuda.synchronize()\n";
  std::ofstream(tree.path() / "kernel.cu") << "#include \"kernel.h\"\n__global__ void k() {}\n";
  std::ofstream(tree.path() / "kernel.h") << "#pragma once\n";
  RuleCatalog catalog = testing::repository_catalog();
  scan_with_cache(tree.path(), cache.path(), catalog);
  CHECK(scan_with_cache(tree.path(), cache.path(), catalog).profile.cache_misses == 0);

  std::ofstream(tree.path() / "train.py", std::ios::app) << "torch.cuda.empty_cache()\n";
  CHECK(scan_with_cache(tree.path(), cache.path(), catalog).profile.cache_misses == 1);

  // Clang reads the header while parsing kernel.cu: both are parsed again.
  std::ofstream(tree.path() / "kernel.h", std::ios::app) << "#define BLOCK 256\n";
  CHECK(scan_with_cache(tree.path(), cache.path(), catalog).profile.cache_misses == 2);

  // A rule file changed (here: one rule fewer): every entry is stale.
  const std::string last = catalog.rules().back().id;
  catalog.retain([&last](const Rule &rule) { return rule.id != last; });
  CHECK(scan_with_cache(tree.path(), cache.path(), catalog).profile.cache_hits == 0);
}

TEST_CASE("threads writing the same entries at once leave only whole entries", "[result-cache]") {
  TempDirectory cache;
  const RuleCatalog &catalog = testing::repository_catalog();
  std::string note;
  auto writer = ResultCache::open(cache.path().string(), catalog, ExtractOptions{}, note);
  auto reader = ResultCache::open(cache.path().string(), catalog, ExtractOptions{}, note);
  REQUIRE(writer);
  REQUIRE(reader);
  SourceFile file;
  file.path = "a.py";
  file.kind = FileKind::Python;
  file.text = "import torch\n";
  const std::string key = writer->key_for(file);
  CHECK(key == reader->key_for(file));
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0};
  std::thread checker([&] {
    while (!stop)
      if (auto facts = reader->load(key); facts && facts->facts.size() != 1)
        ++torn;
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        writer->store(key, sample_facts());
    });
  for (auto &thread : writers)
    thread.join();
  stop = true;
  checker.join();
  CHECK(torn == 0);
  CHECK(reader->load(key));
  CHECK(entries_of(cache.path()).size() == 1);
}

TEST_CASE("the cache stays under its bound, dropping the oldest entries", "[result-cache]") {
  TempDirectory cache;
  ::setenv("MPSAUDIT_CACHE_MAX_BYTES", "40000", 1);
  std::string note;
  auto results =
      ResultCache::open(cache.path().string(), testing::repository_catalog(), ExtractOptions{}, note);
  ::unsetenv("MPSAUDIT_CACHE_MAX_BYTES");
  REQUIRE(results);
  for (int i = 0; i < 100; ++i) {
    SourceFile file;
    file.path = "f" + std::to_string(i) + ".py";
    file.kind = FileKind::Python;
    results->store(results->key_for(file), sample_facts());
  }
  results->finish();
  std::uintmax_t total = 0;
  for (const auto &entry : entries_of(cache.path()))
    total += fs::file_size(entry);
  CHECK(total <= 40000);
  CHECK(entries_of(cache.path()).size() < 100);
  CHECK(total > 0);
}

TEST_CASE("an unwritable cache directory is a note, and the scan runs without it", "[result-cache]") {
  TempDirectory tree, cache;
  std::ofstream(tree.path() / "train.py") << "import torch\ntorch.cuda.synchronize()\n";
  // A directory that cannot be created: its parent is a regular file (file
  // permissions do not stop root, which CI containers often run as).
  std::ofstream(cache.path() / "file") << "";
  const ScanResult result =
      scan_with_cache(tree.path(), cache.path() / "file" / "cache", testing::repository_catalog());
  CHECK(result.cache_note.find("cannot be written") != std::string::npos);
  CHECK_FALSE(result.findings.empty());
  CHECK_FALSE(result.has_errors());
  if (::geteuid() != 0) {
    fs::permissions(cache.path(), fs::perms::owner_read | fs::perms::owner_exec);
    const ScanResult read_only = scan_with_cache(tree.path(), cache.path(), testing::repository_catalog());
    fs::permissions(cache.path(), fs::perms::owner_all);
    CHECK(read_only.cache_note.find("cannot be written") != std::string::npos);
    CHECK(serialized(read_only) == serialized(result));
  }
}

TEST_CASE("an entries folder that is a link or another user's is not used", "[result-cache]") {
  TempDirectory cache, elsewhere;
  fs::create_directory_symlink(elsewhere.path(), cache.path() / "v1");
  std::string note;
  CHECK_FALSE(
      ResultCache::open(cache.path().string(), testing::repository_catalog(), ExtractOptions{}, note));
  CHECK(note.find("cannot be written") != std::string::npos);
  CHECK(fs::is_empty(elsewhere.path()));
  if (::geteuid() == 0) {
    fs::remove(cache.path() / "v1");
    fs::create_directory(cache.path() / "v1");
    REQUIRE(::chown((cache.path() / "v1").c_str(), 65534, 65534) == 0);
    note.clear();
    CHECK_FALSE(
        ResultCache::open(cache.path().string(), testing::repository_catalog(), ExtractOptions{}, note));
    CHECK_FALSE(note.empty());
  }
}

TEST_CASE("a shared cache directory keeps its own mode", "[result-cache]") {
  TempDirectory shared;
  fs::permissions(shared.path(), fs::perms::all | fs::perms::sticky_bit);
  std::string note;
  REQUIRE(ResultCache::open(shared.path().string(), testing::repository_catalog(), ExtractOptions{}, note));
  CHECK(fs::status(shared.path()).permissions() == (fs::perms::all | fs::perms::sticky_bit));
  CHECK((fs::status(shared.path() / "v1").permissions() & (fs::perms::group_all | fs::perms::others_all)) ==
        fs::perms::none);
}
