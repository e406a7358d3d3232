// The project config: every key, its validation with file and line, the
// pyproject form, discovery by walking up, rule selection, path settings.
#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "../scratch_tree.h"
#include "../test_support.h"
#include "config/config.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

Config load_ok(const std::string &text, const std::string &path = "proj/mpsaudit.toml") {
  std::vector<Diagnostic> diagnostics;
  ConfigLoad load = load_config_text(text, path, diagnostics);
  INFO((diagnostics.empty() ? std::string() : diagnostics.front().message));
  REQUIRE(diagnostics.empty());
  REQUIRE(load.has_table);
  return load.config;
}

std::vector<Diagnostic> load_errors(const std::string &text, const std::string &path = "mpsaudit.toml") {
  std::vector<Diagnostic> diagnostics;
  load_config_text(text, path, diagnostics);
  return diagnostics;
}

std::vector<std::string> ids(const RuleCatalog &catalog) {
  std::vector<std::string> out;
  for (const auto &rule : catalog.rules())
    out.push_back(rule.id);
  return out;
}

bool has(const std::vector<std::string> &list, const std::string &item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

} // namespace

TEST_CASE("every top-level key is read with its source line", "[config]") {
  const Config config = load_ok("include = [\"src/**\"]\n"
                                "exclude = [\"third_party\", \"**/legacy\"]\n"
                                "target-torch = \"2.6\"\n"
                                "fail-on = \"error\"\n"
                                "baseline = \".mpsaudit-baseline\"\n");
  CHECK(config.include.value == std::vector<std::string>{"src/**"});
  CHECK(config.include.source.line == 1);
  CHECK(config.exclude.value == std::vector<std::string>{"third_party", "**/legacy"});
  CHECK(config.exclude.source.describe() == "proj/mpsaudit.toml:2");
  CHECK(config.target_torch.value == "2.6");
  CHECK(config.target_torch.source.line == 3);
  CHECK(config.fail_on.value == "error");
  CHECK(config.baseline.value == ".mpsaudit-baseline");
  CHECK(config.baseline.source.line == 5);
  CHECK(config.directory == "proj");
  CHECK(config.enable.source.is_default());
}

TEST_CASE("rules, per-path-ignores, roles and assess are read", "[config]") {
  const Config config = load_ok("[rules]\n"
                                "enable = [\"MPS1\", \"device\"]\n"
                                "disable = [\"MPS102\"]\n"
                                "[per-path-ignores]\n"
                                "\"tests/**\" = [\"MPS2\"]\n"
                                "\"scripts/*.sh\" = [\"MPS9\", \"MPS101\"]\n"
                                "[roles]\n"
                                "\"tools/**\" = \"tooling\"\n"
                                "[assess]\n"
                                "adapt-max-hours = 40\n"
                                "keep-min-hours = 300.5\n"
                                "blocker-min-effort = \"medium\"\n"
                                "fallback-item-min-effort = \"large\"\n"
                                "training-scale-families = [\"distributed\", \"libraries\"]\n"
                                "training-scale-rules = [\"MPS402\"]\n"
                                "training-scale-min-effort = \"small\"\n"
                                "critical-roles = [\"model\"]\n"
                                "peripheral-roles = [\"tests\", \"docs\", \"tooling\"]\n"
                                "memory-decides = false\n"
                                "effort-model = \"effort.toml\"\n");
  CHECK(config.enable.value == std::vector<std::string>{"MPS1", "device"});
  CHECK(config.enable.source.line == 2);
  CHECK(config.disable.value == std::vector<std::string>{"MPS102"});
  REQUIRE(config.per_path_ignores.size() == 2);
  const auto &scripts = *std::find_if(config.per_path_ignores.begin(), config.per_path_ignores.end(),
                                      [](const PathSetting &s) { return s.pattern == "scripts/*.sh"; });
  CHECK(scripts.values == std::vector<std::string>{"MPS9", "MPS101"});
  CHECK(scripts.source.line == 6);
  REQUIRE(config.roles.size() == 1);
  CHECK(config.roles.front().values.front() == "tooling");
  const AssessSettings &assess = config.assess;
  REQUIRE(assess.adapt_max_hours);
  CHECK(assess.adapt_max_hours->value == 40);
  CHECK(assess.adapt_max_hours->source.line == 10);
  CHECK(assess.keep_min_hours->value == Approx(300.5));
  CHECK(assess.blocker_min_effort->value == "medium");
  CHECK(assess.fallback_item_min_effort->value == "large");
  CHECK(assess.training_scale_families->value.size() == 2);
  CHECK(assess.training_scale_rules->value == std::vector<std::string>{"MPS402"});
  CHECK(assess.training_scale_min_effort->value == "small");
  CHECK(assess.critical_roles->value == std::vector<std::string>{"model"});
  CHECK(assess.peripheral_roles->value.size() == 3);
  CHECK(assess.memory_decides->value == false);
  CHECK(assess.effort_model->value == "effort.toml");
}

