// Entry points, their purposes, reachability over the module graph and the
// per-entry Mac status (assess/entry_points.h, reachability.h,
// entry_verdict.h), and how they feed the decision.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "../test_support.h"
#include "assess/decision.h"
#include "assess/entry_verdict.h"
#include "assess/option_gating.h"
#include "frontend/manifest/local_import_pass.h"

using namespace mpsaudit;

namespace {

using testing::scan_of;
using testing::SourceText;

struct Traced {
  std::vector<EntryPoint> entries;
  Reachability reach;
};

Traced trace(const ScanResult &scan) {
  const ModuleIndex index(scan.project_files);
  const auto graph = build_module_graph(scan.project_files, index);
  Traced traced;
  traced.entries = discover_entry_points(scan.project_files, index, graph, bundled_assess_policy());
  traced.reach = compute_reachability(scan.project_files, traced.entries, graph, bundled_assess_policy());
  return traced;
}

const EntryPoint *entry_named(const std::vector<EntryPoint> &entries, const std::string &path) {
  for (const EntryPoint &entry : entries)
    if (entry.path == path)
      return &entry;
  return nullptr;
}

std::size_t file_index(const ScanResult &scan, const std::string &path) {
  for (std::size_t i = 0; i < scan.project_files.size(); ++i)
    if (scan.project_files[i].path == path)
      return i;
  FAIL("no file " << path);
  return 0;
}

const std::string kMain = "if __name__ == \"__main__\":\n    main()\n";

const std::string kTrainLoop = R"(import torch
from pkg.model import Net

def main():
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(torch.zeros(1)).sum()
    loss.backward()
    optimizer.step()
)";

const std::string kInfer = R"(import torch
from pkg.model import Net

def main():
    model = Net().eval()
    with torch.no_grad():
        print(model(torch.zeros(1)))
)";

const std::string kNet = R"(import torch.nn as nn
from .layers import Block

class Net(nn.Module):
    def forward(self, x):
        return Block()(x)
)";

} // namespace

TEST_CASE("entry points: __main__ scripts, declared commands, launch lines, hubconf and notebooks",
          "[assess][entry-points]") {
  const ScanResult scan = scan_of({
      {"pkg/__init__.py", ""},
      {"pkg/model.py", kNet},
      {"pkg/layers.py", "import torch\nclass Block: pass\n"},
      {"pkg/cli.py", "def run():\n    pass\n"},
      {"tools/train.py", kTrainLoop + kMain},
      {"serve_app.py", "import pkg.model\n"},
      {"hubconf.py", "from pkg.model import Net\n"},
      {"run.sh", "torchrun --nproc_per_node 8 tools/train.py --cfg x\npython serve_app.py\n",
       FileKind::Shell},
      {"slurm.sh", "srun python jobs/sweep.py --lr 1\ncp jobs/notes.py /tmp/\n", FileKind::Shell},
      {"jobs/sweep.py", "import torch\n"},
      {"jobs/notes.py", "import torch\n"},
      {"pyproject.toml", "[project]\nname = \"pkg\"\n[project.scripts]\npkg-run = \"pkg.cli:run\"\n",
       FileKind::Pyproject},
      {"tests/test_model.py", "from pkg.model import Net\n" + kMain},
      // A README's command and a notebook's `!` line launch scripts too.
      {"README.md", "Run:\n```bash\n$ python scripts/demo.py --n 1\n```\n", FileKind::Prose},
      {"scripts/demo.py", "import torch\n"},
      {"report.ipynb",
       R"({"cells": [{"cell_type": "code", "source": ["!python jobs/report.py --out r.md\n"], "metadata": {},
           "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})",
       FileKind::Notebook},
      {"jobs/report.py", "import torch\n"},
  });
  const auto [entries, reach] = trace(scan);
  const EntryPoint *demo = entry_named(entries, "scripts/demo.py");
  REQUIRE(demo);
  CHECK(demo->found_by == std::vector<std::string>{"README.md:3"});
  const EntryPoint *report = entry_named(entries, "jobs/report.py");
  REQUIRE(report);
  CHECK(report->found_by.front().rfind("report.ipynb:", 0) == 0);
  const EntryPoint *train = entry_named(entries, "tools/train.py");
  REQUIRE(train);
  CHECK(train->scope == EntryScope::Main);
  CHECK(std::find(train->found_by.begin(), train->found_by.end(), "__main__ guard") != train->found_by.end());
  CHECK(std::find(train->found_by.begin(), train->found_by.end(), "run.sh:1") != train->found_by.end());
  const EntryPoint *serve = entry_named(entries, "serve_app.py");
  REQUIRE(serve);
  CHECK(serve->found_by == std::vector<std::string>{"run.sh:2"});
  // A launcher before the interpreter (srun python x.py) still names the
  // script; a command that is no launcher (cp) names none.
  const EntryPoint *sweep = entry_named(entries, "jobs/sweep.py");
  REQUIRE(sweep);
  CHECK(sweep->found_by == std::vector<std::string>{"slurm.sh:1"});
  CHECK_FALSE(entry_named(entries, "jobs/notes.py"));
  const EntryPoint *command = entry_named(entries, "pkg/cli.py");
  REQUIRE(command);
  CHECK(command->found_by.front() == "command `pkg-run` (pyproject.toml)");
  REQUIRE(entry_named(entries, "hubconf.py"));
  const EntryPoint *test = entry_named(entries, "tests/test_model.py");
  REQUIRE(test);
  CHECK(test->scope == EntryScope::Test);
  CHECK(test->purpose == EntryPurpose::Test);
  CHECK(entries.front().scope == EntryScope::Main);
  CHECK(entries.back().scope == EntryScope::Test);
}

