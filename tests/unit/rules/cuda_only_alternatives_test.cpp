// What a Mac user is told to use instead of a CUDA-only library must be a
// real macOS-capable alternative for THAT library: cuML's is scikit-learn,
// not pandas; TensorRT's is Core ML or ONNX Runtime, not Transformer Engine
// modules. The allow-list below is curated by hand from each library's
// purpose; it is not derived from rules/packages.toml or rules/libraries.toml.
#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "../test_support.h"
#include "core/text.h"
#include "frontend/manifest/package_knowledge.h"

using namespace mpsaudit;

namespace {

struct CudaOnlyLibrary {
  std::vector<std::string> names;    // how a replacement text names it
  std::vector<std::string> packages; // packages.toml entry names
  std::vector<std::string> imports;  // top-level modules
  std::vector<std::string> macos;    // macOS-capable alternatives; a replacement names one
};

const std::vector<CudaOnlyLibrary> &cuda_only_libraries() {
  static const std::vector<CudaOnlyLibrary> libraries = {
      {{"Triton"}, {"triton"}, {"triton"}, {"torch.mps.compile_shader", "PyTorch ops", "torch ops"}},
      {{"PyCUDA", "numba"},
       {"pycuda"},
       {"pycuda", "numba.cuda"},
       {"torch ops", "torch.mps.compile_shader", "numba's CPU jit"}},
      {{"CuPy"}, {"cupy", "cupy-cuda*"}, {"cupy", "cupyx"}, {"NumPy", "torch ops"}},
      {{"spconv", "torchsparse", "MinkowskiEngine"},
       {"spconv", "spconv-cu*", "cumm", "cumm-cu*", "torchsparse", "minkowskiengine"},
       {"spconv", "cumm", "torchsparse", "MinkowskiEngine"},
       {"Conv3d", "see spconv"}},
      {{"tiny-cuda-nn"}, {"tinycudann"}, {"tinycudann"}, {"pure-PyTorch hash"}},
      {{"mamba", "causal-conv1d", "SageAttention"},
       {"causal-conv1d", "mamba-ssm", "sageattention"},
       {"mamba_ssm", "causal_conv1d", "sageattention"},
       {"reference PyTorch", "scaled_dot_product_attention", "Conv1d"}},
      {{"DALI"}, {"nvidia-dali-cuda*"}, {"nvidia.dali"}, {"torchvision"}},
      {{"TensorRT", "torch-tensorrt", "ModelOpt"},
       {"tensorrt", "tensorrt-cu*", "torch-tensorrt", "nvidia-modelopt"},
       {"tensorrt", "torch_tensorrt", "modelopt"},
       {"Core ML", "coremltools", "ONNX Runtime", "ExecuTorch"}},
      {{"Transformer Engine"},
       {"transformer-engine"},
       {"transformer_engine"},
       {"torch.nn.Linear", "nn.Linear"}},
      {{"cuDF"}, {"cudf-cu*"}, {"cudf"}, {"pandas", "polars"}},
      {{"cuML"}, {"cuml-cu*"}, {"cuml"}, {"scikit-learn"}},
      {{"cuGraph"}, {}, {"cugraph"}, {"NetworkX"}},
      {{"JAX"}, {"jax-cuda*-plugin", "jax-cuda*-pjrt"}, {}, {"jax-metal", "CPU JAX"}},
      {{"FlashAttention"}, {"flash-attn"}, {"flash_attn"}, {"scaled_dot_product_attention"}},
      {{"xFormers"}, {"xformers"}, {"xformers"}, {"scaled_dot_product_attention"}},
      {{"apex"}, {"apex"}, {"apex"}, {"torch.autocast", "LayerNorm"}},
      {{"faiss-gpu"}, {"faiss-gpu", "faiss-gpu-cu*"}, {}, {"faiss-cpu"}},
      {{"onnxruntime-gpu"},
       {"onnxruntime-gpu"},
       {},
       {"CoreMLExecutionProvider", "CoreML execution provider"}},
      {{"NVML", "gpustat", "GPUtil", "nvitop"},
       {"pynvml", "nvidia-ml-py", "gpustat", "gputil", "nvitop"},
       {"pynvml", "nvidia_smi", "gpustat", "GPUtil", "nvitop"},
       {"psutil", "torch.mps"}},
      {{"CUDA runtime"},
       {"nvidia-*-cu11", "nvidia-*-cu12", "pytorch-cuda", "cudatoolkit", "cuda-toolkit", "cuda-nvcc",
        "cuda-runtime", "cudnn", "nccl"},
       {},
       {"without CUDA packages", "need no CUDA runtime"}},
  };
  return libraries;
}

std::vector<std::string> split_clauses(const std::string &text) {
  std::vector<std::string> clauses;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find(';', begin)) != std::string::npos; begin = end + 1)
    clauses.push_back(text.substr(begin, end - begin));
  clauses.push_back(text.substr(begin));
  return clauses;
}

