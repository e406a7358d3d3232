// The effort arithmetic: kernel families, packages once per
// repository, acceptance on the Mac, and the recommended path's figure.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "../test_support.h"
#include "assess/assess_policy.h"
#include "assess/decision.h"
#include "dual_fixture.h"

using namespace mpsaudit;
using testing::scan_of;

namespace {

EffortModel repository_model() {
  std::vector<Diagnostic> diagnostics;
  EffortModel model = load_effort_model(testing::rules_directory() + "/effort.toml", diagnostics);
  REQUIRE(diagnostics.empty());
  return model;
}

Fact kernel_fact(const std::string &name) {
  Fact fact;
  fact.kind = "cuda-kernel";
  fact.name = name;
  fact.span.line = 5;
  fact.set_attribute("device_lines", "40");
  fact.set_attribute("launches", "1");
  return fact;
}

const EffortItem *item_with_key(const EffortEstimate &estimate, const std::string &key) {
  const auto found = std::find_if(estimate.items.begin(), estimate.items.end(),
                                  [&](const EffortItem &item) { return item.key == key; });
  return found == estimate.items.end() ? nullptr : &*found;
}

} // namespace

TEST_CASE("variant tokens leave a kernel's family name", "[assess][effort][families]") {
  const auto family_name = [](const std::string &kernel) {
    return kernel_family_name(kernel, bundled_assess_policy());
  };
  testing::check_cases(family_name, {{"flash_fwd_hdim64_fp16_sm80", "flash_fwd"},
                                     {"index_mul_2d_grad_float_dim64", "index_mul_2d_grad"},
                                     {"softmax_warp_forward", "softmax_warp_forward"},
                                     {"cleanup_v2", "cleanup"},
                                     {"fp16", "fp16"}}); // fp16: nothing else would be left
}

TEST_CASE("package names join however manifests spell them", "[assess][effort][packages]") {
  // Suffixes that name a CUDA build or a GPU variant of one package.
  testing::check_cases(package_key, {{"cuml-cu11", "cuml"},
                                     {"cupy-cuda12x", "cupy"},
                                     {"mmcv-full", "mmcv"},
                                     {"tensorflow-gpu", "tensorflow"}});
  // Spellings: an underscore is a hyphen; a name without a suffix is itself.
  testing::check_cases(package_key, {{"flash_attn", "flash-attn"}, {"pycuda", "pycuda"}});
}

TEST_CASE("a kernel family is one port plus a small amount per variant", "[assess][effort][families]") {
  ScanResult scan;
  ProjectFile a{"csrc/attn_hdim64.cu", FileKind::Cuda, {}};
  a.facts.facts.push_back(kernel_fact("attn_fwd_hdim64_fp16"));
  a.facts.facts.push_back(kernel_fact("attn_fwd_hdim64_bf16"));
  ProjectFile b{"csrc/attn_hdim128.cu", FileKind::Cuda, {}};
  b.facts.facts.push_back(kernel_fact("attn_fwd_hdim128_fp16"));
  b.facts.facts.push_back(kernel_fact("norm_kernel"));
  scan.project_files = {a, b};
  const EffortModel model = repository_model();
  const EffortEstimate effort = estimate_effort(scan, {}, model);
  const EffortItem *family = item_with_key(effort, "kernel:attn_fwd");
  REQUIRE(family != nullptr);
  CHECK(family->sites == 3);
  CHECK(family->files.size() == 2);
  const HourRange one{model.kernel_base.low + model.kernel_host_glue.low,
                      model.kernel_base.high + model.kernel_host_glue.high};
  CHECK(family->hours.low == Approx(one.low + 2 * model.kernel_per_variant.low));
  CHECK(family->hours.high == Approx(one.high + 2 * model.kernel_per_variant.high));
  REQUIRE(item_with_key(effort, "kernel:norm_kernel") != nullptr);
  REQUIRE(effort.kernel_families.size() == 2);
  CHECK(effort.kernel_families[0].name == "attn_fwd"); // largest first
  CHECK(native_port_text(effort, RecommendedPath::Port).find("2 kernel families") != std::string::npos);
}