TEST_CASE("setup.py console_scripts name entry points", "[assess][entry-points]") {
  const ScanResult scan = scan_of({
      {"setup.py",
       "from setuptools import setup\nsetup(name='x', entry_points={'console_scripts': ['x-export = "
       "x.export_tool:main']})\n",
       FileKind::SetupPy},
      {"x/__init__.py", ""},
      {"x/export_tool.py", "def main():\n    pass\n"},
  });
  const auto [entries, reach] = trace(scan);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].path == "x/export_tool.py");
  CHECK(entries[0].purpose == EntryPurpose::Export);
  CHECK(entries[0].found_by.front() == "command `x-export` (setup.py)");
}

TEST_CASE("a library with no scripts: its top-level packages are the entry points",
          "[assess][entry-points]") {
  const ScanResult scan = scan_of({{"lib/__init__.py", "from .core import f\n"},
                                   {"lib/core.py", "def f():\n    pass\n"},
                                   {"lib/sub/__init__.py", ""}});
  const auto [entries, reach] = trace(scan);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].path == "lib/__init__.py");
  CHECK(entries[0].purpose == EntryPurpose::Library);
  CHECK(reach.files[file_index(scan, "lib/core.py")].status == ReachStatus::Reached);
}

TEST_CASE("a script that only other scripts import ranks as a script; one the library imports, after",
          "[assess][entry-points]") {
  const ScanResult scan = scan_of({
      {"train.py", kTrainLoop + kMain},
      {"search/sweep.py", "import train\n" + kTrainLoop + kMain}, // a sweep imports the training script
      {"pkg/__init__.py", "from pkg import layers\n"},
      {"pkg/layers.py", "import torch\n" + kTrainLoop + kMain}, // a self-test __main__ in the library
  });
  const auto [entries, reach] = trace(scan);
  std::vector<std::string> order;
  for (const EntryPoint &entry : entries)
    order.push_back(entry.path);
  CHECK(order == std::vector<std::string>{"train.py", "search/sweep.py", "pkg/layers.py"});
}

TEST_CASE("purpose: name, then argparse description, then content, then flags", "[assess][entry-points]") {
  const auto purpose_of = [](const std::string &path, const std::string &text) {
    const ProjectFile file{path, FileKind::Python, testing::extract(FileKind::Python, text, path)};
    return guess_purpose(file, bundled_assess_policy());
  };
  CHECK(purpose_of("tools/train_net.py", "").purpose == EntryPurpose::Training);
  CHECK(purpose_of("tools/train_net.py", "").source == "name: train_net.py");
  CHECK(purpose_of("export_model.py", "").purpose == EntryPurpose::Export);
  CHECK(purpose_of("benchmarks/run.py", "").purpose == EntryPurpose::Benchmark);
  CHECK(purpose_of("benchmarks/run.py", "").source == "directory: benchmarks/");
  const PurposeGuess described = purpose_of(
      "main.py", "import argparse\np = argparse.ArgumentParser(description='Evaluate a checkpoint')\n");
  CHECK(described.purpose == EntryPurpose::Evaluation);
  CHECK(described.source == "argparse description: \"Evaluate a checkpoint\"");
  CHECK(purpose_of("main.py", kTrainLoop).purpose == EntryPurpose::Training);
  CHECK(purpose_of("main.py", kTrainLoop).source == "content: calls backward() and steps an optimizer");
  CHECK(purpose_of("main.py", kInfer).purpose == EntryPurpose::Inference);
  const PurposeGuess flagged =
      purpose_of("main.py", "import argparse\np = argparse.ArgumentParser()\np.add_argument('--epochs')\n");
  CHECK(flagged.purpose == EntryPurpose::Training);
  CHECK(flagged.source == "flags: --epochs");
  CHECK(purpose_of("main.py", "print(1)\n").purpose == EntryPurpose::Tooling);
}