TEST_CASE("unknown keys are errors naming the key and the line", "[config]") {
  auto errors = load_errors("include = []\nexlcude = [\"x\"]\n");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].line == 2);
  CHECK(errors[0].path == "mpsaudit.toml");
  CHECK(errors[0].message.find("`exlcude`") != std::string::npos);

  errors = load_errors(
      "[rules]\nenabled = [\"MPS1\"]\n[assess]\n\nadapt-hours = 3\n[per-path-ignores]\n\"a\" = [\"MPS1\"]\n");
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].line == 2);
  CHECK(errors[0].message.find("`rules.enabled`") != std::string::npos);
  CHECK(errors[1].line == 5);
  CHECK(errors[1].message.find("`assess.adapt-hours`") != std::string::npos);
}

TEST_CASE("wrong values are errors with their line", "[config]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"include = \"src\"\n", "`include` must be an array"},
      {"exclude = [1]\n", "only strings"},
      {"target-torch = \"latest\"\n", "release such as"},
      {"fail-on = \"loud\"\n", "error, warning, info or never"},
      {"[roles]\n\"a/**\" = \"frontend\"\n",
       "must be one of model, training, data, inference, evaluation, tooling, tests, docs"},
      {"[assess]\nadapt-max-hours = -1\n", "number of hours"},
      {"[assess]\nblocker-min-effort = \"huge\"\n", "effort class"},
      {"[assess]\ncritical-roles = [\"gpu\"]\n",
       "unknown role \"gpu\" (model, training, data, inference, evaluation,"},
      {"[assess]\ntraining-scale-rules = [\"E501\"]\n", "not a rule ID"},
      {"[assess]\nmemory-decides = \"yes\"\n", "true or false"},
      {"[per-path-ignores]\n\"x\" = \"MPS1\"\n", "array of strings"},
      {"rules = 3\n", "must be a table"},
      {"include = [\n", ""}, // a TOML syntax error
  };
  for (const auto &[text, fragment] : cases) {
    INFO(text);
    const auto errors = load_errors(text);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].line >= 1);
    CHECK(errors[0].level == DiagnosticLevel::Error);
    CHECK(errors[0].message.find(fragment) != std::string::npos);
  }
}

TEST_CASE("[tool.mpsaudit] in pyproject.toml, with its own line numbers", "[config]") {
  std::vector<Diagnostic> diagnostics;
  const ConfigLoad load =
      load_config_text("[project]\nname = \"x\"\n\n[tool.mpsaudit]\nexclude = [\"docs\"]\nbogus = 1\n",
                       "repo/pyproject.toml", diagnostics);
  CHECK(load.has_table);
  CHECK(load.config.from_pyproject);
  CHECK(load.config.exclude.value == std::vector<std::string>{"docs"});
  CHECK(load.config.exclude.source.line == 5);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].line == 6);
  CHECK(diagnostics[0].message.find("`tool.mpsaudit.bogus`") != std::string::npos);

  diagnostics.clear();
  const ConfigLoad none = load_config_text("[project]\nname = \"x\"\n", "pyproject.toml", diagnostics);
  CHECK_FALSE(none.has_table);
  CHECK(diagnostics.empty());
}

