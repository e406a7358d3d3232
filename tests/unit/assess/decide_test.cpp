// decide() on inputs built directly, one criterion at a time (docs/decision.md,
// "Criteria"): no source text, front end or rule catalog in between.
#include <catch2/catch.hpp>

#include "assess/decision.h"

using namespace mpsaudit;

namespace {

Rule rule_of(std::string id, std::string family, std::string summary, Effort effort, Severity severity) {
  Rule rule;
  rule.id = std::move(id);
  rule.family = std::move(family);
  rule.summary = std::move(summary);
  rule.effort = effort;
  rule.severity = severity;
  return rule;
}

// A CUDA-only library rule, as the catalog has them: large, an error.
Rule cuda_library_rule() {
  Rule rule = rule_of("MPS401", "library", "CUDA-only libraries", Effort::Large, Severity::Error);
  rule.cuda_only = true;
  return rule;
}

// Multi-GPU machinery: the distributed family, a warning.
Rule distributed_rule() {
  return rule_of("MPS501", "distributed", "NCCL process groups", Effort::Small, Severity::Warning);
}

// Everything decide() reads, with nothing in it until a test adds it.
struct Case {
  ScanResult scan;
  std::map<std::string, Role> role_of;
  std::set<std::string> non_deciding;
  std::map<std::string, std::string> kept_on_linux;
  EffortEstimate effort;
  MemoryFit memory;
  DecisionThresholds thresholds;
  std::vector<bool> excluded;

  void add(const Rule &rule, const std::string &path, Role role, Guard guard = Guard::None) {
    Finding finding;
    finding.rule = &rule;
    finding.rule_id = rule.id;
    finding.path = path;
    finding.name = "flash_attn";
    finding.span.line = 3;
    finding.severity = static_cast<int>(rule.severity);
    finding.file_kind = FileKind::Python;
    finding.guard = guard;
    scan.findings.push_back(finding);
    role_of[path] = role;
  }

  Verdict verdict(VerdictDetail detail = VerdictDetail::Factors) const {
    return decide({scan, role_of, non_deciding, kept_on_linux, effort, memory, thresholds, excluded}, detail);
  }
};

std::vector<FactorKind> kinds_of(const Verdict &verdict) {
  std::vector<FactorKind> kinds;
  for (const DecisionFactor &factor : verdict.factors)
    kinds.push_back(factor.kind);
  return kinds;
}

} // namespace

TEST_CASE("decide: nothing to weigh is ADAPT", "[assess][decide]") {
  const Case empty;
  const Verdict verdict = empty.verdict();
  CHECK(verdict.outcome == Outcome::Adapt);
  CHECK(verdict.factors.empty());
}

TEST_CASE("decide: a CUDA-only blocker in model code is KEEP_LINUX_GPU; in training code, DUAL",
          "[assess][decide]") {
  const Rule rule = cuda_library_rule();
  Case model;
  model.add(rule, "model/attn.py", Role::Model);
  const Verdict keep = model.verdict();
  CHECK(keep.outcome == Outcome::KeepLinuxGpu);
  CHECK(kinds_of(keep) == std::vector<FactorKind>{FactorKind::CriticalBlocker});
  CHECK(keep.factors[0].summary.find("model/attn.py:3") != std::string::npos);

  Case training;
  training.add(rule, "train/loop.py", Role::Training);
  const Verdict dual = training.verdict();
  CHECK(dual.outcome == Outcome::Dual);
  CHECK(kinds_of(dual) == std::vector<FactorKind>{FactorKind::TrainingBlocker});
}

TEST_CASE("decide: a file no main entry runs never decides", "[assess][decide]") {
  const Rule rule = cuda_library_rule();
  Case only_tests;
  only_tests.add(rule, "model/attn.py", Role::Model);
  only_tests.non_deciding.insert("model/attn.py");
  CHECK(only_tests.verdict().outcome == Outcome::Adapt);
  CHECK(only_tests.verdict().factors.empty());
}

TEST_CASE("decide: a blocker in an entry Linux keeps beside a Mac-capable one is DUAL, naming it",
          "[assess][decide]") {
  const Rule rule = cuda_library_rule();
  Case sibling;
  sibling.add(rule, "sample_multi_gpu.py", Role::Inference);
  sibling.kept_on_linux["sample_multi_gpu.py"] = "sample.py (inference)";
  const Verdict verdict = sibling.verdict();
  CHECK(verdict.outcome == Outcome::Dual);
  REQUIRE(kinds_of(verdict) == std::vector<FactorKind>{FactorKind::EntryBlocker});
  CHECK(verdict.factors[0].summary.find("sample.py (inference) does the same job on a Mac") !=
        std::string::npos);
}