TEST_CASE("reachability: absolute, relative and package imports, with the shortest chain",
          "[assess][reachability]") {
  const ScanResult scan = scan_of({
      {"pkg/__init__.py", "from . import ops\n"},
      {"pkg/ops/__init__.py", ""},
      {"pkg/ops/kernel.cu", "__global__ void k() {}\n", FileKind::Cuda},
      {"pkg/model.py", kNet},
      {"pkg/layers.py", "class Block: pass\n"},
      {"pkg/unused.py", "x = 1\n"},
      {"infer.py", kInfer + kMain},
      {"tests/test_unused.py", "import pkg.unused\n" + kMain},
      {"tests/test_kernels.py", "import torch\ndef test_k():\n    pass\n"},
  });
  const auto [entries, reach] = trace(scan);
  const auto status = [&](const std::string &path) { return reach.files[file_index(scan, path)].status; };
  CHECK(status("pkg/model.py") == ReachStatus::Reached);
  CHECK(status("pkg/layers.py") == ReachStatus::Reached);       // relative import
  CHECK(status("pkg/ops/__init__.py") == ReachStatus::Reached); // `from . import ops` in the package
  CHECK(status("pkg/ops/kernel.cu") == ReachStatus::Reached);   // native source of a reached package
  CHECK(status("pkg/unused.py") == ReachStatus::TestOnly);
  CHECK(status("tests/test_kernels.py") == ReachStatus::TestOnly); // pytest runs it, no entry imports it
  const FileReach &layers = reach.files[file_index(scan, "pkg/layers.py")];
  std::vector<std::string> chain;
  for (const std::uint32_t step : layers.chain)
    chain.push_back(scan.project_files[step].path);
  CHECK(chain == std::vector<std::string>{"infer.py", "pkg/model.py", "pkg/layers.py"});
  REQUIRE(layers.entries.size() == 1);
  CHECK(entries[layers.entries[0]].path == "infer.py");
}

TEST_CASE("module names resolve to the tree's files, and names it has no file for to none",
          "[assess][reachability]") {
  const ScanResult scan = scan_of({
      {"src/pkg/__init__.py", ""},
      {"src/pkg/mod.py", "def f(): pass\n"},
      {"tools/run.py", "import helpers\n"},
      {"tools/helpers.py", "x = 1\n"},
      {"setup.py", "from setuptools import setup\nsetup(name='pkg')\n", FileKind::SetupPy},
      {"train.py", "import torch\n"},
  });
  const ModuleIndex index(scan.project_files);
  const std::size_t train = file_index(scan, "train.py");
  const auto resolved = [&](const std::string &name, std::size_t importer) -> std::string {
    const auto file = index.resolve(name, importer);
    return file ? scan.project_files[*file].path : "-";
  };
  CHECK(resolved("torch.nn.functional.interpolate", train) == "-");
  CHECK(resolved("pkg.mod.f", train) == "src/pkg/mod.py"); // below a source root, the longest prefix
  CHECK(resolved("pkg", train) == "src/pkg/__init__.py");
  CHECK(resolved("helpers", file_index(scan, "tools/run.py")) == "tools/helpers.py"); // beside the script
  CHECK(resolved("helpers", train) == "-");            // a one-word module of another corner of the tree
  CHECK(resolved("setup.setup", train) == "setup.py"); // a packaging script is importable too
}

