// The rule-catalog snapshots (scan/catalog_snapshot.h): a catalog read back
// from the cache or from the binary's bundle is the catalog the TOML gives, a
// damaged snapshot is never trusted, and a changed rules file is parsed again.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "core/temporary_directory.h"
#include "scan/bundle/bundled_catalog.h"
#include "scan/catalog_snapshot.h"
#include "scan/result_cache.h"

using namespace mpsaudit;
using mpsaudit::testing::rules_directory;
namespace fs = std::filesystem;

namespace {

// The cache's snapshot alone: these tests see what it does for a rules
// directory the binary did not bundle.
const BundledCatalog kNoBundle{};

// Everything a rule holds, as text: two catalogs with equal summaries hold
// the same rules (the snapshot writes each field; a field it forgot would
// differ here).
std::string summary_of(const RuleCatalog &catalog) {
  std::string text = encode_catalog(catalog);
  for (const RuleFamily &family : catalog.families())
    text += "|" + family.name + "|" + family.prefix + "|" + family.title + "|" + family.description + "|" +
            std::to_string(family.cuda_only) + std::to_string(family.training_scale) +
            std::to_string(family.package_cause);
  for (const Rule &rule : catalog.rules())
    text += "|" + rule.id + "|" + rule.why + "|" + std::to_string(rule.examples.size()) + "|" +
            std::to_string(rule.fallback) + "|" + std::to_string(rule.safety) + "|" +
            std::to_string(rule.cuda_only) + std::to_string(rule.training_scale) +
            std::to_string(rule.package_cause) + std::string(to_string(rule.acceptance)) + "|" +
            std::to_string(catalog.find(rule.id) == &rule);
  return text;
}

std::vector<fs::path> snapshot_files(const fs::path &cache) {
  std::vector<fs::path> found;
  for (const auto &entry : fs::recursive_directory_iterator(cache))
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.')
      found.push_back(entry.path());
  return found;
}

std::string read_text(const fs::path &path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void copy_rules(const fs::path &to) {
  fs::create_directories(to);
  for (const auto &entry : fs::directory_iterator(rules_directory()))
    if (entry.path().extension() == ".toml")
      fs::copy_file(entry.path(), to / entry.path().filename());
}

} // namespace

TEST_CASE("a catalog read from its snapshot is the catalog the TOML gives", "[scan][catalog-snapshot]") {
  TemporaryDirectory cache("mpsaudit-catalog-test-");
  std::vector<Diagnostic> problems;
  const RuleCatalog parsed = RuleCatalog::load_directory(rules_directory(), problems);
  REQUIRE(problems.empty());

  const RuleCatalog first =
      load_rule_catalog_via_snapshots(rules_directory(), cache.path(), kNoBundle, problems);
  REQUIRE(snapshot_files(cache.path()).size() == 1); // written by the first load
  const RuleCatalog second =
      load_rule_catalog_via_snapshots(rules_directory(), cache.path(), kNoBundle, problems);
  CHECK(problems.empty());
  CHECK(first.rules().size() == parsed.rules().size());
  CHECK(summary_of(second) == summary_of(parsed));
  CHECK(catalog_fingerprint(second) == catalog_fingerprint(parsed));
  // A rule's examples come back whole: the examples test reads them.
  const Rule *rule = second.find(parsed.rules().front().id);
  REQUIRE(rule != nullptr);
  REQUIRE(rule->examples.size() == parsed.rules().front().examples.size());
  for (std::size_t i = 0; i < rule->examples.size(); ++i) {
    CHECK(rule->examples[i].code == parsed.rules().front().examples[i].code);
    CHECK(rule->examples[i].also == parsed.rules().front().examples[i].also);
  }
}

TEST_CASE("a damaged catalog snapshot is parsed again, never trusted", "[scan][catalog-snapshot]") {
  TemporaryDirectory cache("mpsaudit-catalog-test-");
  std::vector<Diagnostic> problems;
  const RuleCatalog parsed =
      load_rule_catalog_via_snapshots(rules_directory(), cache.path(), kNoBundle, problems);
  const std::vector<fs::path> files = snapshot_files(cache.path());
  REQUIRE(files.size() == 1);
  const auto size = fs::file_size(files.front());
  fs::resize_file(files.front(), size / 2);
  CHECK(summary_of(load_rule_catalog_via_snapshots(rules_directory(), cache.path(), kNoBundle, problems)) ==
        summary_of(parsed));
  CHECK(problems.empty());
  CHECK(fs::file_size(files.front()) == size); // the parse wrote it whole again

  // A payload that is cut short or runs on decodes to nothing.
  const std::string payload = encode_catalog(parsed);
  CHECK_FALSE(decode_catalog(payload.substr(0, payload.size() - 1)));
  CHECK_FALSE(decode_catalog(payload + "x"));
  CHECK(decode_catalog(payload));
}

TEST_CASE("a changed rules file gets a snapshot of its own", "[scan][catalog-snapshot]") {
  TemporaryDirectory cache("mpsaudit-catalog-test-");
  TemporaryDirectory rules("mpsaudit-catalog-rules-");
  copy_rules(rules.path());
  std::vector<Diagnostic> problems;
  const RuleCatalog before = load_rule_catalog_via_snapshots(rules.path(), cache.path(), kNoBundle, problems);
  const Rule &first_rule = before.rules().front();
  // Edit the first rule's file (a comment is enough): the next load must not
  // take the old snapshot.
  const fs::path file = first_rule.origin;
  std::string text = read_text(fs::path(rules.path()) / file.filename());
  const std::string old_id = "id = \"" + first_rule.id + "\"";
  REQUIRE(text.find(old_id) != std::string::npos);
  text.replace(text.find(old_id), old_id.size(), "id = \"" + first_rule.id + "\"\n# edited");
  std::ofstream(fs::path(rules.path()) / file.filename()) << text;
  load_rule_catalog_via_snapshots(rules.path(), cache.path(), kNoBundle, problems);
  CHECK(snapshot_files(cache.path()).size() == 2);

  // A catalog with a problem is reported and never kept.
  std::ofstream(fs::path(rules.path()) / "broken.toml") << "[family\n";
  load_rule_catalog_via_snapshots(rules.path(), cache.path(), kNoBundle, problems);
  CHECK_FALSE(problems.empty());
  CHECK(snapshot_files(cache.path()).size() == 2);
}

TEST_CASE("without a cache directory the catalog is parsed and nothing is written",
          "[scan][catalog-snapshot]") {
  std::vector<Diagnostic> problems;
  const RuleCatalog catalog = load_rule_catalog_via_snapshots(rules_directory(), "", kNoBundle, problems);
  CHECK(problems.empty());
  CHECK_FALSE(catalog.rules().empty());
}

TEST_CASE("the bundled catalog is the catalog of the source tree's rules", "[scan][catalog-snapshot]") {
  const BundledCatalog bundled = bundled_rule_catalog();
  // The build bundled these very files: a scan of them decodes the bundle.
  REQUIRE_FALSE(bundled.key.empty());
  REQUIRE(bundled_catalog_key(rules_directory()) == std::string(bundled.key));
  std::vector<Diagnostic> problems;
  const RuleCatalog parsed = RuleCatalog::load_directory(rules_directory(), problems);
  REQUIRE(problems.empty());

  TemporaryDirectory cache("mpsaudit-catalog-test-");
  const RuleCatalog loaded =
      load_rule_catalog_via_snapshots(rules_directory(), cache.path(), bundled, problems);
  CHECK(problems.empty());
  CHECK(summary_of(loaded) == summary_of(parsed)); // origins included: encode_catalog writes them
  CHECK(catalog_fingerprint(loaded) == catalog_fingerprint(parsed));
  CHECK(snapshot_files(cache.path()).empty()); // the bundle served it: the cache was not needed
}

TEST_CASE("a copy of the bundled rules takes the bundle, and its rules name the copy",
          "[scan][catalog-snapshot]") {
  TemporaryDirectory rules("mpsaudit-catalog-rules-");
  copy_rules(rules.path());
  std::vector<Diagnostic> problems;
  const RuleCatalog loaded =
      load_rule_catalog_via_snapshots(rules.path(), "", bundled_rule_catalog(), problems);
  CHECK(problems.empty());
  CHECK(summary_of(loaded) == summary_of(RuleCatalog::load_directory(rules.path(), problems)));
  REQUIRE_FALSE(loaded.rules().empty());
  for (const Rule &rule : loaded.rules())
    CHECK(fs::path(rule.origin).parent_path() == fs::path(rules.path()));
}

TEST_CASE("rules that differ from the bundled ones are parsed, never taken from the bundle",
          "[scan][catalog-snapshot]") {
  TemporaryDirectory rules("mpsaudit-catalog-rules-");
  copy_rules(rules.path());
  std::vector<Diagnostic> problems;
  const RuleCatalog original = RuleCatalog::load_directory(rules.path(), problems);
  const Rule &first_rule = original.rules().front();
  const fs::path file = fs::path(rules.path()) / fs::path(first_rule.origin).filename();
  std::string text = read_text(file);
  const std::string old_id = "id = \"" + first_rule.id + "\"";
  REQUIRE(text.find(old_id) != std::string::npos);
  text.replace(text.find(old_id), old_id.size(), old_id + "\nname = \"edited-name\"");
  // A rule names itself once: drop its old name line after the edit.
  const std::size_t edited = text.find("name = \"edited-name\"");
  const std::size_t old_name = text.find("\nname = \"", edited + 1);
  REQUIRE(old_name != std::string::npos);
  text.erase(old_name, text.find('\n', old_name + 1) - old_name);
  std::ofstream(file) << text;

  const RuleCatalog loaded =
      load_rule_catalog_via_snapshots(rules.path(), "", bundled_rule_catalog(), problems);
  CHECK(problems.empty());
  REQUIRE(loaded.find(first_rule.id) != nullptr);
  CHECK(loaded.find(first_rule.id)->name == "edited-name");

  // An added file is a difference too.
  std::ofstream(fs::path(rules.path()) / "zz-extra.toml") << "# nothing\n";
  CHECK(bundled_catalog_key(rules.path()) != std::string(bundled_rule_catalog().key));
}