TEST_CASE("C++ findings beside priced kernels are part of the families' ports",
          "[assess][effort][families]") {
  const std::string host = "#include <ATen/cuda/CUDAContext.h>\n"
                           "void launch() { auto s = at::cuda::getCurrentCUDAStream(); }\n";
  ScanResult scan;
  scan.files.push_back({"csrc/host.cpp", FileKind::Cxx, "lexical", host.size(), 1});
  ProjectFile host_file{"csrc/host.cpp", FileKind::Cxx,
                        testing::extract(FileKind::Cxx, host, "csrc/host.cpp")};
  for (auto &finding : testing::findings_for(FileKind::Cxx, host, "csrc/host.cpp"))
    scan.findings.push_back(std::move(finding));
  REQUIRE_FALSE(scan.findings.empty());
  ProjectFile kernel_file{"csrc/k.cu", FileKind::Cuda, {}};
  kernel_file.facts.facts.push_back(kernel_fact("scale_kernel"));
  scan.project_files = {host_file, kernel_file};
  const EffortEstimate effort = estimate_effort(scan, {}, repository_model());
  for (const EffortItem &item : effort.items)
    CHECK((item.kind != EffortItemKind::Finding)); // no separate item for the host glue
  const EffortItem *family = item_with_key(effort, "kernel:scale_kernel");
  REQUIRE(family != nullptr);
  CHECK(family->finding_indices.size() == scan.findings.size());
}

TEST_CASE("a package is priced once however many files name it", "[assess][effort][packages]") {
  const ScanResult scan = scan_of({{"a.py", "import xformers.ops\n"},
                                   {"b.py", "import xformers\n"},
                                   {"c.py", "from xformers.ops import memory_efficient_attention\n"}});
  const EffortEstimate effort = estimate_effort(scan, {}, repository_model());
  const EffortItem *package = item_with_key(effort, "package:xformers");
  REQUIRE(package != nullptr);
  CHECK(package->sites == 3);
  CHECK(package->files.size() == 3);
  CHECK(std::count_if(effort.items.begin(), effort.items.end(),
                      [](const EffortItem &item) { return item.kind == EffortItemKind::Finding; }) == 1);
}

TEST_CASE("a package's hours sit in the code that uses it, not in the manifests",
          "[assess][effort][packages]") {
  const ScanResult scan = scan_of({{"requirements.txt", "torch\nxformers==0.0.20\n", FileKind::Requirements},
                                   {"train.py", "from xformers.ops import fmha\n"},
                                   {"model.py", "import xformers.ops\n"}});
  const EffortEstimate effort = estimate_effort(scan, {}, repository_model());
  const EffortItem *package = item_with_key(effort, "package:xformers");
  REQUIRE(package != nullptr);
  CHECK(package->effort == Effort::Medium); // the largest class of its findings: packed attention (MPS419)
  REQUIRE(package->files.size() == 3);      // the manifest's line is part of the item
  double code_high = 0;
  for (const FileShare &share : package->files) {
    if (share.path == "requirements.txt")
      CHECK(share.hours.high == 0.0);
    else
      code_high += share.hours.high;
  }
  CHECK(code_high == Approx(package->hours.high));
}

