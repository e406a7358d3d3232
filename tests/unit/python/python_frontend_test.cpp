// The Python front end's facts: alias resolution, guards, forward detection.
#include <algorithm>
#include <tuple>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "frontend/python/python_frontend.h"

using namespace mpsaudit;

namespace {

std::vector<const Fact *> facts_of(const FileFacts &facts, std::string_view kind) {
  std::vector<const Fact *> out;
  for (const auto &fact : facts.facts)
    if (fact.kind == kind)
      out.push_back(&fact);
  return out;
}

const Fact *find_fact(const FileFacts &facts, std::string_view kind, std::string_view name) {
  for (const auto &fact : facts.facts)
    if (fact.kind == kind && fact.name == name)
      return &fact;
  return nullptr;
}

// The name and the value of `attribute` of every fact of `kind`, in order.
using NamesAndValues = std::vector<std::pair<std::string, std::string>>;
NamesAndValues names_and_values(const FileFacts &facts, std::string_view kind, std::string_view attribute) {
  NamesAndValues out;
  for (const Fact *fact : facts_of(facts, kind))
    out.emplace_back(fact->name, *fact->attribute(attribute));
  return out;
}

} // namespace

TEST_CASE("import aliases resolve to canonical names", "[python][aliases]") {
  const FileFacts facts = extract_python_source(R"(import torch as th
import torch.nn.functional as F
from torch import cuda
from torch.cuda import amp as A
from torch.cuda.amp import autocast
import numpy as np
th.cuda.synchronize()
F.interpolate(x)
cuda.empty_cache()
A.GradScaler()
autocast()
y = np.float64
)",
                                                "a.py");
  CHECK(find_fact(facts, "call", "torch.cuda.synchronize"));
  CHECK(find_fact(facts, "call", "torch.nn.functional.interpolate"));
  CHECK(find_fact(facts, "call", "torch.cuda.empty_cache"));
  CHECK(find_fact(facts, "call", "torch.cuda.amp.GradScaler"));
  CHECK(find_fact(facts, "call", "torch.cuda.amp.autocast"));
  CHECK(find_fact(facts, "attribute", "numpy.float64"));
  CHECK(find_fact(facts, "import", "torch.cuda.amp"));
  // `import torch.nn.functional as F` records the module; the name it binds
  // resolves the calls (F.interpolate above) and is not kept on the fact.
  const Fact *functional = find_fact(facts, "import", "torch.nn.functional");
  REQUIRE(functional);
  CHECK(functional->attributes.empty());
}

TEST_CASE("a plain assignment of a module is an alias", "[python][aliases]") {
  const FileFacts facts = extract_python_source("import torch\nc = torch.cuda\nc.synchronize()\n", "a.py");
  CHECK(find_fact(facts, "call", "torch.cuda.synchronize"));
}

TEST_CASE("unresolved receivers are method calls, not module functions", "[python][aliases]") {
  const FileFacts facts =
      extract_python_source("import torch\nmodel.cuda()\ntorch.zeros(3).cuda()\n", "a.py");
  const Fact *named = find_fact(facts, "call", "model.cuda");
  REQUIRE(named);
  CHECK(*named->attribute("method") == "true");
  const Fact *chained = find_fact(facts, "call", "?.cuda");
  REQUIRE(chained);
  CHECK(*chained->attribute("method") == "true");
  const Fact *zeros = find_fact(facts, "call", "torch.zeros");
  REQUIRE(zeros);
  CHECK(zeros->attribute("method") == nullptr);
}

TEST_CASE("keyword arguments and string values are recorded", "[python][arguments]") {
  const FileFacts facts = extract_python_source(
      "import torch\nimport numpy as np\nt = torch.tensor(v, dtype=np.float64, device=\"cuda:1\")\n", "a.py");
  const Fact *call = find_fact(facts, "call", "torch.tensor");
  REQUIRE(call);
  const Argument *dtype = call->keyword_argument("dtype");
  REQUIRE(dtype);
  CHECK(dtype->canonical == "numpy.float64");
  const Argument *device = call->keyword_argument("device");
  REQUIRE(device);
  CHECK(device->is_string);
  CHECK(device->value == "cuda:1");
  REQUIRE(call->positional_argument(0));
  CHECK(call->positional_argument(0)->text == "v");
}

