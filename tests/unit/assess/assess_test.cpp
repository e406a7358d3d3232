// The assessment as a pure function: roles, effort, decision, acceptance.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../test_support.h"
#include "assess/assess_policy.h"
#include "assess/assessment_inputs.h"
#include "assess/decision.h"
#include "core/compiled_op.h"
#include "core/text.h"
#include "coverage/operator_coverage_pass.h"
#include "dual_fixture.h"
#include "fix/fix.h"

using namespace mpsaudit;

namespace {

using testing::scan_of;
using testing::SourceText;

EffortModel repository_model() {
  std::vector<Diagnostic> diagnostics;
  EffortModel model = load_effort_model(testing::rules_directory() + "/effort.toml", diagnostics);
  REQUIRE(diagnostics.empty());
  return model;
}

// rules/fixes.toml, passed explicitly as the session does.
const FixCatalog &repository_fixes() {
  static const FixCatalog catalog = [] {
    std::vector<Diagnostic> diagnostics;
    FixCatalog loaded =
        FixCatalog::load_file(std::string(MPSAUDIT_SOURCE_DIR) + "/rules/fixes.toml", diagnostics);
    REQUIRE(diagnostics.empty());
    return loaded;
  }();
  return catalog;
}

Assessment assess_scan(const ScanResult &scan,
                       DecisionThresholds thresholds = testing::repository_thresholds()) {
  AssessmentInput input;
  input.scan = &scan;
  input.model = repository_model();
  input.fixes = &repository_fixes();
  input.thresholds = std::move(thresholds);
  return assess(input);
}

const std::string kModel = R"(import torch.nn as nn
from flash_attn import flash_attn_func


class Attention(nn.Module):
    def forward(self, q, k, v):
        return flash_attn_func(q, k, v)
)";

const std::string kPortableModel = R"(import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)
)";

const std::string kTrain = R"(import torch
from torch.utils.data import DataLoader


def main(model, data):
    model = model.cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    for x in DataLoader(data):
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
)";

Role role_of(const Assessment &assessment, const std::string &path) {
  for (const auto &role : assessment.roles)
    if (role.path == path)
      return role.role;
  FAIL("no role for " << path);
  return Role::Tooling;
}

} // namespace

TEST_CASE("roles come from content first, then paths, and overrides win", "[assess][roles]") {
  const ScanResult scan = scan_of({{"net.py", kPortableModel},
                                   {"run.py", kTrain},
                                   {"datasets/folder.py", "import os\n"},
                                   {"scripts/evaluate.py", "import torch\nwith torch.no_grad():\n    pass\n"},
                                   {"tests/test_net.py", kPortableModel},
                                   {"examples/demo.py", kTrain},
                                   {"misc.py", "print(1)\n"}});
  const Assessment assessment = assess_scan(scan);
  CHECK(role_of(assessment, "net.py") == Role::Model);
  CHECK(role_of(assessment, "run.py") == Role::Training);
  CHECK(role_of(assessment, "datasets/folder.py") == Role::Data);
  CHECK(role_of(assessment, "scripts/evaluate.py") == Role::Evaluation); // on a tie, the file's name wins
  CHECK(role_of(assessment, "tests/test_net.py") == Role::Tests);
  CHECK(role_of(assessment, "examples/demo.py") == Role::Docs);
  CHECK(role_of(assessment, "misc.py") == Role::Tooling);

  const auto overridden =
      classify_roles(scan.project_files, {{"run.py", Role::Inference}}, bundled_assess_policy());
  CHECK(overridden[1].role == Role::Inference);
  CHECK(overridden[1].reasons.front() == "override: run.py");
}

TEST_CASE("a script is an entry point: the modules it defines do not make it the model", "[assess][roles]") {
  constexpr const char *kProbeScript = R"(import torch
from torch import nn

class Head(nn.Module):
    def forward(self, x):
        return x

if __name__ == "__main__":
    Head()
)";
  const ScanResult scan = scan_of({{"eval/linear_probe.py", kProbeScript},
                                   {"export.py", kProbeScript},
                                   {"benchmarks/speed.py", kProbeScript},
                                   {"detect.py", kProbeScript},
                                   {"heads.py", kPortableModel}});
  const Assessment assessment = assess_scan(scan);
  CHECK(role_of(assessment, "eval/linear_probe.py") == Role::Evaluation);
  CHECK(role_of(assessment, "export.py") == Role::Tooling);
  CHECK(role_of(assessment, "benchmarks/speed.py") == Role::Evaluation);
  CHECK(role_of(assessment, "detect.py") == Role::Inference);
  CHECK(role_of(assessment, "heads.py") == Role::Model); // no __main__: a library of modules
}

TEST_CASE("a CUDA-only package in an evaluation script pushes to DUAL, not KEEP", "[assess][decision]") {
  const ScanResult scan =
      scan_of({{"model.py", kPortableModel},
               {"eval/probe.py", "import cuml\nif __name__ == \"__main__\":\n    cuml.fit()\n"}});
  const Assessment assessment = assess_scan(scan);
  CHECK(role_of(assessment, "eval/probe.py") == Role::Evaluation);
  CHECK(assessment.decision.outcome == Outcome::Dual);
}

TEST_CASE("an optional-path import never decides", "[assess][decision]") {
  const ScanResult scan =
      scan_of({{"model.py", kPortableModel},
               {"backend.py", "def load(kind):\n    if kind == \"engine\":\n        import tensorrt\n"}});
  const Assessment assessment = assess_scan(scan);
  CHECK(assessment.decision.outcome == Outcome::Adapt);
}

TEST_CASE("path globs: * stays in a component, ** crosses them", "[assess][roles]") {
  CHECK(path_glob_match("src/*.py", "src/a.py"));
  CHECK_FALSE(path_glob_match("src/*.py", "src/x/a.py"));
  CHECK(path_glob_match("src/**", "src/x/a.py"));
  CHECK(path_glob_match("**/test_*.py", "test_a.py"));
  CHECK(path_glob_match("**/test_*.py", "a/b/test_a.py"));
  CHECK_FALSE(path_glob_match("a?.py", "a/.py"));
}

