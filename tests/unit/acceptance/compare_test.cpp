// mpsaudit compare on the fixture runs of tests/fixtures/compare (written by
// tests/fixtures/compare/make-fixtures.py), and its readers on small inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "acceptance/compare.h"
#include "acceptance_test_support.h"

using namespace mpsaudit::acceptance;
using mpsaudit::testing::compare_fixture;
using mpsaudit::testing::ScratchDirectory;

namespace {

Comparison compare_case(const std::string &name, const CompareOptions &options = {}) {
  const RunDirectory linux_run = read_run_directory(compare_fixture(name, "linux"));
  const RunDirectory mac_run = read_run_directory(compare_fixture(name, "mac"));
  REQUIRE(linux_run.exists);
  REQUIRE(mac_run.exists);
  return compare_runs(linux_run, mac_run, options);
}

std::vector<std::string> statuses(const Comparison &comparison) {
  std::vector<std::string> out;
  for (const CheckResult &check : comparison.checks)
    out.push_back(std::string(to_string(check.status)));
  return out;
}

bool evidence_contains(const CheckResult &check, const std::string &text) {
  for (const std::string &line : check.evidence)
    if (line.find(text) != std::string::npos)
      return true;
  return false;
}

using Statuses = std::vector<std::string>;

} // namespace

TEST_CASE("the checks run in the documented order", "[compare]") {
  const Comparison comparison = compare_case("identical");
  REQUIRE(comparison.checks.size() == 4);
  CHECK(comparison.checks[0].id == "checkpoints");
  CHECK(comparison.checks[1].id == "seeds-config");
  CHECK(comparison.checks[2].id == "metrics");
  CHECK(comparison.checks[3].id == "fallbacks");
  for (int i = 0; i < 4; ++i)
    CHECK(comparison.checks[static_cast<std::size_t>(i)].order == i + 1);
}

TEST_CASE("identical runs: native, with the expected platform differences as evidence", "[compare]") {
  const Comparison comparison = compare_case("identical");
  CHECK(statuses(comparison) == Statuses{"pass", "pass", "pass", "pass"});
  CHECK(comparison.verdict == Verdict::Native);
  CHECK(comparison.roles_from.find("environment records") != std::string::npos);
  CHECK(evidence_contains(comparison.checks[0], "3 tensors, same keys, shapes and dtypes"));
  CHECK(evidence_contains(comparison.checks[0], "cuda:0 vs mps"));
  CHECK(evidence_contains(comparison.checks[1], "same seeds: seed=1234"));
  CHECK(evidence_contains(comparison.checks[1], "device: cuda -> mps"));
  CHECK(evidence_contains(comparison.checks[2],
                          "not compared (timing and memory differ by platform): step_time"));
  CHECK(evidence_contains(comparison.checks[3], "MPS built and available on Apple M2 Pro"));
  CHECK(comparison.diagnostics.empty());
}

TEST_CASE("the Mac run is found by its environment record, whichever argument it is", "[compare]") {
  const RunDirectory linux_run = read_run_directory(compare_fixture("float64-to-float32", "linux"));
  const RunDirectory mac_run = read_run_directory(compare_fixture("float64-to-float32", "mac"));
  const Comparison swapped = compare_runs(mac_run, linux_run);
  CHECK(swapped.reference_path == linux_run.path);
  CHECK(swapped.candidate_path == mac_run.path);
  CHECK(evidence_contains(swapped.checks[0], "pos_table float64 -> float32"));
}

TEST_CASE("metrics within the default tolerance: native", "[compare]") {
  const Comparison comparison = compare_case("within-tolerance");
  CHECK(statuses(comparison) == Statuses{"pass", "pass", "pass", "pass"});
  CHECK(comparison.verdict == Verdict::Native);
  CHECK(evidence_contains(comparison.checks[2], "1.5% apart"));
  CHECK(evidence_contains(comparison.checks[2], "rtol 0.05"));
}

TEST_CASE("metrics beyond tolerance: stopped, and the user's tolerance decides", "[compare]") {
  const Comparison comparison = compare_case("beyond-tolerance");
  CHECK(statuses(comparison) == Statuses{"pass", "pass", "fail", "pass"});
  CHECK(comparison.verdict == Verdict::Stopped);
  CHECK(comparison.checks[2].summary.find("loss") != std::string::npos);
  CHECK(evidence_contains(comparison.checks[2], "25% apart"));
  CHECK(comparison.headline.rfind("stopped:", 0) == 0);

  CompareOptions loose;
  loose.metric_tolerances.push_back({"*", {0.30, 0.0}});
  CHECK(compare_case("beyond-tolerance", loose).verdict == Verdict::Native);

  CompareOptions tight;
  tight.default_tolerance.rtol = 0.01; // the within-tolerance case is 1.5% apart
  CHECK(compare_case("within-tolerance", tight).verdict == Verdict::Stopped);
}