TEST_CASE("device strings carry their context", "[python][devices]") {
  const FileFacts facts = extract_python_source(R"(x.to("cuda")
dev = f"cuda:{rank}"
if args.device == "cuda":
    pass
print("cuda")
def f(device="cuda:0"):
    pass
)",
                                                "a.py");
  CHECK(names_and_values(facts, "device-string", "context") == NamesAndValues{{"cuda", "argument"},
                                                                              {"cuda:{rank}", "assignment"},
                                                                              {"cuda", "comparison"},
                                                                              {"cuda", "other"},
                                                                              {"cuda:0", "default"}});
  const Fact *fstring = find_fact(facts, "device-string", "cuda:{rank}");
  REQUIRE(fstring);
  CHECK(*fstring->attribute("fstring") == "true");
}

TEST_CASE("guards: ImportError fallbacks, CUDA branches, early exits", "[python][guards]") {
  const FileFacts facts = extract_python_source(R"(import torch
try:
    import flash_attn
except ImportError:
    flash_attn = None
try:
    import xformers
except (ImportError, OSError):
    pass
try:
    import apex
except KeyError:
    pass
import triton
if torch.cuda.is_available():
    torch.cuda.synchronize()
else:
    torch.cuda.empty_cache()
if not torch.cuda.is_available():
    torch.cuda.manual_seed(0)
else:
    torch.cuda.seed()
def f():
    if not torch.cuda.is_available():
        return
    torch.cuda.memory_allocated()
torch.cuda.ipc_collect()
)",
                                                "a.py");
  CHECK(find_fact(facts, "import", "flash_attn")->guard == Guard::ImportFallback);
  CHECK(find_fact(facts, "import", "xformers")->guard == Guard::ImportFallback);
  CHECK(find_fact(facts, "import", "apex")->guard == Guard::None); // KeyError does not catch a missing module
  CHECK(find_fact(facts, "import", "triton")->guard == Guard::None);
  CHECK(find_fact(facts, "call", "torch.cuda.synchronize")->guard == Guard::CudaCheck);
  CHECK(find_fact(facts, "call", "torch.cuda.empty_cache")->guard == Guard::None);
  CHECK(find_fact(facts, "call", "torch.cuda.manual_seed")->guard == Guard::None);
  CHECK(find_fact(facts, "call", "torch.cuda.seed")->guard == Guard::CudaCheck);
  CHECK(find_fact(facts, "call", "torch.cuda.memory_allocated")->guard == Guard::CudaCheck);
  CHECK(find_fact(facts, "call", "torch.cuda.ipc_collect")->guard == Guard::None);
}

TEST_CASE("an except clause that raises, exits or imports again is no fallback", "[python][guards]") {
  const FileFacts facts = extract_python_source(R"(import sys
try:
    import flash_attn
except ImportError as error:
    raise ImportError("install flash-attn") from error
try:
    import triton
except ImportError:
    print("needs triton")
    sys.exit(1)
try:
    import tensorrt
except Exception:
    if sys.platform == "linux":
        install("tensorrt")
    import tensorrt
try:
    from apex.optimizers import FusedAdam as Adam
except ImportError:
    from torch.optim import AdamW as Adam
)",
                                                "a.py");
  CHECK(find_fact(facts, "import", "flash_attn")->guard == Guard::None);
  CHECK(find_fact(facts, "import", "triton")->guard == Guard::None);
  for (const Fact *fact : facts_of(facts, "import"))
    if (fact->name == "tensorrt")
      CHECK(fact->guard == Guard::None);
  CHECK(find_fact(facts, "import", "apex.optimizers.FusedAdam")->guard == Guard::ImportFallback);
}

