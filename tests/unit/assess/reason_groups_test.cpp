// The decision's factors grouped by cause (assess/reason_groups.h): one group
// per CUDA-code, package, rule or finding-less cause, with a count, the files,
// one example location and the entry points; the strongest group first.
#include <catch2/catch.hpp>

#include "assess/reason_groups.h"

using namespace mpsaudit;

namespace {

Rule rule_of(std::string id, std::string family, Effort effort) {
  Rule rule;
  rule.id = std::move(id);
  rule.family = std::move(family);
  rule.summary = "summary of " + rule.id;
  rule.effort = effort;
  // The attributes the catalog's [family] tables give these families.
  rule.cuda_only = rule.family == "cxx" || rule.family == "library";
  rule.package_cause = rule.family == "library" || rule.family == "dependencies";
  return rule;
}

// Findings and the factors that cite them, in the order given (the caller
// passes them strongest first, as Decision::deciding is).
struct Factors {
  ScanResult scan;
  std::vector<DecisionFactor> list;

  void add(const Rule &rule, std::string path, std::uint32_t line, std::string name,
           FactorKind kind = FactorKind::CriticalBlocker, FileKind file_kind = FileKind::Cuda,
           std::vector<std::string> entries = {}) {
    Finding finding;
    finding.rule = &rule;
    finding.rule_id = rule.id;
    finding.path = path;
    finding.span.line = line;
    finding.file_kind = file_kind;
    scan.findings.push_back(finding);
    DecisionFactor factor;
    factor.kind = kind;
    factor.pushes_to = Outcome::KeepLinuxGpu;
    factor.finding_index = static_cast<long>(scan.findings.size() - 1);
    factor.rule_id = rule.id;
    factor.path = std::move(path);
    factor.line = line;
    factor.name = std::move(name);
    factor.entries.assign(entries.begin(), entries.end());
    factor.summary = factor.name + " (" + rule.id + ") in " + factor.path + ":" + std::to_string(line);
    list.push_back(std::move(factor));
  }
};

const ReasonGroup *group_with_cause(const std::vector<ReasonGroup> &groups, const std::string &cause) {
  for (const ReasonGroup &group : groups)
    if (group.cause == cause)
      return &group;
  return nullptr;
}

} // namespace

TEST_CASE("every CUDA C++ rule is one cause, counted by rule, with one example", "[assess][reasons]") {
  const Rule kernel = rule_of("MPS801", "cxx", Effort::Large);
  const Rule glue = rule_of("MPS830", "cxx", Effort::Medium);
  Factors factors;
  factors.add(kernel, "csrc/a.cu", 10, "k1", FactorKind::CriticalBlocker, FileKind::Cuda, {"train.py"});
  factors.add(glue, "csrc/a.cu", 20, "getCurrentCUDAStream", FactorKind::CriticalBlocker, FileKind::Cuda,
              {"train.py", "infer.py"});
  factors.add(glue, "csrc/b.cu", 5, "getCurrentCUDAStream", FactorKind::CriticalBlocker, FileKind::Cuda,
              {"serve.py", "bench.py"});
  const auto groups = group_by_cause(factors.list, factors.scan);
  REQUIRE(groups.size() == 1);
  const ReasonGroup &group = groups.front();
  CHECK(group.cause == "cuda-code");
  CHECK(group.count == 3);
  CHECK(group.files == 2);
  REQUIRE(group.rules.size() == 2);
  CHECK(group.rules[0] == std::pair<std::string, std::size_t>{"MPS830", 2}); // most first
  CHECK(group.rules[1] == std::pair<std::string, std::size_t>{"MPS801", 1});
  CHECK(group.example == "csrc/a.cu:10"); // the strongest member
  CHECK(group.entries == std::vector<std::string>{"train.py", "infer.py", "serve.py"}); // at most 3
  CHECK(group.members == std::vector<std::size_t>{0, 1, 2});
  CHECK(group.summary.find("3 findings in 2 files") != std::string::npos);
  CHECK(group.summary.find("MPS830 x2, MPS801") != std::string::npos);
  CHECK(group.summary.find("e.g. csrc/a.cu:10") != std::string::npos);
  CHECK(group.directories == std::vector<std::pair<std::string, std::size_t>>{{"csrc", 3}});
  CHECK(group.summary.find("; in csrc") == std::string::npos); // one directory: the files say where
}

TEST_CASE("a group spread over directories names the two largest", "[assess][reasons]") {
  const Rule kernel = rule_of("MPS801", "cxx", Effort::Large);
  Factors factors;
  factors.add(kernel, "a/k.cu", 1, "k1");
  factors.add(kernel, "b/k.cu", 1, "k2");
  factors.add(kernel, "b/l.cu", 1, "k3");
  factors.add(kernel, "c/k.cu", 1, "k4");
  factors.add(kernel, "k.cu", 1, "k5");
  const auto groups = group_by_cause(factors.list, factors.scan);
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].summary.find("; in b (2), a (1) and 2 more directories; e.g. a/k.cu:1") !=
        std::string::npos);
}