TEST_CASE("every-step mode also checks the steps before the last", "[compare]") {
  // NaN from step 30 on: the last step already fails; every-step counts them.
  CompareOptions every;
  every.every_step = true;
  const Comparison comparison = compare_case("nan-on-mac", every);
  CHECK(comparison.verdict == Verdict::Stopped);
  CHECK(evidence_contains(comparison.checks[2], "(3 beyond tolerance)"));
}

TEST_CASE("a NaN loss on the Mac: stopped", "[compare]") {
  const Comparison comparison = compare_case("nan-on-mac");
  CHECK(statuses(comparison) == Statuses{"pass", "pass", "fail", "pass"});
  CHECK(evidence_contains(comparison.checks[2], "loss is NaN in the Mac run from step 30"));
}

TEST_CASE("mismatched checkpoint keys: stopped", "[compare]") {
  const Comparison comparison = compare_case("key-mismatch");
  CHECK(statuses(comparison) == Statuses{"fail", "pass", "pass", "pass"});
  CHECK(comparison.verdict == Verdict::Stopped);
  CHECK(evidence_contains(comparison.checks[0], "2 keys only in the reference: fc.bias, fc.weight"));
  CHECK(evidence_contains(comparison.checks[0],
                          "3 keys only in the Mac run: head.bias, head.weight, norm.weight"));
}

TEST_CASE("a float64 tensor stored as float32 on the Mac: dual, not a failure", "[compare]") {
  const Comparison comparison = compare_case("float64-to-float32");
  CHECK(statuses(comparison) == Statuses{"caveat", "pass", "pass", "pass"});
  CHECK(comparison.verdict == Verdict::Dual);
  CHECK(evidence_contains(comparison.checks[0], "MPS has no float64"));
}

TEST_CASE("DataParallel's module. prefix on the reference: the same model", "[compare]") {
  const Comparison comparison = compare_case("dataparallel-prefix");
  CHECK(statuses(comparison) == Statuses{"caveat", "pass", "pass", "pass"});
  CHECK(evidence_contains(comparison.checks[0], "differ only by the DataParallel \"module.\" prefix"));
}

TEST_CASE("recorded CPU fallbacks: dual, naming the operators", "[compare]") {
  const Comparison comparison = compare_case("fallbacks");
  CHECK(statuses(comparison) == Statuses{"pass", "pass", "pass", "caveat"});
  CHECK(comparison.verdict == Verdict::Dual);
  CHECK(evidence_contains(comparison.checks[3], "PYTORCH_ENABLE_MPS_FALLBACK=1"));
  CHECK(evidence_contains(comparison.checks[3], "aten::isin.Tensor_Tensor_out (train.log:2)"));
}

TEST_CASE("an operator MPS lacks stopped the Mac run: stopped", "[compare]") {
  const Comparison comparison = compare_case("not-implemented");
  CHECK(comparison.checks[3].status == CheckStatus::Fail);
  CHECK(comparison.verdict == Verdict::Stopped);
  CHECK(evidence_contains(comparison.checks[3], "aten::index_copy.out"));
  // The Mac run's log ends early; the metrics compare up to step 20.
  CHECK(comparison.checks[2].status == CheckStatus::Caveat);
  CHECK(evidence_contains(comparison.checks[2], "logs end at step 20, the reference's at step 50"));
}

TEST_CASE("different seeds: dual until rerun with the same seed", "[compare]") {
  const Comparison comparison = compare_case("seed-mismatch");
  CHECK(statuses(comparison) == Statuses{"pass", "caveat", "pass", "pass"});
  CHECK(evidence_contains(comparison.checks[1], "different seeds: seed: 1234 -> 99"));
}

TEST_CASE("empty run directories: every check lacks evidence, nothing crashes", "[compare]") {
  ScratchDirectory scratch;
  std::filesystem::create_directories(scratch.path() / "a");
  std::filesystem::create_directories(scratch.path() / "b");
  const Comparison comparison = compare_runs(read_run_directory((scratch.path() / "a").string()),
                                             read_run_directory((scratch.path() / "b").string()));
  CHECK(statuses(comparison) == Statuses{"skipped", "skipped", "skipped", "caveat"});
  CHECK(comparison.verdict == Verdict::Dual);
  CHECK(comparison.roles_from.find("argument order") != std::string::npos);

  const RunDirectory missing = read_run_directory((scratch.path() / "nope").string());
  CHECK_FALSE(missing.exists);
  REQUIRE(missing.diagnostics.size() == 1);
  CHECK(missing.diagnostics[0].code == "not-a-directory");
}