TEST_CASE("the config is found by walking up, mpsaudit.toml first, stopping at the repository", "[config]") {
  const testing::ScratchTree tree("mpsaudit-config");
  tree.write("repo/.git/HEAD", "ref: refs/heads/main\n");
  fs::create_directories(tree.root() / "repo/.git/objects");
  tree.write("repo/pyproject.toml", "[tool.mpsaudit]\nexclude = []\n");
  tree.write("repo/src/pkg/model.py", "import torch\n");
  tree.write("mpsaudit.toml", "exclude = []\n"); // above the repository: never used
  std::vector<Diagnostic> diagnostics;
  CHECK(find_config_file((tree.root() / "repo/src/pkg").string(), diagnostics) ==
        (tree.root() / "repo/pyproject.toml").string());
  CHECK(find_config_file((tree.root() / "repo/src/pkg/model.py").string(), diagnostics) ==
        (tree.root() / "repo/pyproject.toml").string());
  tree.write("repo/src/mpsaudit.toml", "exclude = []\n");
  CHECK(find_config_file((tree.root() / "repo/src/pkg").string(), diagnostics) ==
        (tree.root() / "repo/src/mpsaudit.toml").string());
  // A pyproject without [tool.mpsaudit] is passed over.
  tree.write("other/.git/HEAD", "x");
  tree.write("other/pyproject.toml", "[project]\nname = \"x\"\n");
  CHECK(find_config_file((tree.root() / "other").string(), diagnostics).empty());
  CHECK(diagnostics.empty());
}

TEST_CASE("outside git the search stops at the scanned directory", "[config][security]") {
  const testing::ScratchTree tree("mpsaudit-config");
  tree.write("shared/mpsaudit.toml", "exclude = [\"**\"]\n"); // a shared folder's: never used
  tree.write("shared/project/src/model.py", "import torch\n");
  std::vector<Diagnostic> diagnostics;
  const fs::path project = tree.root() / "shared/project";
  CHECK(config_search_top(project.string()) == project.string());
  CHECK(find_config_file(project.string(), diagnostics).empty());
  CHECK(find_config_file((project / "src").string(), diagnostics).empty());
  // A scanned file stands for its directory.
  CHECK(config_search_top((project / "src/model.py").string()) == (project / "src").string());
  CHECK(find_config_file((project / "src/model.py").string(), diagnostics).empty());
  // The scanned directory's own config is found, from it or from below it.
  tree.write("shared/project/mpsaudit.toml", "exclude = []\n");
  CHECK(find_config_file(project.string(), diagnostics) == (project / "mpsaudit.toml").string());
  CHECK(find_config_file((project / "src").string(), diagnostics).empty());
  CHECK(diagnostics.empty());
}

TEST_CASE("a git work tree whose .git the user does not own ends nothing", "[config][security]") {
  if (::geteuid() != 0)
    return; // only root can give the .git to another user
  const testing::ScratchTree tree("mpsaudit-config");
  tree.write("shared/.git/HEAD", "ref: refs/heads/main\n");
  fs::create_directories(tree.root() / "shared/.git/objects");
  REQUIRE(::lchown((tree.root() / "shared/.git").c_str(), 65534, 65534) == 0);
  tree.write("shared/mpsaudit.toml", "exclude = [\"**\"]\n");
  tree.write("shared/project/a.py", "");
  std::vector<Diagnostic> diagnostics;
  const fs::path project = tree.root() / "shared/project";
  CHECK(config_search_top(project.string()) == project.string());
  CHECK(find_config_file(project.string(), diagnostics).empty());
}