TEST_CASE("reachability: an optional sub-project and container-only scripts", "[assess][reachability]") {
  const ScanResult scan = scan_of({
      {"setup.py", "from setuptools import setup\nsetup(name='main')\n", FileKind::SetupPy},
      {"main/__init__.py", ""},
      {"main/model.py", kNet},
      {"main/layers.py", "class Block: pass\n"},
      {"demo.py", "from main.model import Net\n" + kMain},
      {"projects/ext/setup.py", "from setuptools import setup\nsetup(name='ext')\n", FileKind::SetupPy},
      {"projects/ext/ext/__init__.py", "from main.model import Net\n"},
      {"projects/ext/ext/csrc/op.cu", "__global__ void k() {}\n", FileKind::Cuda},
      {"projects/ext/train_ext.py", "import ext\n" + kMain},
      {"docker/Dockerfile", "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nCMD [\"python\", \"serve.py\"]\n",
       FileKind::Dockerfile},
      {"serve.py", "import torch\n"},
  });
  const auto [entries, reach] = trace(scan);
  const auto status = [&](const std::string &path) { return reach.files[file_index(scan, path)].status; };
  CHECK(reach.optional_sub_projects == std::vector<std::string>{"projects/ext"});
  CHECK(status("projects/ext/ext/csrc/op.cu") == ReachStatus::OptionalSubProject);
  CHECK(status("projects/ext/train_ext.py") == ReachStatus::OptionalSubProject);
  CHECK(status("main/model.py") == ReachStatus::Reached); // the sub-project imports main, not the reverse
  CHECK(status("docker/Dockerfile") == ReachStatus::ContainerOnly);
  CHECK(status("serve.py") == ReachStatus::ContainerOnly);
  CHECK(entry_named(entries, "serve.py")->scope == EntryScope::Container);
  CHECK(entry_named(entries, "projects/ext/train_ext.py")->scope == EntryScope::SubProject);
  CHECK_FALSE(may_decide(ReachStatus::OptionalSubProject));
  CHECK_FALSE(may_decide(ReachStatus::ContainerOnly));
  CHECK(may_decide(ReachStatus::Unreached));
}

TEST_CASE("a script that writes C/C++/CUDA sources is a code generator: tooling, running none of them",
          "[assess][reachability]") {
  const std::string generator = "import pathlib\n\ndef main():\n"
                                "    with open(pathlib.Path('k') / 'fused_64.cu', 'w') as f:\n"
                                "        f.write('#include \"fused.cuh\"\\n')\n" +
                                kMain;
  // Near cases: a sampler named generate that writes text, and a wrapper
  // module beside kernels it loads (its directory's sources are its own).
  const std::string sampler = "import torch\n\ndef main():\n    with torch.no_grad():\n"
                              "        open('samples.txt', 'w').write('# samples\\n')\n" +
                              kMain;
  const ScanResult scan = scan_of({
      {"kernels/generate_kernels.py", generator},
      {"kernels/fused.cu", "__global__ void fused(float *x) { x[0] = 1; }\n", FileKind::Cuda},
      {"generate.py", sampler},
      {"ops/wrapper.py", "import torch\n"},
      {"ops/op.cu", "__global__ void op() {}\n", FileKind::Cuda},
      {"run_ops.py", "import ops.wrapper\n" + kMain},
  });
  const auto [entries, reach] = trace(scan);
  const auto status = [&](const std::string &path) { return reach.files[file_index(scan, path)].status; };
  const EntryPoint *codegen = entry_named(entries, "kernels/generate_kernels.py");
  REQUIRE(codegen);
  CHECK(codegen->purpose == EntryPurpose::Tooling);
  CHECK(codegen->purpose_source ==
        "content: writes C/C++/CUDA source (`#include \"fused.cuh\"`): a code generator");
  CHECK(status("kernels/fused.cu") == ReachStatus::Unreached);
  REQUIRE(entry_named(entries, "generate.py"));
  CHECK(entry_named(entries, "generate.py")->purpose == EntryPurpose::Inference);
  CHECK(status("ops/op.cu") == ReachStatus::Reached);
}