TEST_CASE("the effort model file loads with its calibrated numbers and their sources", "[assess][effort]") {
  const EffortModel model = repository_model();
  CHECK(model.trivial_per_site.low == Approx(0.05));
  CHECK(model.trivial_per_site.high == Approx(0.15));
  CHECK(model.trivial_file_cap == Approx(0.5));
  CHECK(model.small_per_fix.low == Approx(0.5));
  CHECK(model.small_per_fix.high == Approx(2));
  CHECK(model.medium_per_fix.high == Approx(24));
  CHECK(model.kernel_tensor_core.high == Approx(160));
  CHECK(model.kernel_per_variant.high == Approx(3));
  CHECK(model.acceptance_base.low == Approx(1));
  CHECK(model.acceptance_entry_cap == 8);
  CHECK(model.keep_pin.high == Approx(6));
  CHECK(model.keep_guard_max_components == 4);
  CHECK(model.one_offs.size() == 3);
  CHECK(model.sources.size() == 7);
  for (const auto &[section, source] : model.sources)
    CHECK((source.rfind("docs/knowledge/effort.md#", 0) == 0 || source.find("dev-set") != std::string::npos));

  std::vector<Diagnostic> diagnostics;
  const std::string bad = std::string(MPSAUDIT_SOURCE_DIR) + "/tests/unit/assess/bad-effort.toml";
  const EffortModel fallback = load_effort_model(bad, diagnostics);
  REQUIRE(diagnostics.size() == 2);
  CHECK(diagnostics[0].path == bad);
  CHECK(diagnostics[0].line > 0);
  CHECK(fallback.small_per_fix.high == Approx(8)); // the bad value is not taken
}

TEST_CASE("a hundred .cuda() calls are one helper plus a capped edit per file", "[assess][effort]") {
  std::string many = "import torch\nx = torch.zeros(1)\n";
  for (int i = 0; i < 100; ++i)
    many += "y" + std::to_string(i) + " = x.cuda()\n";
  const ScanResult scan = scan_of({{"a.py", many}, {"b.py", "import torch\nz = torch.ones(1).cuda()\n"}});
  const EffortEstimate effort = estimate_effort(
      scan, classify_roles(scan.project_files, {}, bundled_assess_policy()), repository_model());
  REQUIRE(effort.open_findings == 101);
  const auto item = std::find_if(effort.items.begin(), effort.items.end(),
                                 [](const EffortItem &i) { return i.rule_id == "MPS201"; });
  REQUIRE(item != effort.items.end());
  CHECK(item->sites == 101);
  CHECK(item->files.size() == 2);
  // a.py: 100 x 0.05-0.15 h capped at 0.5 h; b.py: one site.
  CHECK(item->hours.low == Approx(0.5 + 0.05));
  CHECK(item->hours.high == Approx(0.5 + 0.15));
  CHECK(item->basis.find("capped") != std::string::npos);
  const auto helper = std::find_if(effort.items.begin(), effort.items.end(),
                                   [](const EffortItem &i) { return i.key == "one-off:device-helper"; });
  REQUIRE(helper != effort.items.end());
  CHECK(effort.items.front().key == "one-off:device-helper"); // first in the plan
  // The edits, the helper (0.5-1 h) and acceptance on the Mac (1-2 h, no entry point).
  CHECK(effort.total.low == Approx(0.55 + 0.5 + 1));
  CHECK(effort.total.high == Approx(0.65 + 1 + 2));
  CHECK(effort.items.back().key == "one-off:mac-acceptance"); // last in the plan
}

TEST_CASE("known findings appended after the reported ones join their files' shares", "[assess][effort]") {
  ScanResult scan = scan_of({{"a.py", "import torch\nx = torch.ones(1).cuda()\ny = torch.ones(1).cuda()\n"},
                             {"b.py", "import torch\nz = torch.ones(1).cuda()\n"}});
  const auto roles = classify_roles(scan.project_files, {}, bundled_assess_policy());
  const EffortEstimate sorted = estimate_effort(scan, roles, repository_model());
  // As the assessment sees a baseline (session.cpp): a known finding of a.py
  // after b.py's findings, a second sorted run.
  const auto known = std::find_if(scan.findings.begin(), scan.findings.end(), [&](const Finding &finding) {
    return finding.path == "a.py" &&
           std::count_if(scan.findings.begin(), scan.findings.end(), [&](const Finding &other) {
             return other.path == "a.py" && other.rule_id == finding.rule_id;
           }) == 2;
  });
  REQUIRE(known != scan.findings.end());
  std::rotate(known, known + 1, scan.findings.end());
  REQUIRE(scan.findings.back().path == "a.py");
  const EffortEstimate appended = estimate_effort(scan, roles, repository_model());
  REQUIRE(appended.items.size() == sorted.items.size());
  bool met_twice = false;
  for (std::size_t i = 0; i < sorted.items.size(); ++i) {
    const EffortItem &before = sorted.items[i];
    const EffortItem &after = appended.items[i];
    CHECK(after.key == before.key);
    REQUIRE(after.files.size() == before.files.size()); // one share a file, not two for a.py
    for (std::size_t f = 0; f < before.files.size(); ++f) {
      CHECK(after.files[f].path == before.files[f].path);
      CHECK(after.files[f].sites == before.files[f].sites);
      met_twice = met_twice || (after.files[f].path == "a.py" && after.files[f].sites == 2);
    }
  }
  CHECK(met_twice);
  CHECK(appended.total.low == Approx(sorted.total.low));
  CHECK(appended.total.high == Approx(sorted.total.high));
}

TEST_CASE("small fixes count once per repository, guarded and info findings cost nothing",
          "[assess][effort]") {
  const ScanResult scan =
      scan_of({{"a.py", "from flash_attn import flash_attn_func\n"},
               {"b.py", "from flash_attn import flash_attn_func\n"},
               {"c.py", "try:\n    import triton\nexcept ImportError:\n    triton = None\n"}});
  const EffortEstimate effort = estimate_effort(
      scan, classify_roles(scan.project_files, {}, bundled_assess_policy()), repository_model());
  REQUIRE(effort.items.size() == 2); // the package, then acceptance on the Mac
  CHECK(effort.items[0].rule_id == "MPS402");
  CHECK(effort.items[0].key == "package:flash-attn");
  CHECK(effort.items[0].sites == 2);
  CHECK(effort.items[0].hours.low == Approx(0.5));
  CHECK(effort.items[0].hours.high == Approx(2));
  CHECK(effort.items[1].key == "one-off:mac-acceptance");
  CHECK(effort.guarded_findings == 1);
  // Each file carries half of the shared fix in the roll-ups.
  REQUIRE(effort.by_file.size() == 3); // a.py, b.py, (repository)
  CHECK(effort.by_file[0].name == "(repository)");
  CHECK(effort.by_file[1].hours.high == Approx(1));
  REQUIRE(effort.by_category.size() == 2);
  CHECK(effort.by_category[0].name == "library");
}