TEST_CASE("rule selection: IDs, prefixes and family names, most specific wins", "[config]") {
  const RuleCatalog &full = testing::repository_catalog();
  SECTION("disable a family but keep one of its rules") {
    Config config;
    config.enable.value = {"MPS101"};
    config.disable.value = {"torch-cuda"};
    RuleCatalog catalog = full;
    std::vector<Diagnostic> diagnostics;
    apply_rule_selection(config, catalog, diagnostics);
    CHECK(diagnostics.empty());
    const auto kept = ids(catalog);
    CHECK(has(kept, "MPS101"));
    CHECK_FALSE(has(kept, "MPS102"));
    CHECK_FALSE(has(kept, "MPS201")); // an enable list keeps only what it selects
  }
  SECTION("disable alone keeps everything else") {
    Config config;
    config.disable.value = {"MPS2", "MPS101"};
    RuleCatalog catalog = full;
    std::vector<Diagnostic> diagnostics;
    apply_rule_selection(config, catalog, diagnostics);
    const auto kept = ids(catalog);
    CHECK_FALSE(has(kept, "MPS201"));
    CHECK_FALSE(has(kept, "MPS101"));
    CHECK(has(kept, "MPS102"));
    CHECK(has(kept, "MPS001"));
  }
  SECTION("a safety rule stays unless the user's own selection drops it") {
    Config tree_config;
    tree_config.enable.value = {"MPS1"};
    tree_config.disable.value = {"checkpoints"};
    RuleCatalog catalog = full;
    std::vector<Diagnostic> diagnostics;
    CHECK(apply_rule_selection(tree_config, Config{}, catalog, diagnostics) ==
          std::vector<std::string>{"MPS964"});
    CHECK(diagnostics.empty());
    const auto kept = ids(catalog);
    CHECK(has(kept, "MPS964"));
    CHECK_FALSE(has(kept, "MPS960")); // not a safety rule: the tree's selection holds
    CHECK(has(kept, "MPS101"));
    Config user;
    user.disable.value = {"MPS964"};
    RuleCatalog user_catalog = full;
    CHECK(apply_rule_selection(tree_config, user, user_catalog, diagnostics).empty());
    CHECK_FALSE(has(ids(user_catalog), "MPS964"));
  }
  SECTION("a selector that selects nothing is an error naming its source") {
    Config config;
    config.disable.value = {"MPS999", "no-such-family"};
    config.disable.source = ValueSource{"mpsaudit.toml", 7};
    RuleCatalog catalog = full;
    std::vector<Diagnostic> diagnostics;
    apply_rule_selection(config, catalog, diagnostics);
    REQUIRE(diagnostics.size() == 2);
    CHECK(diagnostics[0].path == "mpsaudit.toml");
    CHECK(diagnostics[0].line == 7);
    CHECK(diagnostics[0].message.find("MPS999") != std::string::npos);
  }
}

TEST_CASE("include, exclude, per-path ignores and roles use paths relative to the config", "[config]") {
  const Config config = load_ok("include = [\"src/**\", \"train.py\"]\n"
                                "exclude = [\"**/legacy\", \"*_generated.py\"]\n"
                                "[per-path-ignores]\n\"src/tests/**\" = [\"MPS2\", \"dtype\"]\n"
                                "[roles]\n\"src/**\" = \"model\"\n\"src/data/**\" = \"data\"\n");
  const ConfigPaths at_root(config, "");
  CHECK(at_root.keep("src/model.py"));
  CHECK(at_root.keep("train.py"));
  CHECK_FALSE(at_root.keep("scripts/run.py"));     // not included
  CHECK_FALSE(at_root.keep("src/legacy/old.py"));  // excluded directory
  CHECK_FALSE(at_root.keep("src/a_generated.py")); // excluded name
  const RuleCatalog &catalog = testing::repository_catalog();
  CHECK(at_root.ignored("src/tests/t.py", *catalog.find("MPS201"), catalog));
  CHECK(at_root.ignored("src/tests/t.py", *catalog.find("MPS301"), catalog)); // family name
  CHECK_FALSE(at_root.ignored("src/tests/t.py", *catalog.find("MPS101"), catalog));
  CHECK_FALSE(at_root.ignored("src/model.py", *catalog.find("MPS201"), catalog));
  CHECK(at_root.role("src/net.py") == "model");
  CHECK(at_root.role("src/data/loader.py") == "data"); // the last matching glob wins
  CHECK(at_root.role("train.py").empty());
  // Scanning the src/ folder: its paths are seen as the config sees them.
  const ConfigPaths in_src(config, "src");
  CHECK(in_src.keep("model.py"));
  CHECK_FALSE(in_src.keep("legacy/x.py"));
  CHECK(in_src.role("data/x.py") == "data");
}

TEST_CASE("the scan root is expressed relative to the config's directory", "[config]") {
  const testing::ScratchTree tree("mpsaudit-config");
  tree.write("mpsaudit.toml", "");
  tree.write("src/sub/a.py", "");
  Config config;
  config.file = (tree.root() / "mpsaudit.toml").string();
  config.directory = tree.root().string();
  CHECK(root_prefix_for(config, (tree.root() / "src/sub").string()) == "src/sub");
  CHECK(root_prefix_for(config, (tree.root() / "src/sub/a.py").string()) == "src/sub");
  CHECK(root_prefix_for(config, tree.root().string()).empty());
  CHECK(root_prefix_for(Config{}, "anything").empty());
}

