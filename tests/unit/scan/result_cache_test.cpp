// The per-file result cache (scan/result_cache.h): entries round-trip, a
// damaged entry is never trusted, concurrent writers leave whole entries, and
// a warm scan reports what a cold one does.
#include <algorithm>
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

// What the scan keeps of a file after its first rules, every field set.
EarlyResult sample_result() {
  EarlyResult result;
  result.facts = sample_facts();
  result.fact_lines = {{3, "    torch.cuda.synchronize()"}, {9, "x = y"}};
  Finding finding;
  finding.rule_id = "MPS101";
  finding.path = "a.py";
  finding.file_kind = FileKind::Notebook;
  finding.span = {3, 5, 3, 29};
  finding.cell = 2;
  finding.cell_line = 7;
  finding.name = "torch.cuda.synchronize";
  finding.message = "`torch.cuda.synchronize()` needs a CUDA device";
  finding.snippet = "    torch.cuda.synchronize()";
  finding.severity = static_cast<int>(Severity::Warning);
  finding.guard = Guard::CudaCheck;
  finding.scope = "Model.forward";
  finding.in_forward = true;
  finding.suppressed = true;
  finding.suppression_reason = "measured on CUDA only";
  result.findings.push_back(finding);
  result.api_uses.push_back({"torch.cuda.synchronize", 3, 2});
  result.tree_package_answers = {{"mypkg", true}, {"apex", false}};
  return result;
}