bool names_one_of(std::string_view text, const std::vector<std::string> &terms) {
  const std::string lower = to_lower(std::string(text));
  return std::any_of(terms.begin(), terms.end(), [&](const std::string &term) {
    return lower.find(to_lower(term)) != std::string::npos;
  });
}

const CudaOnlyLibrary *library_of_package(const std::string &package) {
  for (const CudaOnlyLibrary &library : cuda_only_libraries())
    if (std::find(library.packages.begin(), library.packages.end(), package) != library.packages.end())
      return &library;
  return nullptr;
}

bool rule_matches_import(const Rule &rule, const std::string &module) {
  if (std::find(rule.match.kinds.begin(), rule.match.kinds.end(), "import") == rule.match.kinds.end())
    return false;
  return std::any_of(rule.match.names.begin(), rule.match.names.end(),
                     [&](const std::string &pattern) { return glob_match(pattern, module); });
}

} // namespace

TEST_CASE("every CUDA-only package's alternative names a macOS-capable replacement for it",
          "[rules][packages][alternatives]") {
  std::size_t checked = 0;
  for (const manifest::PackageEntry &entry : manifest::package_knowledge().packages) {
    if (entry.status != "none")
      continue;
    INFO("package " << entry.name << ": \"" << entry.alternative << "\"");
    const CudaOnlyLibrary *library = library_of_package(entry.name);
    REQUIRE(library != nullptr); // a new CUDA-only package: curate its macOS alternatives above
    CHECK(names_one_of(entry.alternative, library->macos));
    ++checked;
  }
  CHECK(checked >= 40);
}

TEST_CASE("a CUDA-only library rule's replacement fits each library it reports", "[rules][alternatives]") {
  const RuleCatalog &catalog = testing::repository_catalog();
  std::size_t checked = 0;
  for (const Rule &rule : catalog.rules()) {
    if (rule.family != "library")
      continue;
    // The curated libraries this rule reports on an import.
    std::vector<const CudaOnlyLibrary *> covered;
    for (const CudaOnlyLibrary &library : cuda_only_libraries())
      if (std::any_of(library.imports.begin(), library.imports.end(),
                      [&](const std::string &module) { return rule_matches_import(rule, module); }))
        covered.push_back(&library);
    // A replacement shared by several libraries says which part is for which
    // ("cuDF → pandas or polars; cuML → scikit-learn").
    const std::vector<std::string> clauses = split_clauses(rule.replacement);
    for (const CudaOnlyLibrary *library : covered) {
      INFO(rule.id << " reports " << library->names.front() << "; replacement: \"" << rule.replacement
                   << "\"");
      const bool fits = std::any_of(clauses.begin(), clauses.end(), [&](const std::string &clause) {
        return names_one_of(clause, library->macos) &&
               (covered.size() == 1 || names_one_of(clause, library->names));
      });
      CHECK(fits);
      ++checked;
    }
  }
  CHECK(checked >= 15);
}

TEST_CASE("the curated list itself rejects the wrong replacements it was written against",
          "[rules][alternatives]") {
  const CudaOnlyLibrary *cuml = library_of_package("cuml-cu*");
  const CudaOnlyLibrary *tensorrt = library_of_package("tensorrt");
  REQUIRE(cuml);
  REQUIRE(tensorrt);
  CHECK_FALSE(names_one_of("pandas or polars", cuml->macos));
  CHECK_FALSE(names_one_of("nn.Linear/LayerNorm in place of Transformer Engine modules", tensorrt->macos));
}