TEST_CASE("bad files in a run become diagnostics naming them", "[compare]") {
  ScratchDirectory scratch;
  scratch.write("run/env.json", "{\"schema\": \"mpsaudit-env-record\", \"schema_version\": 7}");
  scratch.write("run/config.yaml", "a: [1, 2\n");
  scratch.write("run/weights.pt", "this is not a checkpoint");
  scratch.write("run/metrics.csv", "loss,accuracy\n0.5,0.9\n");
  scratch.write("run/seed.txt", "forty-two\n");
  const RunDirectory run = read_run_directory((scratch.path() / "run").string());
  std::vector<std::string> codes;
  for (const auto &diagnostic : run.diagnostics)
    codes.push_back(diagnostic.code + "@" + diagnostic.path);
  std::sort(codes.begin(), codes.end());
  CHECK(codes == std::vector<std::string>{"bad-env-record@env.json", "config-parse-error@config.yaml",
                                          "metrics-no-step@metrics.csv", "not-a-checkpoint@weights.pt",
                                          "seed-not-a-number@seed.txt"});
  CHECK_FALSE(run.env);
  CHECK(run.metrics.empty());
}

TEST_CASE("metric logs: CSV with any delimiter, JSON lines with bare NaN", "[compare][readers]") {
  RunDirectory run;
  CHECK(parse_metrics_csv("# written by train.py\nglobal_step\ttrain/loss\tnote\n0\t1.5\tok\n10\t1.25\tok\n",
                          "log.tsv", run));
  CHECK(run.step_column == "global_step");
  CHECK(run.metrics.at("train/loss").at(10) == 1.25);
  CHECK_FALSE(run.metrics.count("note")); // text columns are not metrics

  RunDirectory semicolons;
  CHECK(parse_metrics_csv("step;loss\n1;\"0.5\"\n", "log.csv", semicolons));
  CHECK(semicolons.metrics.at("loss").at(1) == 0.5);

  RunDirectory lines;
  CHECK(parse_metrics_jsonl("{\"step\": 1, \"loss\": 0.5, \"eval\": {\"acc\": 0.9}}\n"
                            "{\"step\": 2, \"loss\": NaN}\nnot json\n{\"loss\": 3}\n",
                            "metrics.jsonl", lines));
  CHECK(lines.metrics.at("eval.acc").at(1) == 0.9);
  CHECK(std::isnan(lines.metrics.at("loss").at(2)));
  std::vector<std::string> codes;
  for (const auto &diagnostic : lines.diagnostics)
    codes.push_back(diagnostic.code + ":" + std::to_string(diagnostic.line));
  CHECK(codes == std::vector<std::string>{"metrics-bad-line:3", "metrics-no-step:4"});
}

TEST_CASE("two logs with the same column keep them apart", "[compare][readers]") {
  RunDirectory run;
  parse_metrics_csv("step,loss\n1,0.5\n", "train.csv", run);
  parse_metrics_csv("step,loss\n1,0.7\n", "eval.csv", run);
  CHECK(run.metrics.at("loss").at(1) == 0.5);
  CHECK(run.metrics.at("eval/loss").at(1) == 0.7);
}

TEST_CASE("fallback warnings and MPS errors are found in logs", "[compare][readers]") {
  const std::string log =
      "step 1\n"
      "UserWarning: The operator 'aten::isin.Tensor_Tensor_out' is not currently supported on the MPS "
      "backend "
      "and will fall back to run on the CPU. This may have performance implications.\n"
      "UserWarning: The operator 'aten::isin.Tensor_Tensor_out' is not currently supported on the MPS "
      "backend "
      "and will fall back to run on the CPU. This may have performance implications.\n"
      "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. "
      "Please use float32 instead.\n";
  const auto found = scan_log_for_fallbacks(log, "train.log");
  REQUIRE(found.size() == 2); // the repeated warning counts once
  CHECK(found[0].kind == "fallback-warning");
  CHECK(found[0].op == "aten::isin.Tensor_Tensor_out");
  CHECK(found[0].line == 2);
  CHECK(found[1].kind == "mps-error");
  CHECK(found[1].line == 4);
}