TEST_CASE("imports on option branches and in option-only functions are optional paths", "[python][guards]") {
  const FileFacts facts = extract_python_source(R"(import torch
class Backend:
    def __init__(self, kind):
        if kind == "pt":
            import onnx
        elif kind == "engine":
            import tensorrt
def export_engine(model):
    import pycuda
def export_default(model):
    import cupy
def run(formats):
    export_default(None)
    if "engine" in formats:
        export_engine(None)
if torch.cuda.is_available():
    import apex
if __name__ == "__main__":
    import flash_attn
    run([])
)",
                                                "a.py");
  const Fact *tensorrt = find_fact(facts, "import", "tensorrt");
  CHECK(tensorrt->guard == Guard::OptionalPath);
  CHECK(*tensorrt->attribute("option") == "kind == \"engine\"");
  CHECK(find_fact(facts, "import", "pycuda")->guard == Guard::OptionalPath);
  CHECK(find_fact(facts, "import", "cupy")->guard == Guard::None);       // called on the default path too
  CHECK(find_fact(facts, "import", "apex")->guard == Guard::CudaCheck);  // a CUDA test is no option
  CHECK(find_fact(facts, "import", "flash_attn")->guard == Guard::None); // the script's own entry
}

TEST_CASE("classes used only behind options make their imports optional uses", "[python][guards]") {
  const FileFacts facts = extract_python_source(R"(import torch
from pkg.ops import WarpConv, Conv
from pkg.fast import fused_norm
from .layers import Head

class WarpBlock(torch.nn.Module):
    def __init__(self):
        super(WarpBlock, self).__init__()
        self.conv = WarpConv()
        import pycuda

class Plain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv()
        self.head = Head()

def norm(x):
    return fused_norm(x)

def build(cfg):
    if cfg.use_warp:
        block = WarpBlock
    else:
        block = Plain
    return block(), norm(torch.zeros(1))
)",
                                                "a.py");
  const auto use_of = [&](const std::string &name) -> std::string {
    const Fact *fact = find_fact(facts, "import", name);
    REQUIRE(fact);
    const std::string *use = fact->attribute("use");
    return use ? *use : "default";
  };
  CHECK(use_of("pkg.ops.WarpConv") == "optional"); // only inside WarpBlock, chosen by an option
  CHECK(use_of("pkg.ops.Conv") == "default");      // the else branch is no option the Mac can skip
  CHECK(use_of("pkg.fast.fused_norm") == "default");
  CHECK(find_fact(facts, "import", "pycuda")->guard == Guard::OptionalPath);
  CHECK(find_fact(facts, "import", "torch")->attribute("use") == nullptr);
}

TEST_CASE("a JIT build behind a fallback makes its sources optional builds", "[python][guards]") {
  const FileFacts facts = extract_python_source(R"(import os
from torch.utils.cpp_extension import load
here = os.path.dirname(__file__)
try:
    fused = load(name="fused", sources=[os.path.join(here, "csrc", "fused.cpp"), "csrc/fused_kernel.cu"])
except Exception:
    fused = None
always = load("always", ["always_kernel.cu"])
)",
                                                "pkg/ops.py");
  CHECK(
      names_and_values(facts, "build-source", "optional") ==
      NamesAndValues{{"fused.cpp", "true"}, {"csrc/fused_kernel.cu", "true"}, {"always_kernel.cu", "false"}});
}

TEST_CASE("a call of the tree's own JIT build wrapper with CUDA sources builds them", "[python][guards]") {
  const FileFacts facts = extract_python_source(R"(import os
from . import builder
def _load():
    sources = ["act.cpp", "act.cu"]
    sources = [os.path.join(os.path.dirname(__file__), s) for s in sources]
    try:
        return builder.get_plugin("act", sources=sources, extra_cuda_cflags=["-O3"])
    except:
        return None
def _always():
    return builder.get_plugin("norm", sources=["norm.cu"])
def _not_a_build():
    sources = ["notes.cpp", "helper.cpp"]
    pack(sources=sources)
    names = ["a.cu"]
    names = compute()
    builder.get_plugin("other", sources=names)
)",
                                                "pkg/act.py");
  std::vector<std::tuple<std::string, std::string, bool>> sources;
  for (const Fact *fact : facts_of(facts, "build-source"))
    sources.emplace_back(fact->name, *fact->attribute("optional"),
                         fact->attribute("runs_without") != nullptr);
  // Behind the bare except the program goes on without the build; outside
  // any guard it does not. Sources with no CUDA file, and a list forgotten
  // by a reassignment, build nothing CUDA.
  CHECK(sources == std::vector<std::tuple<std::string, std::string, bool>>{
                       {"act.cpp", "true", true}, {"act.cu", "true", true}, {"norm.cu", "false", false}});
}