TEST_CASE("the estimate credits what mpsaudit fix removes, safe and unsafe apart", "[assess][effort][fix]") {
  const std::string training = "import torch\n"
                               "x = torch.zeros(1).cuda()\n"            // MPS201: safe fix
                               "torch.cuda.synchronize()\n"             // MPS101: safe fix
                               "state = torch.load('m.pt')\n"           // MPS205: unsafe fix
                               "scaler = torch.cuda.amp.GradScaler()\n" // MPS109: unsafe, from torch 2.8
                               "if torch.cuda.is_available():\n"
                               "    torch.cuda.synchronize()\n"; // guarded: no work, no credit
  const ScanResult scan = scan_of({{"train.py", training}});
  const auto roles = classify_roles(scan.project_files, {}, bundled_assess_policy());
  const EffortEstimate effort =
      estimate_effort(scan, roles, repository_model(), {}, "2.8", &repository_fixes());
  auto item = [&](const EffortEstimate &estimate, const std::string &key) {
    const auto found = std::find_if(estimate.items.begin(), estimate.items.end(),
                                    [&](const EffortItem &i) { return i.key == key; });
    REQUIRE(found != estimate.items.end());
    return *found;
  };
  REQUIRE(effort.open_findings == 4);
  CHECK(effort.guarded_findings == 1);
  // A trivial item is priced per site: fix removes the share it edits.
  CHECK(item(effort, "MPS201").fix.safe_sites == 1);
  CHECK(item(effort, "MPS201").fix.safe.high == Approx(item(effort, "MPS201").hours.high));
  CHECK(item(effort, "MPS201").basis.find("mpsaudit fix edits 1 of them") != std::string::npos);
  const EffortItem load = item(effort, "MPS205");
  CHECK(load.fix.safe_sites == 0);
  CHECK(load.fix.unsafe_sites == 1);
  CHECK(load.fix.safe.high == 0);
  CHECK(load.fix.with_unsafe.high == Approx(load.hours.high));
  CHECK(effort.fix.safe_sites == 2);
  CHECK(effort.fix.unsafe_sites == 2);
  // The device helper is what fix introduces, but one device finding needs
  // --unsafe: only the unsafe credit includes it.
  const EffortItem helper = item(effort, "one-off:device-helper");
  CHECK(helper.fix.safe.high == 0);
  CHECK(helper.fix.with_unsafe.high == Approx(helper.hours.high));
  // Every open finding is fixable; acceptance on the Mac is still work.
  CHECK(effort.fix.with_unsafe.high ==
        Approx(effort.total.high - item(effort, "one-off:mac-acceptance").hours.high));
  CHECK(effort.fix.safe.high < effort.total.high);
  // The credit rolls up by category and directory as the hours do.
  double category_credit = 0;
  for (const RollUp &row : effort.by_category)
    category_credit += row.fix.safe.high;
  CHECK(category_credit == Approx(effort.fix.safe.high));
  REQUIRE(!effort.by_directory.empty());

  // The target release decides which fixes exist: GradScaler on MPS needs 2.8.
  const EffortEstimate old_torch =
      estimate_effort(scan, roles, repository_model(), {}, "2.4", &repository_fixes());
  CHECK(item(old_torch, "MPS109").fix.unsafe_sites == 0);
  CHECK(old_torch.fix.safe_sites == 2);
  CHECK(old_torch.fix.unsafe_sites == 1);
  CHECK(old_torch.total.high == Approx(effort.total.high)); // the estimate itself does not move

  // The credit comes from the catalog passed in, never from a cache: none
  // given, none credited.
  const EffortEstimate no_catalog = estimate_effort(scan, roles, repository_model(), {}, "2.8");
  CHECK(no_catalog.fix.safe_sites == 0);
  CHECK(no_catalog.fix.unsafe_sites == 0);
  CHECK(no_catalog.total.high == Approx(effort.total.high));

  // The reasons carry the credit in one sentence.
  const Assessment assessment = assess_scan(scan);
  CHECK(std::any_of(assessment.decision.reasons.begin(), assessment.decision.reasons.end(),
                    [](const std::string &reason) {
                      return reason.rfind("mpsaudit fix --apply removes", 0) == 0 &&
                             reason.find("(2 findings); --unsafe edits 1 more") != std::string::npos;
                    }));
}

TEST_CASE("the decision's fix credit is the recommended path's, as the summary's", "[assess][effort][fix]") {
  // DUAL: training stays on Linux, so the recommended path leaves train.py's
  // fixable lines out, and every fix's credit is larger than the path's.
  const Assessment assessment = assess_scan(scan_of({{"net.py", std::string(testing::kDualModelCode)},
                                                     {"train.py", std::string(testing::kDualTrainScript)}}));
  REQUIRE(assessment.decision.outcome == Outcome::Dual);
  const FixCredit &on_path = assessment.recommended.fix;
  REQUIRE(on_path.safe_sites > 0);
  REQUIRE(assessment.effort.fix.safe_sites > on_path.safe_sites);
  const auto &reasons = assessment.decision.reasons;
  const auto credit = std::find_if(reasons.begin(), reasons.end(), [](const std::string &reason) {
    return reason.rfind("mpsaudit fix", 0) == 0;
  });
  REQUIRE(credit != reasons.end());
  CHECK(*credit == fix_credit_sentence(on_path));
}

TEST_CASE("fix credit is nothing where fix has nothing to edit", "[assess][effort][fix]") {
  const ScanResult scan = scan_of({{"a.py", "from flash_attn import flash_attn_func\n"}});
  const EffortEstimate effort = estimate_effort(
      scan, classify_roles(scan.project_files, {}, bundled_assess_policy()), repository_model());
  REQUIRE(effort.open_findings == 1);
  CHECK(effort.fix.safe_sites + effort.fix.unsafe_sites == 0);
  CHECK(effort.fix.with_unsafe.high == 0);
  CHECK(effort.items.front().basis.find("mpsaudit fix") == std::string::npos);
}