TEST_CASE("a CUDA-only library rule groups by the top-level package it names", "[assess][reasons]") {
  const Rule triton = rule_of("MPS401", "library", Effort::Large);
  const Rule attention = rule_of("MPS402", "library", Effort::Large);
  const Rule requirement = rule_of("MPS701", "dependencies", Effort::Large);
  Factors factors;
  factors.add(triton, "ops/a.py", 1, "triton", FactorKind::CriticalBlocker, FileKind::Python);
  factors.add(triton, "ops/b.py", 2, "triton.language", FactorKind::CriticalBlocker, FileKind::Python);
  factors.add(attention, "model/attn.py", 3, "flash_attn.flash_attn_func", FactorKind::CriticalBlocker,
              FileKind::Python);
  factors.add(requirement, "requirements.txt", 4, "flash-attn>=2", FactorKind::TrainingBlocker,
              FileKind::Requirements);
  const auto groups = group_by_cause(factors.list, factors.scan);
  REQUIRE(groups.size() == 3); // the manifest line has its own kind
  const ReasonGroup *packaged = group_with_cause(groups, "package:triton");
  REQUIRE(packaged);
  CHECK(packaged->count == 2);
  CHECK(packaged->title == "CUDA-only package `triton`");
  const ReasonGroup *single = group_with_cause(groups, "package:flash_attn");
  REQUIRE(single);
  CHECK(single->count + groups.back().count == 2);   // code and manifest: one each
  CHECK(single->summary == factors.list[2].summary); // one member: its own sentence
}

TEST_CASE("the strongest group leads: code before manifests, then kind, then size", "[assess][reasons]") {
  const Rule kernel = rule_of("MPS801", "cxx", Effort::Large);
  const Rule triton = rule_of("MPS401", "library", Effort::Large);
  const Rule seed = rule_of("MPS103", "torch-cuda", Effort::Trivial);
  const Rule requirement = rule_of("MPS701", "dependencies", Effort::Blocker);
  Factors factors;
  // Strongest first, as lead_with_strongest leaves them.
  factors.add(triton, "ops/a.py", 1, "triton", FactorKind::CriticalBlocker, FileKind::Python);
  factors.add(kernel, "csrc/a.cu", 1, "k1");
  factors.add(kernel, "csrc/b.cu", 1, "k2");
  factors.add(seed, "model.py", 9, "torch.cuda.manual_seed", FactorKind::TrainingScale, FileKind::Python);
  for (std::uint32_t line = 1; line <= 5; ++line)
    factors.add(requirement, "requirements.txt", line, "pkg" + std::to_string(line),
                FactorKind::CriticalBlocker, FileKind::Requirements);
  DecisionFactor effort;
  effort.kind = FactorKind::EffortKeep;
  effort.pushes_to = Outcome::KeepLinuxGpu;
  effort.summary = "even the low estimate exceeds the threshold";
  factors.list.push_back(effort);
  const auto groups = group_by_cause(factors.list, factors.scan);
  std::vector<std::string> causes;
  for (const ReasonGroup &group : groups)
    causes.push_back(group.cause);
  // Equal strength (code, critical, large): the larger CUDA-code group leads.
  // Five manifest lines come after every code reason, and the effort factor
  // is a cause of its own kind.
  CHECK(causes == std::vector<std::string>{"cuda-code", "package:triton", "rule:MPS103", "effort-keep",
                                           "package:pkg1", "package:pkg2", "package:pkg3", "package:pkg4",
                                           "package:pkg5"});
  CHECK(groups[3].summary == "even the low estimate exceeds the threshold");
}

TEST_CASE("a dependency rule that is not about CUDA is not called CUDA-only", "[assess][reasons]") {
  Rule old_torch = rule_of("MPS711", "dependencies", Effort::Small);
  old_torch.summary = "A torch pin older than the MPS backend";
  Rule cuda_wheel = rule_of("MPS702", "dependencies", Effort::Small);
  cuda_wheel.summary = "A CUDA wheel index";
  cuda_wheel.cuda_only = true;
  CHECK_FALSE(about_cuda(&old_torch));
  CHECK(about_cuda(&cuda_wheel));
  CHECK(about_cuda(nullptr)); // a kernel family has no rule
  Factors factors;
  factors.add(old_torch, "a/requirements.txt", 1, "torch==1.9.0", FactorKind::TrainingBlocker,
              FileKind::Requirements);
  factors.add(old_torch, "b/requirements.txt", 1, "torch==1.9.0", FactorKind::TrainingBlocker,
              FileKind::Requirements);
  const auto groups = group_by_cause(factors.list, factors.scan);
  const ReasonGroup *torch = group_with_cause(groups, "package:torch");
  REQUIRE(torch);
  CHECK(torch->title == "Package `torch`");
  CHECK(torch->summary.find("CUDA-only") == std::string::npos);
  CHECK(torch->summary.find("stops a Mac run, confined to code off the model's critical path") !=
        std::string::npos);
}