TEST_CASE("device selection records whether an MPS branch exists", "[python][guards]") {
  const auto selection = [](const std::string &code) -> std::string {
    const FileFacts facts = extract_python_source(code, "a.py");
    const auto found = facts_of(facts, "device-selection");
    if (found.empty())
      return "none";
    return *found.front()->attribute("has_mps");
  };
  CHECK(selection("import torch\nd = 'cuda' if torch.cuda.is_available() else 'cpu'\n") == "false");
  CHECK(selection("import torch\nd = 'cuda' if torch.cuda.is_available() else 'mps' if "
                  "torch.backends.mps.is_available() else 'cpu'\n") == "true");
  CHECK(selection("import torch\nif torch.cuda.is_available():\n    d = torch.device('cuda')\nelif "
                  "torch.backends.mps.is_available():\n    d = torch.device('mps')\n") == "true");
  // A CUDA test that selects no device is not a device selection.
  CHECK(selection("import torch\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\n") == "none");
}

TEST_CASE("forward of nn.Module subclasses, directly or through a local base", "[python][forward]") {
  const FileFacts facts = extract_python_source(R"(import torch
from torch import nn as tnn
class Base(tnn.Module):
    pass
class Net(Base):
    def forward(self, x):
        a = torch.zeros(3)
        def inner():
            return torch.ones(2)
        return a
    def helper(self):
        return torch.empty(1)
class NotAModule:
    def forward(self, x):
        return torch.eye(2)
)",
                                                "a.py");
  CHECK(find_fact(facts, "call", "torch.zeros")->in_forward);
  CHECK(find_fact(facts, "call", "torch.zeros")->scope == "Net.forward");
  CHECK(find_fact(facts, "call", "torch.ones")->in_forward);
  CHECK_FALSE(find_fact(facts, "call", "torch.empty")->in_forward);
  CHECK_FALSE(find_fact(facts, "call", "torch.eye")->in_forward);
  const Fact *net = find_fact(facts, "class-def", "Net");
  REQUIRE(net);
  CHECK(*net->attribute("nn_module") == "true");
}

TEST_CASE("syntax errors keep the facts of the rest of the file", "[python][robustness]") {
  const FileFacts facts =
      extract_python_source("import torch\ndef broken(:\n    pass\ntorch.cuda.synchronize()\n", "a.py");
  CHECK(find_fact(facts, "call", "torch.cuda.synchronize"));
  REQUIRE_FALSE(facts.diagnostics.empty());
  CHECK(facts.diagnostics.front().code == "syntax-error");
  CHECK(facts.diagnostics.front().line == 2);
}

TEST_CASE("deep nesting is bounded and reported", "[python][robustness]") {
  std::string code = "import torch\nx = " + std::string(10000, '(') + "1" + std::string(10000, ')') +
                     "\ntorch.cuda.synchronize()\n";
  const FileFacts facts = extract_python_source(code, "deep.py");
  CHECK(find_fact(facts, "call", "torch.cuda.synchronize"));
  const bool reported = std::any_of(facts.diagnostics.begin(), facts.diagnostics.end(),
                                    [](const Diagnostic &d) { return d.code == "nesting-limit"; });
  CHECK(reported);
}