TEST_CASE("per-entry Mac status: blockers in what it runs, fixes, optional CUDA paths",
          "[assess][entry-points][decision]") {
  const ScanResult scan = scan_of({
      {"pkg/__init__.py", ""},
      {"pkg/model.py", kNet},
      {"pkg/layers.py", "class Block: pass\n"},
      {"pkg/fast.py", "import torch\nfrom flash_attn import flash_attn_func\n"},
      {"pkg/opt.py", "try:\n    import triton\nexcept ImportError:\n    triton = None\n"},
      {"infer.py", kInfer + kMain},
      {"fix_me.py", "import torch\nx = torch.zeros(1).cuda()\n" + kMain},
      {"train.py", "import pkg.fast\n" + kTrainLoop + kMain},
      {"opt_entry.py", "import pkg.opt\n" + kMain},
  });
  const auto [entries, reach] = trace(scan);
  AssessmentInput input;
  const Assessment assessment = [&] {
    input.scan = &scan;
    return assess(input);
  }();
  const EffortEstimate effort = estimate_effort(scan, assessment.roles, input.model);
  const auto judged = judge_entry_points(scan, entries, reach, effort, DecisionThresholds{});
  const auto mac_of = [&](const std::string &path) {
    for (const EntryAssessment &entry : judged)
      if (entry.entry.path == path)
        return std::string(to_string(entry.mac));
    return std::string("missing");
  };
  CHECK(mac_of("infer.py") == "runs-as-is");
  CHECK(mac_of("fix_me.py") == "runs-after-fixes");
  CHECK(mac_of("train.py") == "needs-cuda");
  CHECK(mac_of("opt_entry.py") == "optional-cuda-path");
  for (const EntryAssessment &entry : judged)
    if (entry.entry.path == "train.py") {
      REQUIRE(entry.blockers.size() == 1);
      CHECK(entry.blockers[0].rule_id == "MPS402");
      CHECK(entry.blockers[0].path == "pkg/fast.py");
    } else if (entry.entry.path == "fix_me.py") {
      CHECK(entry.hours.high > 0);
    }
  // The assessment carries the same table, and the decision names the entry.
  REQUIRE(!assessment.entry_points.empty());
  REQUIRE(!assessment.decision.deciding.empty());
  const DecisionFactor &factor = assessment.decision.deciding.front();
  CHECK(factor.path == "pkg/fast.py");
  CHECK(factor.entries == std::vector<InternedString>{"train.py"});
}

TEST_CASE("findings in an optional sub-project never decide; roles follow the entries that reach a file",
          "[assess][decision][reachability]") {
  const ScanResult scan = scan_of({
      {"setup.py", "from setuptools import setup\nsetup(name='main')\n", FileKind::SetupPy},
      {"main/__init__.py", ""},
      {"main/model.py", kNet},
      {"main/layers.py", "class Block: pass\n"},
      {"demo.py", "from main.model import Net\n" + kMain},
      {"export_onnx.py", "import main.trt_head\n" + kMain},
      {"main/trt_head.py", "import torch.nn as nn\nfrom flash_attn import flash_attn_func\n"
                           "class Head(nn.Module):\n    def forward(self, x):\n        return x\n"},
      {"projects/ext/setup.py", "from setuptools import setup\nsetup(name='ext')\n", FileKind::SetupPy},
      {"projects/ext/ext/model.py",
       "import torch.nn as nn\nfrom flash_attn import flash_attn_func\nclass M(nn.Module):\n"
       "    def forward(self, x):\n        return flash_attn_func(x, x, x)\n"},
  });
  AssessmentInput input;
  input.scan = &scan;
  const Assessment assessment = assess(input);
  CHECK(assessment.decision.outcome != Outcome::KeepLinuxGpu);
  for (const FileRole &role : assessment.roles)
    if (role.path == "main/trt_head.py") {
      CHECK(role.role == Role::Tooling);
      CHECK(role.reasons.front().find("export_onnx.py") != std::string::npos);
    }
  const auto reach = assessment.reachability.find("projects/ext/ext/model.py");
  REQUIRE(reach != assessment.reachability.end());
  CHECK(reach->second.status == "optional-sub-project");
}

TEST_CASE("a CUDA-only module that only training entries run is training code when inference runs without it",
          "[assess][decision][reachability]") {
  const std::string kTritonLoss = "import triton\n\ndef loss(x):\n    return x\n";
  const std::string kTrainWithLoss = "from models.loss import loss\n" + kTrainLoop + kMain;
  // With an inference entry that does not import it: DUAL, not KEEP.
  const ScanResult with_inference = scan_of({
      {"pkg/__init__.py", ""},
      {"pkg/model.py", kNet},
      {"pkg/layers.py", "class Block: pass\n"},
      {"models/loss.py", kTritonLoss},
      {"train.py", kTrainWithLoss},
      {"infer.py", kInfer + kMain},
  });
  AssessmentInput input;
  input.scan = &with_inference;
  const Assessment dual = assess(input);
  CHECK(dual.decision.outcome == Outcome::Dual);
  for (const FileRole &role : dual.roles)
    if (role.path == "models/loss.py")
      CHECK(role.role == Role::Training);
  // Training alone: the module stays the model's, and the blocker keeps it on Linux.
  const ScanResult training_only = scan_of({
      {"pkg/__init__.py", ""},
      {"pkg/model.py", kNet},
      {"pkg/layers.py", "class Block: pass\n"},
      {"models/loss.py", kTritonLoss},
      {"train.py", kTrainWithLoss},
  });
  input.scan = &training_only;
  CHECK(assess(input).decision.outcome == Outcome::KeepLinuxGpu);
}