TEST_CASE("kernels scale with device code; a fallback defers the port", "[assess][effort]") {
  auto kernel = [](const std::string &name, const std::string &lines, const std::string &tensor_core) {
    Fact fact;
    fact.kind = "cuda-kernel";
    fact.name = name;
    fact.span.line = 3;
    fact.set_attribute("device_lines", lines);
    fact.set_attribute("shared_memory", "2");
    fact.set_attribute("warp_intrinsics", "0");
    fact.set_attribute("atomics", "1");
    fact.set_attribute("tensor_core", tensor_core);
    fact.set_attribute("launches", "1");
    return fact;
  };
  ScanResult scan;
  ProjectFile plain{"csrc/plain.cu", FileKind::Cuda, {}};
  plain.facts.facts.push_back(kernel("scale", "300", "0"));
  ProjectFile gemm{"csrc/gemm.cu", FileKind::Cuda, {}};
  gemm.facts.facts.push_back(kernel("mma_gemm", "80", "4"));
  scan.project_files = {plain, gemm};
  const EffortModel model = repository_model();
  EffortEstimate effort =
      estimate_effort(scan, classify_roles(scan.project_files, {}, bundled_assess_policy()), model);
  REQUIRE(effort.items.size() == 3); // two kernel families and acceptance on the Mac
  auto find = [&](const std::string &name) {
    return *std::find_if(effort.items.begin(), effort.items.end(),
                         [&](const EffortItem &i) { return i.key.find(name) != std::string::npos; });
  };
  // scale: base + 2 x per_100_lines for 200 lines over 100 + shared + atomics + host glue.
  const HourRange scale_port{
      model.kernel_base.low + 2 * model.kernel_per_100_lines.low + model.kernel_shared_memory.low +
          model.kernel_atomics.low + model.kernel_host_glue.low,
      model.kernel_base.high + 2 * model.kernel_per_100_lines.high + model.kernel_shared_memory.high +
          model.kernel_atomics.high + model.kernel_host_glue.high};
  CHECK(find("scale").hours.low == Approx(scale_port.low));
  CHECK(find("scale").hours.high == Approx(scale_port.high));
  // mma_gemm: tensor-core + shared + atomics + glue.
  const double gemm_low = model.kernel_tensor_core.low + model.kernel_shared_memory.low +
                          model.kernel_atomics.low + model.kernel_host_glue.low;
  CHECK(find("mma_gemm").hours.low == Approx(gemm_low));

  Fact registration;
  registration.kind = "op-registration";
  registration.name = "ns::scale";
  registration.set_attribute("backend", "CUDA");
  registration.set_attribute("fallbacks", "cpu");
  scan.project_files[0].facts.facts.push_back(registration);
  Fact critical = registration; // the GEMM's op has no fallback: its port stays
  critical.name = "ns::gemm";
  critical.set_attribute("fallbacks", "none");
  scan.project_files[1].facts.facts.push_back(critical);
  effort = estimate_effort(scan, classify_roles(scan.project_files, {}, bundled_assess_policy()), model);
  CHECK(find("scale").hours.high == Approx(model.kernel_with_fallback.high));
  CHECK(find("scale").deferred.high == Approx(scale_port.high));
  CHECK(effort.deferred.high == Approx(find("scale").deferred.high));
  CHECK(find("mma_gemm").deferred.high == 0);
  CHECK(find("mma_gemm").hours.low == Approx(gemm_low));
  CHECK(effort.native_port.high == Approx(effort.total.high + effort.deferred.high));

  // A binding of a device-dispatching function (its CPU arm is the
  // fallback) says nothing about other kernels: a project whose only
  // registrations are such bindings does not defer every kernel.
  ScanResult bindings;
  ProjectFile kernel_file{"csrc/gemm.cu", FileKind::Cuda, {}};
  kernel_file.facts.facts.push_back(kernel("mma_gemm", "80", "4"));
  Fact binding;
  binding.kind = "op-registration";
  binding.name = "ext::has_cuda";
  binding.set_attribute("backend", "CUDA");
  binding.set_attribute("fallbacks", "cpu");
  binding.set_attribute("device_dispatch", "true");
  ProjectFile binding_file{"csrc/bind.cpp", FileKind::Cxx, {}};
  binding_file.facts.facts.push_back(binding);
  bindings.project_files = {kernel_file, binding_file};
  const EffortEstimate by_binding =
      estimate_effort(bindings, classify_roles(bindings.project_files, {}, bundled_assess_policy()), model);
  REQUIRE(by_binding.items.size() == 2);
  CHECK(by_binding.items[0].kind == EffortItemKind::Kernel);
  CHECK(by_binding.items[0].deferred.high == 0);
}

TEST_CASE("a CUDA-only library in the model's forward path keeps Linux GPUs", "[assess][decision]") {
  const ScanResult scan = scan_of({{"model/attn.py", kModel}, {"train.py", kTrain}});
  const Assessment assessment = assess_scan(scan);
  const Decision &decision = assessment.decision;
  CHECK(decision.outcome == Outcome::KeepLinuxGpu);
  REQUIRE_FALSE(decision.deciding.empty());
  CHECK(decision.deciding[0].kind == FactorKind::CriticalBlocker);
  CHECK(decision.deciding[0].rule_id == "MPS402");
  CHECK(decision.deciding[0].path == "model/attn.py");
  REQUIRE(decision.if_resolved);
  CHECK(*decision.if_resolved == Outcome::Adapt);
  REQUIRE_FALSE(decision.what_would_change.empty());
  const std::string &change = decision.what_would_change[0];
  CHECK(change.find("model/attn.py:2") != std::string::npos);
  CHECK(change.find("scaled_dot_product_attention") != std::string::npos);
  CHECK(change.find("becomes ADAPT") != std::string::npos);

  // Resolving it for real gives what the report predicted.
  const Assessment after = assess_scan(scan_of({{"model/attn.py", kPortableModel}, {"train.py", kTrain}}));
  CHECK(after.decision.outcome == *decision.if_resolved);
}

TEST_CASE("the same blocker confined to training code is DUAL; in tests it does not decide",
          "[assess][decision]") {
  const std::string training_blocker = kTrain + "\nfrom flash_attn import flash_attn_func\n";
  const Assessment dual =
      assess_scan(scan_of({{"model/attn.py", kPortableModel}, {"train.py", training_blocker}}));
  CHECK(dual.decision.outcome == Outcome::Dual);
  CHECK(dual.decision.deciding[0].kind == FactorKind::TrainingBlocker);

  const Assessment peripheral =
      assess_scan(scan_of({{"model/attn.py", kPortableModel}, {"tests/test_attn.py", kModel}}));
  CHECK(peripheral.decision.outcome == Outcome::Adapt);

  DecisionThresholds strict = testing::repository_thresholds();
  strict.peripheral_roles.clear(); // tunable: tests may decide too
  const Assessment strict_result =
      assess_scan(scan_of({{"model/attn.py", kPortableModel}, {"tests/test_attn.py", kModel}}), strict);
  CHECK(strict_result.decision.outcome == Outcome::Dual);
}