TEST_CASE("configs flatten from JSON, YAML and seed files", "[compare][readers]") {
  RunDirectory run;
  flatten_config("{\"optimizer\": {\"lr\": 0.001, \"betas\": [0.9, 0.999]}, \"name\": \"x\"}", "config.json",
                 run);
  flatten_config("trainer:\n  accelerator: mps\n  precision: 32\n", "hparams.yaml", run);
  flatten_config("1234\n", "seed", run);
  CHECK(run.config.at("optimizer.lr") == "0.001");
  CHECK(run.config.at("optimizer.betas[1]") == "0.999");
  CHECK(run.config.at("name") == "x");
  CHECK(run.config.at("trainer.accelerator") == "mps");
  CHECK(run.config.at("seed") == "1234");
  CHECK(run.config_files == std::vector<std::string>{"config.json", "hparams.yaml", "seed"});
}

// 100,000 nested arrays overflowed the stack of the recursive flattening.
TEST_CASE("deeply nested configs and metric records are cut off with a note",
          "[compare][readers][robustness]") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  RunDirectory run;
  flatten_config("{\"lr\": 0.1, \"deep\": " + deep + "}", "config.json", run);
  flatten_config("lr2: 0.2\ndeep: " + std::string(1000, '[') + std::string(1000, ']') + "\n", "hparams.yaml",
                 run);
  CHECK(parse_metrics_jsonl("{\"step\": 1, \"loss\": 0.5, \"deep\": " + deep + "}\n", "metrics.jsonl", run));
  CHECK(run.config.at("lr") == "0.1");
  CHECK(run.metrics.at("loss").at(1) == 0.5);
  std::vector<std::string> codes;
  for (const auto &diagnostic : run.diagnostics)
    codes.push_back(diagnostic.code + "@" + diagnostic.path);
  CHECK(std::count(codes.begin(), codes.end(), "nesting-limit@config.json") == 1);
  CHECK(std::count(codes.begin(), codes.end(), "nesting-limit@metrics.jsonl") == 1);
  // yaml-cpp refuses this depth itself (DeepRecursion) or it is cut off: either way, a diagnostic.
  CHECK((std::count(codes.begin(), codes.end(), "nesting-limit@hparams.yaml") +
         std::count(codes.begin(), codes.end(), "config-parse-error@hparams.yaml")) == 1);
}

TEST_CASE("globs match metric and config names without regard to case", "[compare][readers]") {
  CHECK(glob_match("*time*", "Step_Time"));
  CHECK(glob_match("val/*", "val/loss"));
  CHECK_FALSE(glob_match("val/*", "train/loss"));
}

TEST_CASE("the verdict follows the worst check", "[compare]") {
  auto check = [](CheckStatus status) { return CheckResult{1, "x", "x", status, "", {}}; };
  CHECK(verdict_of({check(CheckStatus::Pass), check(CheckStatus::Pass)}) == Verdict::Native);
  CHECK(verdict_of({check(CheckStatus::Pass), check(CheckStatus::Skipped)}) == Verdict::Dual);
  CHECK(verdict_of({check(CheckStatus::Caveat), check(CheckStatus::Pass)}) == Verdict::Dual);
  CHECK(verdict_of({check(CheckStatus::Caveat), check(CheckStatus::Fail)}) == Verdict::Stopped);
}

TEST_CASE("the comparison's JSON names the verdict and every check", "[compare]") {
  const nlohmann::json json = to_json(compare_case("fallbacks"));
  CHECK(json["schema"] == "mpsaudit-comparison");
  CHECK(json["verdict"] == "dual");
  REQUIRE(json["checks"].size() == 4);
  CHECK(json["checks"][3]["status"] == "caveat");
  CHECK(comparison_text(compare_case("identical")).find("Verdict: native") != std::string::npos);
}

TEST_CASE("different torch releases in the two runs are a caveat, different builds are not", "[compare]") {
  const RunDirectory linux_run = read_run_directory(compare_fixture("identical", "linux"));
  RunDirectory mac_run = read_run_directory(compare_fixture("identical", "mac"));
  CHECK(evidence_contains(compare_runs(linux_run, mac_run).checks[1],
                          "same torch release: 2.4.0+cu121 vs 2.4.0"));
  REQUIRE(mac_run.env);
  mac_run.env->interpreters[0].torch.version = "2.1.0";
  const Comparison comparison = compare_runs(linux_run, mac_run);
  CHECK(comparison.checks[1].status == CheckStatus::Caveat);
  CHECK(
      evidence_contains(comparison.checks[1], "different torch releases: 2.4.0+cu121 (reference) vs 2.1.0"));
  CHECK(comparison.verdict == Verdict::Dual);
}