TEST_CASE("importlib.import_module with a literal is an edge; the decision lists the main entries",
          "[assess][reachability][decision]") {
  const ScanResult scan = scan_of({
      {"plugins/__init__.py", ""},
      {"plugins/fast.py", "import torch\nx = torch.zeros(1).cuda()\n"},
      {"run.py", "import importlib\nplugin = importlib.import_module('plugins.fast')\n" + kMain},
  });
  const auto [entries, reach] = trace(scan);
  CHECK(reach.files[file_index(scan, "plugins/fast.py")].status == ReachStatus::Reached);
  AssessmentInput input;
  input.scan = &scan;
  const Assessment assessment = assess(input);
  CHECK(std::find(assessment.decision.reasons.begin(), assessment.decision.reasons.end(),
                  "Entry points: run.py (tooling) runs after fixes.") != assessment.decision.reasons.end());
}

TEST_CASE("errors in files no main entry point runs are reported as warnings", "[assess][reachability]") {
  Assessment assessment;
  assessment.reachability["tests/test_kernel.py"].status = "test-only";
  assessment.reachability["tests/test_kernel.py"].may_decide = false;
  assessment.reachability["pkg/model.py"].status = "reached";
  std::vector<Finding> findings(3);
  findings[0].path = "tests/test_kernel.py";
  findings[0].severity = static_cast<int>(Severity::Error);
  findings[0].message = "needs CUDA";
  findings[1].path = "pkg/model.py";
  findings[1].severity = static_cast<int>(Severity::Error);
  findings[2].path = "tests/test_kernel.py";
  findings[2].severity = static_cast<int>(Severity::Info);
  demote_errors_off_entry_paths(findings, assessment);
  CHECK(findings[0].severity == static_cast<int>(Severity::Warning));
  CHECK(findings[0].message == "needs CUDA [test-only: not on a Mac entry path]");
  CHECK(findings[1].severity == static_cast<int>(Severity::Error)); // a main entry runs it
  CHECK(findings[2].severity == static_cast<int>(Severity::Info));  // never raised
}

TEST_CASE("the decision leads with its strongest reason", "[assess][decision]") {
  // The header comes first in the file; the kernel is the bigger reason.
  const ScanResult scan = scan_of({
      {"pkg/__init__.py", "from . import model\n"},
      {"pkg/model.py", kNet + "from pkg import _ops\n"},
      {"pkg/_ops.cu",
       "#include <ATen/cuda/CUDAContext.h>\n"
       "__global__ void scale_kernel(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2; }\n",
       FileKind::Cuda},
      {"infer.py", kInfer + kMain},
  });
  AssessmentInput input;
  input.scan = &scan;
  const Assessment assessment = assess(input);
  REQUIRE(assessment.decision.outcome == Outcome::KeepLinuxGpu);
  REQUIRE(assessment.decision.deciding.size() >= 2);
  CHECK(assessment.decision.deciding.front().rule_id == "MPS801");
}

TEST_CASE("op stems drop the words that name a backend or a part", "[assess][option-gating]") {
  CHECK(op_stem("warp_flow_cuda", bundled_assess_policy().not_the_op) == "warpflow");
  CHECK(op_stem("warp_flow_forward", bundled_assess_policy().not_the_op) == "warpflow");
  CHECK(op_stem("ROIPool_kernel", bundled_assess_policy().not_the_op) == "roipool");
  CHECK(op_stem("bindings", bundled_assess_policy().not_the_op) == "bindings");
}