// Each of these crashed a release build (stack overflow) before the walk
// used loops for attribute chains and syntax-error search, and kept counting
// depth through `f(x).attr` receivers.
TEST_CASE("long attribute chains and receiver nesting do not exhaust the stack", "[python][robustness]") {
  const auto repeat = [](std::string_view piece, int times) {
    std::string out;
    out.reserve(piece.size() * static_cast<std::size_t>(times));
    for (int i = 0; i < times; ++i)
      out += piece;
    return out;
  };
  const std::string canary = "\ntorch.cuda.synchronize()\n";
  const std::string chain = repeat(".y", 200000);
  SECTION("a chain read as a value") {
    const FileFacts facts = extract_python_source("import torch\nx = torch" + chain + canary, "chain.py");
    CHECK(find_fact(facts, "call", "torch.cuda.synchronize"));
  }
  SECTION("a chain as the callee") {
    const FileFacts facts =
        extract_python_source("import torch\nx = torch" + chain + "()" + canary, "chain.py");
    CHECK(find_fact(facts, "call", "torch.cuda.synchronize"));
  }
  SECTION("a chain whose receiver is a call") {
    const FileFacts facts =
        extract_python_source("import torch\nx = f()" + chain + "()" + canary, "chain.py");
    CHECK(find_fact(facts, "call", "torch.cuda.synchronize"));
  }
  SECTION("f(f(f(x).a).a).a ... is bounded by the nesting limit") {
    const FileFacts facts = extract_python_source(
        "import torch\nx = " + repeat("f(", 100000) + "x" + repeat(").a", 100000) + canary, "receivers.py");
    CHECK(find_fact(facts, "call", "torch.cuda.synchronize"));
    CHECK(std::any_of(facts.diagnostics.begin(), facts.diagnostics.end(),
                      [](const Diagnostic &d) { return d.code == "nesting-limit"; }));
  }
  SECTION("a syntax error below 100,000 brackets") {
    const FileFacts facts = extract_python_source(
        "import torch\nx = " + repeat("(", 100000) + "1 +" + repeat(")", 100000) + canary, "error.py");
    REQUIRE_FALSE(facts.diagnostics.empty());
    CHECK(std::any_of(facts.diagnostics.begin(), facts.diagnostics.end(),
                      [](const Diagnostic &d) { return d.code == "syntax-error" && d.line == 2; }));
  }
}

TEST_CASE("notebook positions map to cell, cell line and file line", "[python][notebook]") {
  const std::string notebook = R"({
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n"]},
  {
   "cell_type": "code",
   "metadata": {},
   "outputs": [],
   "source": [
    "import torch\n",
    "!nvidia-smi\n",
    "x = torch.ones(2).cuda()\n"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
})";
  const FileFacts facts = extract_notebook_source(notebook, "n.ipynb");
  const Fact *cuda = find_fact(facts, "call", "?.cuda");
  REQUIRE(cuda);
  CHECK(cuda->cell == 1); // the second cell of the notebook
  CHECK(cuda->cell_line == 3);
  CHECK(cuda->span.line == 11); // the JSON line holding that source line
  CHECK(*cuda->attribute("snippet") == "x = torch.ones(2).cuda()");
  const Fact *shell = find_fact(facts, "shell", "nvidia-smi");
  REQUIRE(shell);
  CHECK(shell->cell_line == 2);
  CHECK(shell->span.line == 10);
  CHECK(*shell->attribute("magic") == "!");
}

TEST_CASE("broken notebooks give a diagnostic with a line, not a crash", "[python][notebook][robustness]") {
  const FileFacts broken =
      extract_notebook_source("{\n \"cells\": [\n  {\"cell_type\": \"code\",\n", "b.ipynb");
  REQUIRE(broken.diagnostics.size() == 1);
  CHECK(broken.diagnostics.front().code == "invalid-json");
  CHECK(broken.diagnostics.front().line >= 3);
  const FileFacts odd = extract_notebook_source(
      R"({"cells": [{"cell_type": 3, "source": 7}, {"cell_type": "code", "source": 5}]})", "o.ipynb");
  CHECK(odd.facts.empty());
  const FileFacts not_notebook = extract_notebook_source("[1, 2]", "x.ipynb");
  REQUIRE(not_notebook.diagnostics.size() == 1);
  CHECK(not_notebook.diagnostics.front().code == "invalid-notebook");
}