TEST_CASE("acceptance on the Mac grows modestly with the entry points", "[assess][effort][acceptance]") {
  const std::string script =
      "import torch\nx = torch.zeros(1).cuda()\nif __name__ == \"__main__\":\n    pass\n";
  const EffortModel model = repository_model();
  // Scripts named for inference: a tool's runs are not accepted on the Mac.
  const ScanResult one = scan_of({{"predict.py", script}});
  const EffortEstimate single =
      estimate_effort(one, classify_roles(one.project_files, {}, bundled_assess_policy()), model);
  REQUIRE(single.entry_points.size() == 1);
  const EffortItem *base = item_with_key(single, "one-off:mac-acceptance");
  REQUIRE(base != nullptr);
  CHECK(base->hours.low == Approx(model.acceptance_base.low));

  std::vector<testing::SourceText> many;
  for (int i = 0; i < 20; ++i)
    many.push_back({"predict_" + std::to_string(i) + ".py", script});
  const ScanResult lots = scan_of(many);
  const EffortEstimate twenty =
      estimate_effort(lots, classify_roles(lots.project_files, {}, bundled_assess_policy()), model);
  const EffortItem *scaled = item_with_key(twenty, "one-off:mac-acceptance");
  REQUIRE(scaled != nullptr);
  // Capped: at most acceptance_entry_cap further entry points count.
  CHECK(scaled->hours.high ==
        Approx(model.acceptance_base.high + model.acceptance_entry_cap * model.acceptance_per_entry.high));

  const ScanResult clean = scan_of({{"clean.py", "import torch\nx = torch.zeros(1)\n"}});
  CHECK(estimate_effort(clean, {}, model).items.empty()); // no port, nothing to accept
}

TEST_CASE("the scripts accepted on the Mac are the main entry points, however found",
          "[assess][effort][acceptance]") {
  const std::string cuda_line = "import torch\nx = torch.zeros(1).cuda()\n";
  const std::string guarded = cuda_line + "if __name__ == \"__main__\":\n    pass\n";
  const auto accepted = [](const ScanResult &scan) {
    return estimate_effort(scan, classify_roles(scan.project_files, {}, bundled_assess_policy()),
                           repository_model())
        .entry_points;
  };
  // train.py has no __main__ guard: the shell script runs it. Training
  // before export; a test's __main__ is not a script of the port, nor is
  // data preparation, which runs as it does on Linux.
  const ScanResult scripts = scan_of({{"train.py", cuda_line},
                                      {"run.sh", "python train.py --epochs 3\n", FileKind::Shell},
                                      {"tools/export.py", guarded},
                                      {"prepare.py", guarded},
                                      {"tests/test_model.py", guarded}});
  CHECK(accepted(scripts) == std::vector<std::string>{"train.py", "tools/export.py"});

  // A library without scripts: its top-level package is an entry of the
  // reachability, not a script to run.
  const ScanResult library = scan_of({{"lib/__init__.py", cuda_line}, {"lib/ops.py", cuda_line}});
  CHECK(accepted(library).empty());

  // The assessment passes the entries it traced.
  const std::vector<std::string> given{"serve.py"};
  CHECK(estimate_effort(scripts, {}, repository_model(), {}, {}, nullptr, EstimateDetail::Full,
                        bundled_assess_policy(), &given)
            .entry_points == given);
}

TEST_CASE("the recommended figure prices the verdict's path", "[assess][effort][paths]") {
  const ScanResult scan = scan_of({{"net.py", std::string(testing::kDualModelCode)},
                                   {"train.py", std::string(testing::kDualTrainScript)}});
  const auto roles = classify_roles(scan.project_files, {}, bundled_assess_policy());
  const EffortModel model = repository_model();
  const EffortEstimate effort = estimate_effort(scan, roles, model);

  const RecommendedPlan port = plan_for(RecommendedPath::Port, effort, roles, model);
  CHECK(port.path == RecommendedPath::Port);
  CHECK(port.hours.high == Approx(effort.total.high));
  CHECK(port.goal == "run train.py on MPS");

  const RecommendedPlan dual = plan_for(RecommendedPath::MacEntryPoints, effort, roles, model);
  CHECK(dual.hours.high < effort.total.high); // training stays on Linux
  CHECK(dual.hours.high > 0);
  CHECK(dual.goal.find("while training stays on Linux") != std::string::npos);
  // Items the decision marks Linux-only (multi-GPU machinery) are off the Mac side.
  PlanScope linux_only;
  for (const EffortItem &item : effort.items)
    linux_only.linux_only_items.push_back(item.family == "distributed");
  CHECK(plan_for(RecommendedPath::MacEntryPoints, effort, roles, model, linux_only).hours.high <=
        dual.hours.high);

  // Files no Mac path needs (option-only code, optional sub-projects) are off both paths.
  for (const RecommendedPath path : {RecommendedPath::Port, RecommendedPath::MacEntryPoints}) {
    const HourRange with_model = plan_for(path, effort, roles, model).hours;
    CHECK(plan_for(path, effort, roles, model, {{"net.py"}, {}, {}}).hours.high < with_model.high);
  }

  const RecommendedPlan keep = plan_for(RecommendedPath::KeepLinux, effort, roles, model);
  CHECK(keep.hours.low == Approx(model.keep_pin.low));
  CHECK(keep.fix.safe_sites == 0);
  CHECK_FALSE(keep.steps.empty()); // pin the environment
  CHECK(port.steps.empty());

  // assess() prices the path its verdict recommends.
  AssessmentInput input;
  input.scan = &scan;
  input.model = model;
  input.thresholds = testing::repository_thresholds();
  const Assessment assessment = assess(input);
  CHECK(assessment.decision.outcome == Outcome::Dual);
  CHECK(assessment.recommended.path == RecommendedPath::MacEntryPoints);
}