std::string serialized(const Finding &finding) {
  std::ostringstream out;
  out << finding.rule_id << '|' << (finding.rule ? finding.rule->id : "unbound") << '|' << finding.path << '|'
      << to_string(finding.file_kind) << '|' << finding.span.line << ':' << finding.span.column << '-'
      << finding.span.end_line << ':' << finding.span.end_column << '|' << finding.cell << '|'
      << finding.cell_line << '|' << finding.name << '|' << finding.message << '|' << finding.snippet << '|'
      << finding.severity << '|' << static_cast<int>(finding.guard) << '|' << finding.scope << '|'
      << finding.in_forward << '|' << finding.suppressed << '|' << finding.suppression_reason;
  return out.str();
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

// The folder of this cache format's entries under a cache directory.
std::string entries_folder() {
  return "v" + std::to_string(kResultCacheFormat);
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
  CHECK(sha256_raw("abc", Sha256Rounds::Portable) == sha256_raw("abc"));
}

TEST_CASE("sha256 with the CPU's SHA extensions equals the portable rounds", "[result-cache]") {
  // Every length around the one- and two-block paddings, and several blocks.
  std::string bytes;
  std::uint32_t state = 2463534242U;
  for (int i = 0; i < 4096; ++i) {
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    bytes += static_cast<char>(state & 0xff);
  }
  if (!sha256_has_cpu_rounds())
    WARN("this CPU has no SHA extensions: both sides run the portable rounds");
  for (std::size_t length = 0; length <= 300; ++length) {
    INFO("length " << length);
    CHECK(sha256_raw(std::string_view(bytes).substr(0, length), Sha256Rounds::Best) ==
          sha256_raw(std::string_view(bytes).substr(0, length), Sha256Rounds::Portable));
  }
  CHECK(sha256_raw(bytes, Sha256Rounds::Best) == sha256_raw(bytes, Sha256Rounds::Portable));
}

TEST_CASE("sha256 given in pieces equals sha256 of the whole", "[result-cache]") {
  std::string bytes;
  for (int i = 0; i < 1000; ++i)
    bytes += static_cast<char>((i * 131 + 7) & 0xff);
  const std::string whole = sha256_raw(bytes);
  // Pieces that end inside, at and across block boundaries, empty ones too.
  for (std::size_t piece : {1, 3, 63, 64, 65, 128, 200}) {
    INFO("pieces of " << piece << " bytes");
    Sha256 hash;
    for (std::size_t at = 0; at < bytes.size(); at += piece)
      hash.update(std::string_view(bytes).substr(at, piece)).update("");
    CHECK(hash.digest() == whole);
    CHECK(hash.digest() == whole); // digest() leaves the hasher as it was
  }
  CHECK(Sha256().digest() == sha256_raw(""));
}

TEST_CASE("a cache entry round-trips every field of what the first rules left", "[result-cache]") {
  const std::string key = sha256_raw("key");
  const EarlyResult result = sample_result();
  const RuleCatalog &catalog = testing::repository_catalog();
  const auto decoded = decode_entry(key, encode_entry(key, result), catalog);
  REQUIRE(decoded);
  CHECK(decoded->facts.mode == "ast");
  REQUIRE(decoded->facts.facts.size() == 1);
  CHECK(serialized(decoded->facts.facts[0]) == serialized(result.facts.facts[0]));
  REQUIRE(decoded->facts.diagnostics.size() == 1);
  CHECK(decoded->facts.diagnostics[0].code == "parse-error");
  CHECK(decoded->facts.diagnostics[0].message == "unexpected token");
  CHECK(decoded->facts.diagnostics[0].level == DiagnosticLevel::Warning);
  CHECK(decoded->fact_lines == result.fact_lines);
  REQUIRE(decoded->findings.size() == 1);
  CHECK(serialized(decoded->findings[0]) ==
        "MPS101|MPS101|a.py|notebook|3:5-3:29|2|7|torch.cuda.synchronize|`torch.cuda.synchronize()` needs a "
        "CUDA device|    torch.cuda.synchronize()|1|" +
            std::to_string(static_cast<int>(Guard::CudaCheck)) + "|Model.forward|1|1|measured on CUDA only");
  CHECK(decoded->findings[0].rule == catalog.find("MPS101"));
  REQUIRE(decoded->api_uses.size() == 1);
  CHECK(decoded->api_uses[0].name == "torch.cuda.synchronize");
  CHECK(decoded->api_uses[0].first_line == 3);
  CHECK(decoded->api_uses[0].count == 2);
  CHECK(decoded->tree_package_answers == result.tree_package_answers);
}

TEST_CASE("an entry whose finding names a rule the catalog lacks is not trusted", "[result-cache]") {
  const std::string key = sha256_raw("key");
  EarlyResult result = sample_result();
  result.findings[0].rule_id = "MPS000";
  CHECK_FALSE(decode_entry(key, encode_entry(key, result), testing::repository_catalog()));
}

TEST_CASE("a truncated, corrupt or foreign entry is never trusted", "[result-cache]") {
  const std::string key = sha256_raw("key");
  const RuleCatalog &catalog = testing::repository_catalog();
  const std::string entry = encode_entry(key, sample_result());
  for (std::size_t size = 0; size < entry.size(); ++size)
    CHECK_FALSE(decode_entry(key, entry.substr(0, size), catalog));
  for (std::size_t at = 0; at < entry.size(); ++at) {
    std::string flipped = entry;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x20);
    CHECK_FALSE(decode_entry(key, flipped, catalog));
  }
  CHECK_FALSE(decode_entry(sha256_raw("another file"), entry, catalog));
  CHECK_FALSE(decode_entry(key, entry + "x", catalog));
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

TEST_CASE("an entry holds only while the tree's own packages are the same", "[result-cache]") {
  TempDirectory tree, cache;
  std::ofstream(tree.path() / "train.py") << "import torch\nimport apex\n";
  const RuleCatalog &catalog = testing::repository_catalog();
  const auto apex_findings = [](const ScanResult &result) {
    return std::count_if(result.findings.begin(), result.findings.end(),
                         [](const Finding &finding) { return finding.rule_id == "MPS404"; });
  };
  const ScanResult library = scan_with_cache(tree.path(), cache.path(), catalog);
  CHECK(apex_findings(library) == 1);
  CHECK(scan_with_cache(tree.path(), cache.path(), catalog).profile.cache_hits == 1);

  // The tree now is apex: its import reads the tree's own code, which no
  // library rule is about. train.py is unchanged, but its entry must not hold.
  fs::create_directory(tree.path() / "apex");
  std::ofstream(tree.path() / "apex" / "__init__.py") << "";
  const ScanResult own = scan_with_cache(tree.path(), cache.path(), catalog);
  CHECK(own.profile.cache_hits == 0);
  CHECK(apex_findings(own) == 0);
  ScanOptions uncached;
  uncached.paths = {tree.path().string()};
  uncached.use_git = false;
  CHECK(serialized(own) == serialized(run_scan(uncached, catalog)));
}

TEST_CASE("a file the prefilter spares is cached, apart from scans without the prefilter", "[result-cache]") {
  TempDirectory tree, cache;
  std::ofstream(tree.path() / "constants.py") << "VALUE = 1\n";
  const RuleCatalog &catalog = testing::repository_catalog();
  const ScanResult cold = scan_with_cache(tree.path(), cache.path(), catalog);
  REQUIRE(cold.profile.python_prefilter.skipped_files == 1);
  CHECK(cold.profile.cache_misses == 1);
  const ScanResult warm = scan_with_cache(tree.path(), cache.path(), catalog);
  CHECK(warm.profile.cache_hits == 1);
  CHECK(warm.profile.python_prefilter.skipped_files == 0); // not even its syntax was parsed again
  CHECK(serialized(warm) == serialized(cold));
  ScanOptions whole;
  whole.paths = {tree.path().string()};
  whole.use_git = false;
  whole.cache_directory = cache.path().string();
  whole.python_prefilter = false;
  const ScanResult unfiltered = run_scan(whole, catalog);
  CHECK(unfiltered.profile.cache_hits == 0);
  CHECK(unfiltered.profile.cache_misses == 1);
}

TEST_CASE("scans that keep different facts do not share entries", "[result-cache]") {
  TempDirectory tree, cache;
  std::ofstream(tree.path() / "train.py") << "import torch\ntorch.cuda.synchronize()\nx = torch.zeros(2)\n";
  const RuleCatalog &catalog = testing::repository_catalog();
  ScanOptions keeps_calls;
  keeps_calls.paths = {tree.path().string()};
  keeps_calls.use_git = false;
  keeps_calls.cache_directory = cache.path().string();
  keeps_calls.retain_fact = [](const Fact &fact) {
    return fact.kind == "call" ? FactRetention::Keep : FactRetention::Drop;
  };
  keeps_calls.retain_fact_name = "calls";
  const ScanResult calls = run_scan(keeps_calls, catalog);
  // Every fact kept: an entry that kept calls alone would lose the rest.
  const ScanResult every = scan_with_cache(tree.path(), cache.path(), catalog);
  CHECK(every.profile.cache_hits == 0);
  CHECK(run_scan(keeps_calls, catalog).profile.cache_hits == 1);
  ScanOptions uncached = keeps_calls;
  uncached.cache_directory.clear();
  uncached.retain_fact = nullptr;
  CHECK(serialized(every) == serialized(run_scan(uncached, catalog)));
  CHECK(std::all_of(calls.project_files.front().facts.facts.begin(),
                    calls.project_files.front().facts.facts.end(),
                    [](const Fact &fact) { return fact.kind == "call"; }));
}

TEST_CASE("threads writing the same entries at once leave only whole entries", "[result-cache]") {
  TempDirectory cache;
  const RuleCatalog &catalog = testing::repository_catalog();
  std::string note;
  auto writer = ResultCache::open(cache.path().string(), catalog, ExtractOptions{}, "", note);
  auto reader = ResultCache::open(cache.path().string(), catalog, ExtractOptions{}, "", note);
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
      if (auto entry = reader->load(key); entry && entry->findings.size() != 1)
        ++torn;
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        writer->store(key, sample_result());
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
      ResultCache::open(cache.path().string(), testing::repository_catalog(), ExtractOptions{}, "", note);
  ::unsetenv("MPSAUDIT_CACHE_MAX_BYTES");
  REQUIRE(results);
  for (int i = 0; i < 100; ++i) {
    SourceFile file;
    file.path = "f" + std::to_string(i) + ".py";
    file.kind = FileKind::Python;
    results->store(results->key_for(file), sample_result());
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
  fs::create_directory_symlink(elsewhere.path(), cache.path() / entries_folder());
  std::string note;
  CHECK_FALSE(
      ResultCache::open(cache.path().string(), testing::repository_catalog(), ExtractOptions{}, "", note));
  CHECK(note.find("cannot be written") != std::string::npos);
  CHECK(fs::is_empty(elsewhere.path()));
  if (::geteuid() == 0) {
    fs::remove(cache.path() / entries_folder());
    fs::create_directory(cache.path() / entries_folder());
    REQUIRE(::chown((cache.path() / entries_folder()).c_str(), 65534, 65534) == 0);
    note.clear();
    CHECK_FALSE(
        ResultCache::open(cache.path().string(), testing::repository_catalog(), ExtractOptions{}, "", note));
    CHECK_FALSE(note.empty());
  }
}

TEST_CASE("a shard folder that is a link is neither read nor written through", "[result-cache]") {
  // A cache inside the scanned tree: the tree plants v2/<xx> as a link to a
  // folder of its own, holding an entry for the file's key.
  TempDirectory tree, cache, elsewhere;
  std::ofstream(tree.path() / "train.py") << "import torch\ntorch.cuda.synchronize()\n";
  const RuleCatalog &catalog = testing::repository_catalog();
  const ScanResult cold = scan_with_cache(tree.path(), cache.path(), catalog);
  const auto entries = entries_of(cache.path());
  REQUIRE(entries.size() == 1);
  const fs::path shard = entries[0].parent_path();
  const fs::path planted = elsewhere.path() / "shard";
  fs::rename(shard, planted);
  fs::create_directory_symlink(planted, shard);
  const auto planted_entry = planted / entries[0].filename();
  const auto planted_time = fs::last_write_time(planted_entry);

  const ScanResult linked = scan_with_cache(tree.path(), cache.path(), catalog);
  CHECK(linked.profile.cache_hits == 0);
  CHECK(linked.profile.cache_misses == 1);
  CHECK(serialized(linked) == serialized(cold));
  CHECK(fs::is_symlink(shard));
  CHECK(std::distance(fs::directory_iterator(planted), fs::directory_iterator()) == 1);
  CHECK(fs::last_write_time(planted_entry) == planted_time);
}

TEST_CASE("a shared cache directory keeps its own mode", "[result-cache]") {
  TempDirectory shared;
  fs::permissions(shared.path(), fs::perms::all | fs::perms::sticky_bit);
  std::string note;
  REQUIRE(
      ResultCache::open(shared.path().string(), testing::repository_catalog(), ExtractOptions{}, "", note));
  CHECK(fs::status(shared.path()).permissions() == (fs::perms::all | fs::perms::sticky_bit));
  CHECK((fs::status(shared.path() / entries_folder()).permissions() &
         (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
}