TEST_CASE("a notebook holding a number out of range is a diagnostic", "[python][notebook][robustness]") {
  // Found by tests/fuzz/fuzz_notebook: nlohmann throws out_of_range, not
  // parse_error, for "9e406".
  const FileFacts facts = extract_notebook_source("9e406", "n.ipynb");
  REQUIRE(facts.diagnostics.size() == 1);
  CHECK(facts.diagnostics.front().code == "invalid-json");
  CHECK(facts.mode == "error");
}

// Finding 16 of the security review: a cell whose "source" is neither a
// string nor a list of strings was skipped without a word.
TEST_CASE("a cell source that is not a string or a list is an error naming the cell",
          "[python][notebook][robustness][security]") {
  const FileFacts facts = extract_notebook_source(
      R"({"cells": [
 {"cell_type": "markdown", "source": "# Title\n"},
 {"cell_type": "code", "source": {"text": "import torch\ntorch.cuda.synchronize()\n"}},
 {"cell_type": "code", "source": ["import torch\n", 7, "torch.cuda.synchronize()\n"]},
 {"cell_type": "code", "source": null}
]})",
      "bad.ipynb");
  REQUIRE(facts.diagnostics.size() == 3);
  for (const Diagnostic &diagnostic : facts.diagnostics) {
    CHECK(diagnostic.level == DiagnosticLevel::Error); // exit code 3: part of the notebook was not read
    CHECK(diagnostic.code == "invalid-notebook");
    CHECK(diagnostic.path == "bad.ipynb");
  }
  CHECK(facts.diagnostics[0].message ==
        "cell 2: \"source\" is an object, not a string or a list of strings; the cell was not scanned");
  CHECK(facts.diagnostics[1].message ==
        "cell 3: element 2 of \"source\" is a number, not a string; only the string elements were scanned");
  CHECK(facts.diagnostics[2].message.rfind("cell 4: \"source\" is null,", 0) == 0);
  // The string elements of cell 3 are still scanned.
  CHECK(std::any_of(facts.facts.begin(), facts.facts.end(), [](const Fact &fact) { return fact.cell == 2; }));
}

TEST_CASE("a device chosen by a CUDA test is not a CUDA flag", "[python][cuda-requirement]") {
  // `assert` on a tensor placed by a CUDA-first selection, or on a model
  // moved to such a device, requires nothing; asserting a flag does.
  const FileFacts facts =
      extract_python_source("import torch\n"
                            "use_cuda = torch.cuda.is_available() and not args.cpu\n"
                            "assert use_cuda\n"
                            "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                            "x = torch.empty(3, device=device)\n"
                            "net = Net().to(device)\n"
                            "assert torch.allclose(x, x)\n"
                            "assert opt.net != ''\n",
                            "a.py");
  const auto requirements = facts_of(facts, "cuda-requirement");
  REQUIRE(requirements.size() == 1);
  CHECK(requirements.front()->span.line == 3);
}

TEST_CASE("a test against the CPU is recorded where it stands for CUDA or picks the precision",
          "[python][cpu-device-test]") {
  const FileFacts facts = extract_python_source(R"(import torch

def load(model, device):
    if str(device) == "cpu":
        model.float()
    elif "cpu" != device.type:
        model.half()

def check_amp(model, device):
    if device.type == "cpu":
        return False

def step(device, opt):
    cuda = device.type != "cpu"
    opt.half &= (device.type != "cpu")
    with torch.autocast(device.type, enabled=not device.type == "cpu"):
        pass
    pin = device.type != "cpu"
    use = torch.cuda.is_available() and device.type != "cpu"
    same = device.type is "cpu"
    other = backend != "cpu"
    if device.type == "cpu":
        print("cpu")
    if device.type == "cpu":
        samples = clamp(examples)
)",
                                                "t.py");
  std::vector<std::string> found;
  for (const Fact *fact : facts_of(facts, "cpu-device-test"))
    found.push_back(std::to_string(fact->span.line) + " " + fact->name + " " + *fact->attribute("operator") +
                    " " + *fact->attribute("means"));
  CHECK(found == std::vector<std::string>{"4 str(device) == precision", "6 device.type != precision",
                                          "10 device.type == precision", "14 device.type != cuda",
                                          "15 device.type != precision", "16 device.type == precision"});
}