TEST_CASE("distributed training, and kernels with a fallback in training code, make DUAL",
          "[assess][decision]") {
  const std::string distributed =
      kTrain + "\nimport torch.distributed as dist\ndist.init_process_group(\"nccl\")\n";
  const Assessment dual =
      assess_scan(scan_of({{"model/attn.py", kPortableModel}, {"train.py", distributed}}));
  CHECK(dual.decision.outcome == Outcome::Dual);
  CHECK(dual.decision.deciding[0].kind == FactorKind::TrainingScale);
  CHECK(dual.decision.if_resolved == Outcome::Adapt);

  const std::string fallback = "try:\n    import triton\nexcept ImportError:\n    triton = None\n";
  // In the model, the Mac runs the fallback: listed, and ADAPT.
  const Assessment guarded = assess_scan(scan_of({{"model/kernels.py", fallback}}));
  CHECK(guarded.decision.outcome == Outcome::Adapt);
  REQUIRE_FALSE(guarded.decision.deciding.empty());
  CHECK(guarded.decision.deciding[0].kind == FactorKind::FallbackItem);
  // In training code, Linux keeps the fast path.
  DecisionThresholds training = testing::repository_thresholds();
  training.role_overrides.push_back({"model/*", Role::Training});
  const Assessment in_training = assess_scan(scan_of({{"model/kernels.py", fallback}}), training);
  CHECK(in_training.decision.outcome == Outcome::Dual);
  CHECK(in_training.decision.deciding[0].kind == FactorKind::FallbackItem);
}

TEST_CASE("a CUDA kernel whose op has a CPU path is a fallback item: DUAL in training code, else ADAPT",
          "[assess][decision][cpu-fallback]") {
  const std::string kernel = "__global__ void scale_kernel(float *x) {\n  x[threadIdx.x] *= 2.f;\n}\n";
  const ScanResult blocked = scan_of({{"csrc/scale.cu", kernel, FileKind::Cuda}});
  const Assessment keep = assess_scan(blocked);
  CHECK(keep.decision.outcome == Outcome::KeepLinuxGpu);
  REQUIRE_FALSE(keep.decision.deciding.empty());
  CHECK(keep.decision.deciding[0].kind == FactorKind::CriticalBlocker);

  // What the cpu-fallback pass makes of it when the kernel's op has a CPU arm.
  ScanResult guarded = blocked;
  for (auto &fact : guarded.project_files[0].facts.facts)
    if (fact.kind == "cuda-kernel")
      fact.guard = Guard::CpuFallback;
  REQUIRE_FALSE(guarded.findings.empty());
  for (auto &finding : guarded.findings) {
    finding.guard = Guard::CpuFallback;
    finding.severity = static_cast<int>(Severity::Info);
  }
  // Outside training code the Mac runs the fallback and the port waits.
  const Assessment dual = assess_scan(guarded);
  CHECK(dual.decision.outcome == Outcome::Adapt);
  // One factor for the kernel, not one more for its MPS801 finding.
  REQUIRE(dual.decision.deciding.size() == 1);
  CHECK(dual.decision.deciding[0].kind == FactorKind::FallbackItem);
  CHECK(dual.decision.deciding[0].name == "scale_kernel");
  REQUIRE_FALSE(dual.decision.what_would_change.empty());
  CHECK(dual.decision.what_would_change[0].find("Port CUDA kernel `scale_kernel`") != std::string::npos);
  // The port is deferred: only the routing is costed now.
  const auto item = std::find_if(dual.effort.items.begin(), dual.effort.items.end(),
                                 [](const EffortItem &i) { return i.kind == EffortItemKind::Kernel; });
  REQUIRE(item != dual.effort.items.end());
  CHECK(item->deferred.high > 0);
  CHECK(item->hours.high == Approx(repository_model().kernel_with_fallback.high));

  // In training code Linux keeps the fast kernel for training at scale.
  DecisionThresholds training = testing::repository_thresholds();
  training.role_overrides.push_back({"csrc/*", Role::Training});
  const Assessment in_training = assess_scan(guarded, training);
  CHECK(in_training.decision.outcome == Outcome::Dual);
  REQUIRE(in_training.decision.deciding.size() == 1);
  CHECK(in_training.decision.deciding[0].kind == FactorKind::FallbackItem);
}

TEST_CASE("effort thresholds decide when no finding does", "[assess][decision]") {
  const ScanResult scan = scan_of({{"train.py", kTrain}});
  CHECK(assess_scan(scan).decision.outcome == Outcome::Adapt);
  DecisionThresholds tight = testing::repository_thresholds();
  tight.adapt_max_hours = 1;
  const Assessment dual = assess_scan(scan, tight);
  CHECK(dual.decision.outcome == Outcome::Dual);
  CHECK(dual.decision.deciding[0].kind == FactorKind::EffortDual);
  CHECK_FALSE(dual.decision.if_resolved);
  tight.keep_min_hours = 0.5;
  CHECK(assess_scan(scan, tight).decision.outcome == Outcome::KeepLinuxGpu);
}

TEST_CASE("memory fit decides: training that fits no Mac is DUAL, inference that fits none is KEEP",
          "[assess][decision]") {
  auto config_of = [](const std::string &parameters) {
    ScanResult scan = scan_of({{"model/net.py", kPortableModel}});
    ProjectFile config{"config.json", FileKind::ModelConfig, {}};
    Fact fact;
    fact.kind = "model-config";
    fact.name = "config.json";
    fact.set_attribute("parameters", parameters);
    fact.set_attribute("dtype", "float16");
    config.facts.facts.push_back(fact);
    scan.project_files.push_back(config);
    return scan;
  };
  // 30B in float16: 67 GiB to run (a 96 GB Mac), 536 GiB to train (more than a
  // 512 GB Mac offers MPS); 200B: 447 GiB to run, more than any Mac.
  const Assessment training = assess_scan(config_of("30000000000"));
  CHECK(training.decision.outcome == Outcome::Dual);
  CHECK(training.decision.deciding[0].kind == FactorKind::MemoryTraining);
  const Assessment inference = assess_scan(config_of("200000000000"));
  CHECK(inference.decision.outcome == Outcome::KeepLinuxGpu);
  CHECK(inference.decision.deciding[0].kind == FactorKind::MemoryInference);
  DecisionThresholds ignore_memory = testing::repository_thresholds();
  ignore_memory.memory_decides = false;
  CHECK(assess_scan(config_of("200000000000"), ignore_memory).decision.outcome == Outcome::Adapt);
}