TEST_CASE("decide: a guarded large item is a fallback: ADAPT in model code, DUAL in training code",
          "[assess][decide]") {
  const Rule rule = cuda_library_rule();
  Case model;
  model.add(rule, "model/attn.py", Role::Model, Guard::ImportFallback);
  CHECK(model.verdict().outcome == Outcome::Adapt);
  CHECK(kinds_of(model.verdict()) == std::vector<FactorKind>{FactorKind::FallbackItem});

  Case training;
  training.add(rule, "train/loop.py", Role::Training, Guard::ImportFallback);
  CHECK(training.verdict().outcome == Outcome::Dual);

  // Behind an option the Mac need not choose there is nothing to fall back from.
  Case option;
  option.add(rule, "model/attn.py", Role::Model, Guard::OptionalPath);
  CHECK(option.verdict().factors.empty());
}

TEST_CASE("decide: training-scale machinery is DUAL, from the thresholds' families", "[assess][decide]") {
  const Rule rule = distributed_rule();
  Case distributed;
  distributed.thresholds.training_scale_families = {"distributed"}; // as take_training_scale lists it
  distributed.add(rule, "train.py", Role::Training);
  CHECK(distributed.verdict().outcome == Outcome::Dual);
  CHECK(kinds_of(distributed.verdict()) == std::vector<FactorKind>{FactorKind::TrainingScale});
  distributed.thresholds.training_scale_families.clear();
  CHECK(distributed.verdict().outcome == Outcome::Adapt);
}

TEST_CASE("take_training_scale lists the families that set the attribute, then other families' rules",
          "[assess][decide]") {
  RuleCatalog catalog;
  std::vector<Diagnostic> problems;
  const auto rule = [](const std::string &id, const std::string &attributes) {
    return "[[rule]]\nid = \"" + id + "\"\nname = \"r" + id +
           "\"\nsummary = \"s\"\nkinds = [\"python\"]\neffort = \"small\"\nseverity = \"warning\"\n"
           "message = \"m\"\nwhy = \"w\"\nreplacement = \"r\"\n" +
           attributes + "[rule.match]\nkind = \"call\"\n";
  };
  catalog.load_text("[family]\nname = \"multi\"\nprefix = \"MPS5\"\ntitle = \"T\"\ntraining_scale = true\n" +
                        rule("MPS501", ""),
                    "rules/a.toml", problems);
  catalog.load_text("[family]\nname = \"libs\"\nprefix = \"MPS4\"\ntitle = \"T\"\n" +
                        rule("MPS404", "training_scale = true\n") + rule("MPS401", ""),
                    "rules/b.toml", problems);
  REQUIRE(problems.empty());
  DecisionThresholds thresholds;
  take_training_scale(catalog, thresholds);
  CHECK(thresholds.training_scale_families == std::vector<std::string>{"multi"});
  CHECK(thresholds.training_scale_rules == std::vector<std::string>{"MPS404"});
}

TEST_CASE("decide: the estimate's thresholds: past the ADAPT maximum DUAL, past the KEEP minimum KEEP",
          "[assess][decide]") {
  Case large;
  large.effort.total = {60, 120}; // the high estimate past 80 h
  CHECK(large.verdict().outcome == Outcome::Dual);
  CHECK(kinds_of(large.verdict()) == std::vector<FactorKind>{FactorKind::EffortDual});
  CHECK(large.verdict().factors[0].summary.rfind("The high estimate (15 d) exceeds 10 d", 0) == 0);

  Case huge;
  huge.effort.total = {500, 1200}; // the low estimate past 480 h
  CHECK(huge.verdict().outcome == Outcome::KeepLinuxGpu);
  CHECK(kinds_of(huge.verdict()) == std::vector<FactorKind>{FactorKind::EffortKeep});
  CHECK(huge.verdict().deciding_effort.low == Approx(500));
}

TEST_CASE("decide: memory that fits no Mac: inference KEEP, training DUAL; off when memory does not decide",
          "[assess][decide]") {
  Case inference;
  inference.memory.has_model_size = true;
  inference.memory.inference_min_tier_gb = -1;
  inference.memory.training_min_tier_gb = -1;
  CHECK(inference.verdict().outcome == Outcome::KeepLinuxGpu);
  CHECK(kinds_of(inference.verdict())[0] == FactorKind::MemoryInference);

  Case training;
  training.memory.has_model_size = true;
  training.memory.inference_min_tier_gb = 64;
  training.memory.training_min_tier_gb = -1;
  training.memory.training_bytes = 1;
  CHECK(training.verdict().outcome == Outcome::Dual);
  CHECK(kinds_of(training.verdict()) == std::vector<FactorKind>{FactorKind::MemoryTraining});

  inference.thresholds.memory_decides = false;
  CHECK(inference.verdict().outcome == Outcome::Adapt);
}

TEST_CASE("decide: a resolved finding no longer counts, and the outcome alone needs no factors",
          "[assess][decide]") {
  const Rule rule = cuda_library_rule();
  Case what_if;
  what_if.add(rule, "model/attn.py", Role::Model);
  const Verdict outcome_only = what_if.verdict(VerdictDetail::OutcomeOnly);
  CHECK(outcome_only.outcome == Outcome::KeepLinuxGpu);
  CHECK(outcome_only.factors.empty());
  what_if.excluded = {true};
  CHECK(what_if.verdict().outcome == Outcome::Adapt);
}