TEST_CASE("numpy float64 arrays are followed to the device within their function and class",
          "[python][numpy-float64]") {
  const FileFacts facts = extract_python_source(R"(import numpy as np
import torch

def a(device):
    x = np.linspace(0, 1, 5)
    return torch.tensor(x, device=device)

def b(device):
    return torch.tensor(x, device=device)

class P:
    def __init__(self):
        self.w = np.random.randn(3)

    def go(self, device):
        return torch.as_tensor(self.w, device=device)

class Q:
    def go(self, device):
        return torch.as_tensor(self.w, device=device)

def c(device):
    y = np.mean(np.ones(3))
    y = y.astype(np.float32)
    z = np.random.rand(2)
    return torch.tensor(y, device=device), torch.from_numpy(z).cuda(), torch.tensor(z, device=None)
)",
                                                "t.py");
  const auto found = facts_of(facts, "numpy-float64-to-device");
  // a's x (not b's unbound x), P's self.w (not Q's), c's z through .cuda().
  REQUIRE(found.size() == 3);
  CHECK(found[0]->span.line == 6);
  CHECK(*found[0]->attribute("origin") == "numpy.linspace");
  CHECK(*found[0]->attribute("origin_line") == "5");
  CHECK(found[1]->span.line == 16);
  CHECK(*found[1]->attribute("origin") == "numpy.random.randn");
  CHECK(found[2]->name == "torch.from_numpy(...).cuda");
  CHECK(*found[2]->attribute("origin_line") == "25");
}

TEST_CASE("a device helper whose MPS branch needs \"mps\" by name is marked", "[python][device-selection]") {
  const FileFacts facts = extract_python_source(R"(import torch

def by_name(device=""):
    mps = device == "mps"
    if not mps and torch.cuda.is_available():
        return "cuda"
    elif mps or torch.backends.mps.is_available():
        return "mps"
    return "cpu"

def also_by_name(device=""):
    if torch.cuda.is_available():
        return "cuda"
    elif device == "mps" and torch.backends.mps.is_available():
        return "mps"
    return "cpu"
)",
                                                "t.py");
  const auto selections = facts_of(facts, fact_kind::DeviceSelection);
  REQUIRE(selections.size() == 2);
  // `mps or ...` reaches MPS without the name: not marked.
  CHECK(selections[0]->attribute("mps_by_name") == nullptr);
  REQUIRE(selections[1]->attribute("mps_by_name") != nullptr);
  CHECK(*selections[1]->attribute("mps_by_name") == "true");
}

TEST_CASE("a GradScaler made only for CUDA is held until a device-following fp16 autocast is seen",
          "[python][amp]") {
  const char *scaler_only = R"(import torch
def f(device):
    if device.type == "cuda":
        s = torch.amp.GradScaler("cuda")
)";
  CHECK(facts_of(extract_python_source(scaler_only, "t.py"), "cuda-only-grad-scaler").empty());
  const std::string with_autocast = std::string(scaler_only) + R"(
def g(device):
    with torch.autocast(device.type):
        pass
)";
  const FileFacts facts = extract_python_source(with_autocast, "t.py");
  const auto found = facts_of(facts, "cuda-only-grad-scaler");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->span.line == 4);
  CHECK(*found[0]->attribute("autocast_line") == "7");
}

TEST_CASE("an except clause that imports another module of the same package is a fallback",
          "[python][guards]") {
  const FileFacts facts = extract_python_source(R"(def load():
    try:
        from seqedit import edit_cuda
        return edit_cuda
    except ImportError:
        from seqedit import edit_cpu
        return edit_cpu
def load_again():
    try:
        from kernels import fused_cuda
    except ImportError:
        build()
        from kernels import fused_cuda
    return fused_cuda
)",
                                                "a.py");
  CHECK(find_fact(facts, "import", "seqedit.edit_cuda")->guard == Guard::ImportFallback);
  for (const Fact *fact : facts_of(facts, "import"))
    if (fact->name == "kernels.fused_cuda")
      CHECK(fact->guard == Guard::None); // the same module again: a retry
}