TEST_CASE("target-torch picks a coverage table; unknown releases are errors", "[config]") {
  const testing::ScratchTree tree("mpsaudit-config");
  for (const char *version : {"2.0.0", "2.6.0", "2.11.0"})
    tree.write(std::string("coverage/") + version + ".tsv", "");
  std::vector<Diagnostic> diagnostics;
  Config config;
  CHECK(resolve_target_torch(config, (tree.root() / "coverage").string(), diagnostics) ==
        "2.11.0"); // newest, numerically
  config.target_torch.value = "2.6";
  CHECK(resolve_target_torch(config, (tree.root() / "coverage").string(), diagnostics) == "2.6.0");
  CHECK(diagnostics.empty());
  config.target_torch = Setting<std::string>{"1.9", ValueSource{"mpsaudit.toml", 3}};
  CHECK(resolve_target_torch(config, (tree.root() / "coverage").string(), diagnostics).empty());
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].line == 3);
  CHECK(diagnostics[0].message.find("2.0.0, 2.6.0, 2.11.0") != std::string::npos);
}

TEST_CASE("config --show text names every value's source", "[config]") {
  const Config config =
      load_ok("exclude = [\"docs\"]\n[assess]\nadapt-max-hours = 40\n[roles]\n\"tools/**\" = \"tooling\"\n",
              "mpsaudit.toml");
  const std::string shown = describe_config(config);
  CHECK(shown.find("# config file: mpsaudit.toml") != std::string::npos);
  CHECK(shown.find("exclude = [\"docs\"]") != std::string::npos);
  CHECK(shown.find("# mpsaudit.toml:1") != std::string::npos);
  CHECK(shown.find("adapt-max-hours = 40") != std::string::npos);
  CHECK(shown.find("# mpsaudit.toml:3") != std::string::npos);
  CHECK(shown.find("\"tools/**\" = \"tooling\"") != std::string::npos);
  CHECK(shown.find("include = []") != std::string::npos);
  CHECK(shown.find("# default") != std::string::npos);
}

// Finding 16 of the security review: `keep-min-hours = nan` passed the
// "zero or more" check (nan compares false) and reached the decision.
TEST_CASE("hour thresholds must be finite and not negative", "[config][security]") {
  for (const std::string key : {"keep-min-hours", "adapt-max-hours"})
    for (const std::string value : {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "-1", "-0.5"}) {
      const std::string text = "[assess]\n" + key + " = " + value + "\n";
      INFO(text);
      const auto errors = load_errors(text, "proj/mpsaudit.toml");
      REQUIRE(errors.size() == 1);
      CHECK(errors[0].level == DiagnosticLevel::Error); // exit code 2, before anything is scanned
      CHECK(errors[0].path == "proj/mpsaudit.toml");
      CHECK(errors[0].line == 2);
      CHECK(errors[0].message == "`assess." + key + "` must be a finite number of hours, zero or more");
    }
  CHECK(load_ok("[assess]\nkeep-min-hours = 0\nadapt-max-hours = 1e3\n").assess.adapt_max_hours->value ==
        1000);
}

TEST_CASE("config --show prints TOML that reads back to the same config", "[config]") {
  const Config config = load_ok("exclude = [\"docs\", \"odd \\\"name\\\"\"]\ntarget-torch = \"2.4\"\n"
                                "[assess]\nadapt-max-hours = 40\n"
                                "[per-path-ignores]\n\"tools/*.py\" = [\"MPS201\"]\n"
                                "[roles]\n\"tools/**\" = \"tooling\"\n",
                                "mpsaudit.toml");
  const std::string shown = describe_config(config);
  INFO(shown);
  const Config again = load_ok(shown, "shown.toml");
  CHECK(again.exclude.value == config.exclude.value);
  CHECK(again.target_torch.value == "2.4");
  REQUIRE(again.assess.adapt_max_hours);
  CHECK(again.assess.adapt_max_hours->value == 40);
  CHECK_FALSE(again.assess.keep_min_hours); // unset stays unset: a commented-out line
  REQUIRE(again.per_path_ignores.size() == 1);
  CHECK(again.per_path_ignores[0].pattern == "tools/*.py");
  REQUIRE(again.roles.size() == 1);
  CHECK(again.roles[0].values.front() == "tooling");
}