TEST_CASE("fix's credit names the estimate it is part of", "[assess][effort][fix]") {
  FixCredit credit;
  credit.safe = {1, 2};
  credit.safe_sites = 3;
  credit.with_unsafe = {1.5, 3};
  credit.unsafe_sites = 1;
  CHECK(fix_credit_sentence(credit) == "mpsaudit fix --apply removes 1–2 h of it (3 findings); --unsafe "
                                       "edits 1 more after review (1.5–3 h in all).");
  CHECK(fix_credit_sentence(credit, "the native port")
            .rfind("mpsaudit fix --apply removes 1–2 h of the native port (3 findings)", 0) == 0);
}

TEST_CASE("long native ports read in whole person-months", "[assess][effort]") {
  CHECK(format_hours({480, 1600}) == "3–10 person-months");
  CHECK(format_hours({100, 479}) == "2.5–12 wk");
  CHECK(format_hours({40, 500}) == "1–3 person-months");
}

TEST_CASE("a DUAL goal names the Mac's inference entries, never download scripts",
          "[assess][effort][paths]") {
  const std::string train =
      "import torch\nimport torch.distributed as dist\n\ndef main(model, data):\n"
      "    dist.init_process_group('nccl')\n    opt = torch.optim.AdamW(model.parameters())\n"
      "    model(data.cuda()).sum().backward()\n    opt.step()\n"
      "\nif __name__ == \"__main__\":\n    main(None, None)\n";
  const std::string download = "import urllib.request\n\nif __name__ == \"__main__\":\n"
                               "    urllib.request.urlretrieve('https://example.org/w.pt', 'w.pt')\n";
  const std::string predict = "import torch\n\ndef predict(model, x):\n    with torch.no_grad():\n"
                              "        return model.eval()(x.cuda())\n"
                              "\nif __name__ == \"__main__\":\n    predict(None, None)\n";
  const EffortModel model = repository_model();
  const ScanResult only_tools = scan_of({{"train.py", train}, {"download.py", download}});
  const auto tool_roles = classify_roles(only_tools.project_files, {}, bundled_assess_policy());
  const EffortEstimate tools = estimate_effort(only_tools, tool_roles, model);
  CHECK(plan_for(RecommendedPath::MacEntryPoints, tools, tool_roles, model).goal ==
        "run inference, evaluation and tests on MPS while training stays on Linux");

  const ScanResult with_predict =
      scan_of({{"train.py", train}, {"download.py", download}, {"predict.py", predict}});
  const auto roles = classify_roles(with_predict.project_files, {}, bundled_assess_policy());
  const EffortEstimate effort = estimate_effort(with_predict, roles, model);
  CHECK(plan_for(RecommendedPath::MacEntryPoints, effort, roles, model).goal ==
        "run predict.py on MPS while training stays on Linux");
}