TEST_CASE("acceptance levels: not yet confirmed without a probe, from the verdicts with one",
          "[assess][probe]") {
  const ScanResult scan = scan_of({{"train.py", kTrain}});
  const Assessment without = assess_scan(scan);
  REQUIRE(without.acceptance.size() == 3);
  for (const auto &level : without.acceptance)
    CHECK(level.status == AcceptanceStatus::NotYetConfirmed);

  const auto verdict_json = nlohmann::json::parse(R"({
    "schema_version": 1, "tool": "mpsaudit-probe", "target": "mps", "coverage_table": "2.6.0",
    "environment": {"libtorch_version": "2.6.0", "mps_built": true, "mps_available": true,
                    "os": {"name": "macOS", "version": "15.1"}, "arch": "arm64", "warnings": []},
    "operators": [
      {"name": "torch.nn.functional.grid_sample", "uses": [{"path": "train.py", "line": 4, "count": 1}],
       "mps": {"outcome": "missing", "evidence": "coverage-table@2.6.0", "reason": "no MPS kernel"},
       "live": {"evidence": "live-mps", "results": [{"outcome": "not-implemented"}]}},
      {"name": "torch.matmul", "mps": {"outcome": "native", "evidence": "live-mps"},
       "live": {"evidence": "live-mps", "results": [{"outcome": "ok"}]}}
    ],
    "downcast": [{"name": "torch.linalg.solve", "outcome": "measured", "max_relative_error": 0.2}],
    "findings": [{"confirms": true}]
  })");
  std::vector<Diagnostic> diagnostics;
  AssessmentInput input;
  input.scan = &scan;
  input.model = repository_model();
  input.probe = parse_probe_verdicts(verdict_json, "verdicts.json", diagnostics);
  CHECK(diagnostics.empty());
  REQUIRE(input.probe.present);
  CHECK(input.probe.operators[0].path == "train.py");
  CHECK(input.probe.findings_confirmed == 1);
  const Assessment with = assess(input);
  CHECK(with.acceptance[0].status == AcceptanceStatus::Confirmed);
  CHECK(with.acceptance[0].evidence.find("macOS 15.1 arm64") != std::string::npos);
  CHECK(with.acceptance[1].status == AcceptanceStatus::Refuted);
  CHECK(with.acceptance[1].evidence.find("grid_sample") != std::string::npos);
  CHECK(with.acceptance[2].status == AcceptanceStatus::Refuted);

  diagnostics.clear();
  const ProbeVerdicts wrong =
      parse_probe_verdicts(nlohmann::json::parse(R"({"tool": "other"})"), "x.json", diagnostics);
  CHECK_FALSE(wrong.present);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].path == "x.json");
}

TEST_CASE("the action plan puts mechanical fixes first, with counts", "[assess][plan]") {
  const ScanResult scan = scan_of({{"model/attn.py", kModel}, {"train.py", kTrain}});
  const Assessment assessment = assess_scan(scan);
  int previous = 0;
  for (const auto &step : assessment.plan) {
    CHECK(step.order == ++previous);
  }
  // The porting steps (here after KEEP_LINUX_GPU's own, folded).
  std::vector<ActionStep> port;
  for (const auto &step : assessment.plan)
    if (step.if_port_anyway || assessment.decision.outcome != Outcome::KeepLinuxGpu)
      port.push_back(step);
  REQUIRE(port.size() >= 3);
  CHECK(port[0].title.find("device/dtype helper") != std::string::npos);
  CHECK(port[1].effort == "trivial");
  CHECK(port[1].count == 2);                                   // the two .cuda() calls
  CHECK(port[port.size() - 2].effort == "small");              // flash-attn after the mechanical edits
  CHECK(port.back().title.find("Acceptance on the Mac") == 0); // acceptance closes the plan
}

TEST_CASE("a KEEP_LINUX_GPU plan pins and guards first, and only then the port, folded", "[assess][plan]") {
  const Assessment keep = assess_scan(scan_of({{"model/attn.py", kModel}, {"train.py", kTrain}}));
  REQUIRE(keep.decision.outcome == Outcome::KeepLinuxGpu);
  REQUIRE(keep.plan.size() >= 3);
  CHECK(keep.plan[0].title == "Pin and document the Linux GPU environment");
  CHECK_FALSE(keep.plan[0].if_port_anyway);
  CHECK(keep.plan[1].title == "Guard the imports of 1 CUDA-only component");
  CHECK_FALSE(keep.plan[1].if_port_anyway);
  for (std::size_t i = 2; i < keep.plan.size(); ++i)
    CHECK(keep.plan[i].if_port_anyway);
  // What the plan's own steps cost is the recommended path's figure.
  CHECK(keep.plan[0].hours.low + keep.plan[1].hours.low == Approx(keep.recommended.hours.low));
  CHECK(keep.plan[0].hours.high + keep.plan[1].hours.high == Approx(keep.recommended.hours.high));
  for (const auto &reason : keep.decision.reasons)
    CHECK(reason.find("mpsaudit fix --apply removes") == std::string::npos);

  // The near case: a repository that ports folds nothing.
  const Assessment port = assess_scan(scan_of({{"train.py", kTrain}}));
  REQUIRE(port.decision.outcome != Outcome::KeepLinuxGpu);
  for (const auto &step : port.plan)
    CHECK_FALSE(step.if_port_anyway);
}

TEST_CASE("hours read as hours, days or weeks", "[assess][effort]") {
  CHECK(format_hours({0, 0}) == "0 h");
  CHECK(format_hours({0.1, 0.25}) == "0.1–0.2 h");
  CHECK(format_hours({2, 8}) == "2–8 h");
  CHECK(format_hours({16, 40}) == "2–5 d");
  CHECK(format_hours({80, 240}) == "2–6 wk");
  CHECK(format_hours({8, 8}) == "8 h");
  // The same figure summed in another order rounds alike (6.65 h twice).
  double summed = 0;
  for (const double part : {0.15, 0.5, 1.0, 5.0})
    summed += part;
  CHECK(format_hours({3, summed}) == format_hours({3, 5.0 + 1.0 + 0.5 + 0.15}));
  CHECK(format_hours({3, 6.6499999999999995}) == "3–6.7 h");
  CHECK(format_hours({3, 6.65}) == "3–6.7 h");
  CHECK(format_hours({3, 6.64}) == "3–6.6 h"); // the near case: a real difference stays
}