namespace {

// A package whose one compiled op only CUDA implements, wrapped by
// pkg/ops/warp.py, and a model that builds `head` around it.
ScanResult gated_tree(const std::string &head) {
  return scan_of({
      {"pkg/__init__.py", ""},
      {"pkg/ops/__init__.py", "from .warp import Warp\n"},
      {"pkg/ops/warp.py", "import torch\nfrom pkg import _C\n\nclass Warp(torch.nn.Module):\n"
                          "    def forward(self, x):\n        return _C.warp_forward(x)\n"},
      {"pkg/ops/csrc/warp/warp_cuda.cu",
       "__global__ void warp_kernel(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] += 1; }\n",
       FileKind::Cuda},
      {"pkg/ops/csrc/other/pool_cuda.cu",
       "__global__ void pool_kernel(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2; }\n",
       FileKind::Cuda},
      {"pkg/model.py",
       "import torch\nfrom pkg.ops import Warp\n\n"
       "class WarpHead(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
       "        self.warp = Warp()\n\n"
       "def build(cfg):\n" +
           head},
      {"infer.py", "import torch\nfrom pkg.model import build\n\ndef main():\n    build(None)\n" + kMain},
  });
}

ReachStatus status_of(const ScanResult &scan, const std::string &path) {
  Traced traced = trace(scan);
  apply_option_gating(find_option_gated_files(scan.project_files, ModuleIndex(scan.project_files),
                                              traced.reach, bundled_assess_policy().not_the_op),
                      traced.reach);
  return traced.reach.files[file_index(scan, path)].status;
}

} // namespace

TEST_CASE("a compiled op used only behind an option is option-only, with its sources",
          "[assess][option-gating]") {
  const ScanResult gated = gated_tree("    if cfg.use_warp:\n        return WarpHead()\n    return None\n");
  CHECK(status_of(gated, "pkg/ops/warp.py") == ReachStatus::OptionOnly);
  CHECK(status_of(gated, "pkg/ops/csrc/warp/warp_cuda.cu") == ReachStatus::OptionOnly);
  // No op names the other directory: it keeps the directory rule.
  CHECK(status_of(gated, "pkg/ops/csrc/other/pool_cuda.cu") == ReachStatus::Reached);
  CHECK(status_of(gated, "pkg/model.py") == ReachStatus::Reached);

  // Built on the default path, or in the arm that runs when the option is
  // off, it is reached.
  for (const std::string head :
       {"    return WarpHead()\n",
        "    if cfg.plain:\n        return None\n    else:\n        return WarpHead()\n",
        "    if not cfg.plain:\n        return WarpHead()\n"}) {
    const ScanResult reached = gated_tree(head);
    CHECK(status_of(reached, "pkg/ops/warp.py") == ReachStatus::Reached);
    CHECK(status_of(reached, "pkg/ops/csrc/warp/warp_cuda.cu") == ReachStatus::Reached);
  }
}

TEST_CASE("a wrapper nobody visibly uses keeps its status", "[assess][option-gating]") {
  const ScanResult scan = gated_tree("    return None\n");
  CHECK(status_of(scan, "pkg/ops/warp.py") == ReachStatus::Reached);
}

TEST_CASE("option-only kernels do not decide", "[assess][option-gating]") {
  AssessmentInput input;
  const ScanResult gated = gated_tree("    if cfg.use_warp:\n        return WarpHead()\n    return None\n");
  input.scan = &gated;
  const Assessment with_option = assess(input);
  const ScanResult always = gated_tree("    return WarpHead()\n");
  input.scan = &always;
  const Assessment without_option = assess(input);
  const auto decided_by = [](const Assessment &assessment, const std::string &path) {
    const auto &deciding = assessment.decision.deciding;
    return std::any_of(deciding.begin(), deciding.end(),
                       [&](const DecisionFactor &factor) { return factor.path == path; });
  };
  CHECK(decided_by(without_option, "pkg/ops/csrc/warp/warp_cuda.cu"));
  CHECK_FALSE(decided_by(with_option, "pkg/ops/csrc/warp/warp_cuda.cu"));
  CHECK(decided_by(with_option, "pkg/ops/csrc/other/pool_cuda.cu")); // still reached, still deciding
  CHECK(with_option.reachability.at("pkg/ops/csrc/warp/warp_cuda.cu").status == "option-only");
  CHECK_FALSE(with_option.reachability.at("pkg/ops/csrc/warp/warp_cuda.cu").may_decide);
}

