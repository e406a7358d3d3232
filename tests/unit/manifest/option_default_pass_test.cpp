// The cuda-option-defaults pass (frontend/manifest/option_default_pass.h): a
// True default of an option whose branch needs what a Mac lacks.
#include <catch2/catch.hpp>

#include "frontend/manifest/local_import_pass.h"
#include "frontend/manifest/option_default_pass.h"
#include "manifest_test_util.h"

using namespace mpsaudit;
using mpsaudit::test::fact_summaries;
using mpsaudit::test::python;

namespace {

// "line:name:needs:gate_at" for every cuda-option-default fact of a file.
std::vector<std::string> option_defaults(const ProjectFile &file) {
  return fact_summaries(file, kCudaOptionDefaultFact, {"needs", "gate_at"});
}

std::vector<ProjectFile> run_passes(std::vector<ProjectFile> files) {
  find_local_cuda_only_imports(files);
  find_cuda_option_defaults(files);
  return files;
}

} // namespace

TEST_CASE("a True default of an option whose branch needs a CUDA-only package", "[manifest][pass]") {
  const auto files = run_passes({
      python("pkg/__init__.py", ""),
      python("pkg/norm.py", "import triton\n"),
      python("pkg/model.py", "try:\n"
                             "    from pkg.norm import rms_norm_fn\n"
                             "except ImportError:\n"
                             "    rms_norm_fn = None\n"
                             "class Net:\n"
                             "    def __init__(self, fused_norm=True, flash=False, packed=True):\n"
                             "        self.fused_norm = fused_norm\n"
                             "        if self.fused_norm:\n"
                             "            if rms_norm_fn is None:\n"
                             "                raise ImportError('needs Triton')\n"
                             "        if flash:\n"
                             "            from flash_attn import flash_attn_func\n"
                             "        if packed and flash:\n"
                             "            import triton\n"),
      python("pkg/config.py", "from dataclasses import dataclass\n"
                              "@dataclass\n"
                              "class Config:\n"
                              "    fused_norm: bool = True\n"
                              "    flash: bool = True\n"
                              "    packed: bool = True\n"
                              "    width: int = 64\n"
                              "def build(fused_norm=True):\n"
                              "    pass\n"),
      python("configs/base.py", "cfg.model.flash = True\ncfg.model.fused_norm = False\n"),
  });

  // fused_norm gates the raise after a failed import of a Triton module;
  // flash gates flash_attn. `packed and flash` is no single option, and a
  // default of a plain function (build) is no model switch.
  CHECK(option_defaults(files[2]) == std::vector<std::string>{"6:fused_norm:triton:pkg/model.py:9"});
  CHECK(option_defaults(files[3]) ==
        std::vector<std::string>{"4:fused_norm:triton:pkg/model.py:9", "5:flash:flash_attn:pkg/model.py:12"});
  CHECK(option_defaults(files[4]) ==
        std::vector<std::string>{"1:cfg.model.flash:flash_attn:pkg/model.py:12"});
}

TEST_CASE("the option-default pass keeps gated imports and True configuration defaults", "[manifest][pass]") {
  const ProjectFile file = python("pkg/m.py", "import torch\n"
                                              "if use_triton:\n"
                                              "    import triton\n"
                                              "class C:\n"
                                              "    on: bool = True\n"
                                              "    off: bool = False\n"
                                              "def f(x=True):\n"
                                              "    pass\n");
  std::vector<std::string> kept;
  for (const Fact &fact : file.facts.facts)
    if (option_default_retention(fact) == FactRetention::Keep)
      kept.push_back(fact.kind + ":" + fact.name);
  CHECK(kept == std::vector<std::string>{"import:triton", "parameter-default:on"});
}