TEST_CASE("keeping only the assessment's facts changes neither findings nor assessment", "[assess][memory]") {
  // The scan drops what no later stage reads (assessment_retention and the
  // project passes' needs); every sample must come out the same as with
  // every fact kept, with far fewer facts held.
  for (const auto &entry :
       std::filesystem::directory_iterator(std::string(MPSAUDIT_SOURCE_DIR) + "/samples")) {
    if (!entry.is_directory())
      continue;
    INFO(entry.path().filename().string());
    ScanOptions options;
    options.paths = {entry.path().string()};
    options.use_git = false;
    const ScanResult whole = run_scan(options, testing::repository_catalog());
    options.retain_fact = [](const Fact &fact) {
      return assessment_retention(fact, bundled_assess_policy());
    };
    const ScanResult pruned = run_scan(options, testing::repository_catalog());

    REQUIRE(pruned.findings.size() == whole.findings.size());
    for (std::size_t i = 0; i < whole.findings.size(); ++i) {
      CHECK(pruned.findings[i].rule_id == whole.findings[i].rule_id);
      CHECK(pruned.findings[i].path == whole.findings[i].path);
      CHECK(pruned.findings[i].span.line == whole.findings[i].span.line);
      CHECK(pruned.findings[i].message == whole.findings[i].message);
    }
    const Assessment a = assess_scan(whole);
    const Assessment b = assess_scan(pruned);
    REQUIRE(a.roles.size() == b.roles.size());
    for (std::size_t i = 0; i < a.roles.size(); ++i) {
      CHECK(a.roles[i].role == b.roles[i].role);
      CHECK(a.roles[i].reasons == b.roles[i].reasons);
    }
    CHECK(a.decision.outcome == b.decision.outcome);
    CHECK(a.decision.reasons == b.decision.reasons);
    CHECK(a.effort.total.high == Approx(b.effort.total.high));
    CHECK(a.memory.summary == b.memory.summary);

    std::size_t whole_facts = 0, pruned_facts = 0;
    for (const auto &file : whole.project_files)
      whole_facts += file.facts.facts.size();
    for (const auto &file : pruned.project_files)
      for (const Fact &fact : file.facts.facts) {
        ++pruned_facts;
        // Only calls the roles or a pass look at, by name; the operator-coverage
        // pass keeps the calls it may report whole (their arguments pick the
        // operator), the cpu-dispatched-op-calls pass the calls of compiled
        // ops (a `.cpu()` argument), and the assessment keeps argparse calls
        // (an entry's purpose) and literal importlib imports (the module graph).
        const bool kept_whole = assessment_retention(fact, bundled_assess_policy()) == FactRetention::Keep ||
                                operator_coverage_retention(fact) == FactRetention::Keep ||
                                is_compiled_op_call(fact);
        if (fact.kind == fact_kind::Call && !kept_whole)
          CHECK(fact.arguments.empty());
      }
    CHECK(pruned_facts <= whole_facts);
    if (whole_facts > 50)
      CHECK(pruned_facts * 2 < whole_facts);
  }
}

TEST_CASE("the assessment keeps role signals once a file, modules whole, definitions per scope",
          "[assess][retention]") {
  const auto fact = [](std::string kind, std::string name, std::string scope = "") {
    Fact made;
    made.kind = std::move(kind);
    made.name = std::move(name);
    made.scope = std::move(scope);
    return made;
  };
  CHECK(assessment_retention(fact("call", "loss.backward", "train"), bundled_assess_policy()) ==
        FactRetention::Presence);
  CHECK(assessment_retention(fact("call", "optimizer.zero_grad", "train"), bundled_assess_policy()) ==
        FactRetention::Presence);
  CHECK(assessment_retention(fact("call", "torch.no_grad", "evaluate"), bundled_assess_policy()) ==
        FactRetention::Presence);
  CHECK(assessment_retention(fact("function-def", "forward", "Net"), bundled_assess_policy()) ==
        FactRetention::Presence);

  // Launch lines: every launcher entry discovery knows is kept (srun and
  // mpirun lines were once dropped before discovery saw them); others are not.
  for (const std::string launcher : {"python3.11", "torchrun", "srun", "mpirun", "poetry"})
    CHECK(assessment_retention(fact("shell", launcher), bundled_assess_policy()) == FactRetention::Keep);
  CHECK(assessment_retention(fact("shell", "hostname"), bundled_assess_policy()) != FactRetention::Keep);
  // A code generator's written source lines decide its purpose; other writes go.
  Fact writes = fact("call", "f.write", "main");
  Argument line;
  line.is_string = true;
  line.value = "#include \"fused.cuh\"";
  writes.arguments.push_back(line);
  CHECK(assessment_retention(writes, bundled_assess_policy()) == FactRetention::Keep);
  writes.arguments.front().value = "# samples";
  CHECK(assessment_retention(writes, bundled_assess_policy()) != FactRetention::Keep);

  Fact module = fact("class-def", "Net", "Net"); // a class's scope is its own name
  module.set_attribute("nn_module", "true");
  CHECK(assessment_retention(module, bundled_assess_policy()) ==
        FactRetention::Keep); // counted, and read by its attribute
  CHECK(assessment_retention(fact("class-def", "Config", "Config"), bundled_assess_policy()) ==
        FactRetention::NameOnly);
  CHECK(assessment_retention(fact("function-def", "forward"), bundled_assess_policy()) ==
        FactRetention::NameOnly); // module level
  CHECK(assessment_retention(fact("call", "torch.ops.boxes.nms", "nms"), bundled_assess_policy()) ==
        FactRetention::NameOnly);
  CHECK(assessment_retention(fact("call", "print", "train"), bundled_assess_policy()) == FactRetention::Drop);
}

namespace {

const std::string kSiblingModel = R"(import torch
from torch import nn


class Denoiser(nn.Module):
    def forward(self, x):
        return x * 2
)";

// A generator script; `requirement` is its first statement in main().
std::string generator(const std::string &description, const std::string &requirement) {
  return "import argparse\nimport torch\nfrom net import Denoiser\n\n\n@torch.no_grad()\ndef main():\n    " +
         requirement +
         "\n    model = Denoiser().eval()\n    print(model(torch.ones(2)))\n\n\n"
         "if __name__ == \"__main__\":\n    parser = argparse.ArgumentParser(description=\"" +
         description + "\")\n    main()\n";
}

const std::string kRequiresCuda = "assert torch.cuda.is_available(), \"one GPU per process\"";
const std::string kRunsAnywhere = "torch.set_grad_enabled(False)";

} // namespace