namespace {

// A module of the tree that needs Triton at its top level, and a filter that
// imports it through `import_line`, placed inside its function.
ScanResult cuda_module_tree(const std::string &import_line, const std::string &body) {
  ScanResult scan = scan_of({
      {"smooth/__init__.py", ""},
      {"smooth/fast.py", "import torch\nimport triton\n\n\ndef median_cuda(x):\n    return x\n"},
      {"smooth/filters.py", import_line + "\n\ndef median(x):\n" + body},
      {"run.py",
       "import torch\nfrom smooth.filters import median\n\ndef main():\n    median(torch.ones(3))\n" + kMain},
  });
  find_local_cuda_only_imports(scan.project_files); // the project pass that names such imports
  return scan;
}

} // namespace

TEST_CASE(
    "a CUDA-only module of the tree that every main-path importer reaches behind a guard is option-only",
    "[assess][option-gating]") {
  const ScanResult behind_cuda_test = cuda_module_tree(
      "import torch",
      "    if x.is_cuda:\n        from .fast import median_cuda\n        return median_cuda(x)\n"
      "    return x.median()\n");
  CHECK(status_of(behind_cuda_test, "smooth/fast.py") == ReachStatus::OptionOnly);
  const ScanResult behind_fallback =
      cuda_module_tree("try:\n    from .fast import median_cuda\nexcept ImportError:\n    median_cuda = None",
                       "    return median_cuda(x) if median_cuda else x.median()\n");
  CHECK(status_of(behind_fallback, "smooth/fast.py") == ReachStatus::OptionOnly);

  // Near cases: imported at the top of the importer, or behind a fallback
  // whose absence the importer then refuses, it stays on the path.
  const ScanResult at_top = cuda_module_tree("from .fast import median_cuda", "    return median_cuda(x)\n");
  CHECK(status_of(at_top, "smooth/fast.py") == ReachStatus::Reached);
  const ScanResult refused =
      cuda_module_tree("try:\n    from .fast import median_cuda\nexcept ImportError:\n    median_cuda = None",
                       "    if median_cuda is None:\n        raise ImportError('needs the Triton median')\n"
                       "    return median_cuda(x)\n");
  CHECK(status_of(refused, "smooth/fast.py") == ReachStatus::Reached);
}

namespace {

// A filter whose CUDA path imports a package of the tree whose module needs
// Triton at its top level: two imports away from the cause, so no local
// import fact names it, and only the module graph can tell.
ScanResult cuda_package_tree(const std::string &filter_body) {
  return scan_of({
      {"smooth/__init__.py", ""},
      {"smooth/kernels/__init__.py", "from .median import median_cuda\n"},
      {"smooth/kernels/median.py", "import torch\nimport triton\n\n\ndef median_cuda(x):\n    return x\n"},
      {"smooth/filters.py", "import torch\n\n\ndef median(x):\n" + filter_body},
      {"run.py",
       "import torch\nfrom smooth.filters import median\n\ndef main():\n    median(torch.ones(3))\n" + kMain},
  });
}

} // namespace

TEST_CASE("what main entries reach only through a fallback the Mac takes is fallback-only and never decides",
          "[assess][reachability]") {
  const auto assessed = [](const ScanResult &scan) {
    AssessmentInput input;
    input.scan = &scan;
    return assess(input);
  };
  const ScanResult behind_cuda_test =
      cuda_package_tree("    if torch.cuda.is_available():\n        from smooth.kernels import median_cuda\n"
                        "        return median_cuda(x)\n    return x.median()\n");
  const Assessment guarded = assessed(behind_cuda_test);
  CHECK(guarded.reachability.at("smooth/kernels/median.py").status == "fallback-only");
  CHECK_FALSE(guarded.reachability.at("smooth/kernels/median.py").may_decide);
  CHECK(guarded.decision.outcome == Outcome::Adapt);

  const ScanResult behind_fallback =
      cuda_package_tree("    try:\n        from smooth.kernels import median_cuda\n    except ImportError:\n"
                        "        return x.median()\n    return median_cuda(x)\n");
  CHECK(assessed(behind_fallback).reachability.at("smooth/kernels/median.py").status == "fallback-only");

  // Near case: imported on the path every platform takes, it decides.
  const ScanResult unguarded =
      cuda_package_tree("    from smooth.kernels import median_cuda\n    return median_cuda(x)\n");
  const Assessment reached = assessed(unguarded);
  CHECK(reached.reachability.at("smooth/kernels/median.py").status == "reached");
  CHECK(reached.decision.outcome != Outcome::Adapt);
  const auto &deciding = reached.decision.deciding;
  CHECK(std::any_of(deciding.begin(), deciding.end(),
                    [](const DecisionFactor &factor) { return factor.path == "smooth/kernels/median.py"; }));
}