TEST_CASE("a CUDA-only entry beside a Mac-capable one of the same purpose is kept on Linux, never KEEP",
          "[assess][decision][entry-points]") {
  const Assessment beside =
      assess_scan(scan_of({{"net.py", kSiblingModel},
                           {"generate.py", generator("Generate samples", kRunsAnywhere)},
                           {"generate_multi_gpu.py", generator("Generate samples", kRequiresCuda)}}));
  CHECK(beside.decision.outcome == Outcome::Dual);
  REQUIRE(beside.decision.deciding.size() == 1);
  const DecisionFactor &factor = beside.decision.deciding[0];
  CHECK(factor.kind == FactorKind::EntryBlocker);
  CHECK(factor.path == "generate_multi_gpu.py");
  CHECK(factor.summary.find("generate.py (inference) does the same job on a Mac") != std::string::npos);
  // The recommended path prices the Mac-capable entry alone.
  CHECK(beside.recommended.goal.find("generate.py") != std::string::npos);
  CHECK(beside.recommended.goal.find("generate_multi_gpu.py") == std::string::npos);

  // Near cases: alone, or beside an entry that needs CUDA too, the same
  // blocker is on the critical path and decides KEEP_LINUX_GPU.
  const Assessment alone = assess_scan(scan_of(
      {{"net.py", kSiblingModel}, {"generate_multi_gpu.py", generator("Generate samples", kRequiresCuda)}}));
  CHECK(alone.decision.outcome == Outcome::KeepLinuxGpu);
  CHECK(alone.decision.deciding[0].kind == FactorKind::CriticalBlocker);
  const Assessment both =
      assess_scan(scan_of({{"net.py", kSiblingModel},
                           {"generate.py", generator("Generate samples", kRequiresCuda)},
                           {"generate_multi_gpu.py", generator("Generate samples", kRequiresCuda)}}));
  CHECK(both.decision.outcome == Outcome::KeepLinuxGpu);

  // A blocker in the shared model reaches the Mac-capable entry too: it
  // needs CUDA then, and the model's blocker decides as before.
  const Assessment shared =
      assess_scan(scan_of({{"net.py", kSiblingModel + "\nfrom flash_attn import flash_attn_func\n"},
                           {"generate.py", generator("Generate samples", kRunsAnywhere)},
                           {"generate_multi_gpu.py", generator("Generate samples", kRequiresCuda)}}));
  CHECK(shared.decision.outcome == Outcome::KeepLinuxGpu);
}

TEST_CASE("a torch pin older than MPS is one fix for the environment, never a reason for Linux GPUs",
          "[assess][decision]") {
  const std::string portable_script = "import torch\n\n\ndef main():\n    print(torch.ones(2))\n\n\n"
                                      "if __name__ == \"__main__\":\n    main()\n";
  const Assessment pinned = assess_scan(scan_of(
      {{"requirements.txt", "torch==1.10.0\n", FileKind::Requirements}, {"run.py", portable_script}}));
  CHECK(pinned.decision.outcome == Outcome::Adapt);
  CHECK(pinned.decision.deciding.empty());
  bool priced = false; // the pin is still part of the port
  for (const EffortItem &item : pinned.effort.items)
    priced |= item.key == "package:torch";
  CHECK(priced);

  // Near case: a CUDA-only package in the same manifest still decides.
  const Assessment cuda_only =
      assess_scan(scan_of({{"requirements.txt", "torch==1.10.0\ncupy-cuda12x\n", FileKind::Requirements},
                           {"run.py", portable_script}}));
  CHECK(cuda_only.decision.outcome != Outcome::Adapt);
  REQUIRE_FALSE(cuda_only.decision.deciding.empty());
  CHECK(cuda_only.decision.deciding[0].rule_id == "MPS703");
}

TEST_CASE("a manifest names a package: its CUDA-only line is left out of the Mac install, whatever the file "
          "is called",
          "[assess][decision]") {
  const std::string portable_server = "import torch\n\n\ndef main():\n    print(torch.ones(2))\n\n\n"
                                      "if __name__ == \"__main__\":\n    main()\n";
  // "serve" makes the manifest an inference file by its path; the package
  // line still runs nothing, so it is DUAL's to leave out, not KEEP's.
  const Assessment served =
      assess_scan(scan_of({{"tools/serve_requirements.txt", "torch\ntriton==2.1.0\n", FileKind::Requirements},
                           {"tools/serve.py", portable_server}}));
  CHECK(served.decision.outcome == Outcome::Dual);
  REQUIRE_FALSE(served.decision.deciding.empty());
  CHECK(served.decision.deciding[0].rule_id == "MPS703");

  // Near case: the code on the critical path that imports a CUDA-only
  // library is what keeps Linux GPUs.
  const Assessment imported =
      assess_scan(scan_of({{"tools/serve_requirements.txt", "torch\ntriton==2.1.0\n", FileKind::Requirements},
                           {"serve.py", "import triton\n" + portable_server}}));
  CHECK(imported.decision.outcome == Outcome::KeepLinuxGpu);
}

TEST_CASE("a plan step names its sites, and its files only when it has some", "[assess][plan]") {
  ActionStep step;
  CHECK(step.extent().empty());
  step.count = 16;
  CHECK(step.extent() == "16 sites"); // a step for the whole repository: never "in 0 files"
  step.files = 3;
  CHECK(step.extent() == "16 sites in 3 files");
  step.count = 1;
  step.files = 1;
  CHECK(step.extent() == "1 site in 1 file");
}

namespace {

// Every enum of docs/report.schema.json under a property named `property`
// that lists `marker`: the schema's copies of one C++ enum.
std::vector<std::vector<std::string>> schema_enums(const std::string &property, const std::string &marker) {
  std::ifstream in(std::string(MPSAUDIT_SOURCE_DIR) + "/docs/report.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  std::vector<std::vector<std::string>> found;
  const std::function<void(const nlohmann::json &)> visit = [&](const nlohmann::json &node) {
    if (node.is_object()) {
      if (node.contains(property) && node[property].is_object() && node[property].contains("enum")) {
        const auto listed = node[property]["enum"].get<std::vector<std::string>>();
        if (std::find(listed.begin(), listed.end(), marker) != listed.end())
          found.push_back(listed);
      }
      for (const auto &[key, value] : node.items())
        visit(value);
    } else if (node.is_array()) {
      for (const auto &value : node)
        visit(value);
    }
  };
  visit(schema);
  return found;
}

template <std::size_t N> std::vector<std::string> names_of(const std::string_view (&names)[N]) {
  return std::vector<std::string>(std::begin(names), std::end(names));
}

} // namespace

// The schema's lists under `property` that name `marker` are `names`, and
// there are at least `copies` of them.
template <std::size_t N>
void check_schema_lists(const std::string &property, const std::string &marker,
                        const std::string_view (&names)[N], std::size_t copies) {
  INFO(property << " lists with " << marker);
  const auto lists = schema_enums(property, marker);
  CHECK(lists.size() >= copies);
  for (const auto &listed : lists)
    CHECK(listed == names_of(names));
}

TEST_CASE("the JSON schema's enums are the C++ enums, in their order", "[assess][schema]") {
  check_schema_lists("kind", "critical-blocker", kFactorKindNames, 3); // deciding, secondary, groups
  check_schema_lists("mac", "runs-as-is", kMacStatusNames, 1);
  check_schema_lists("kind", "one-off", kEffortItemKindNames, 1);
  check_schema_lists("status", "not-yet-confirmed", kAcceptanceStatusNames, 1);
}
