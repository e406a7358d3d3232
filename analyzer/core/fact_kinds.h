// Every fact kind, in one list. Front ends and project passes emit facts of
// these kinds, readers (passes, the assessment) test them, and rules name
// them in [rule.match] `kind`; a rules file naming a kind not listed here
// does not load (rules/rule.cpp). A new kind is one constant here plus its
// row in kAllFactKinds. The kinds every front end shares (import, call,
// dependency, ...) are declared in core/fact.h, which every file includes.
#pragma once

#include <array>
#include <string_view>

#include "core/fact.h"

namespace mpsaudit {

namespace fact_kind {

// Python and notebooks (frontend/python), besides core/fact.h's import,
// call, attribute, assignment, device-string and device-selection.
inline constexpr std::string_view ClassDef = "class-def";       // name: the class; scope: itself
inline constexpr std::string_view FunctionDef = "function-def"; // name: the function
inline constexpr std::string_view MainGuard = "main-guard";     // name: "__main__" at `if __name__ == ...`
// name: the module an `import` inside a CUDA-requiring branch needs.
inline constexpr std::string_view RequiredImport = "required-import";
// An explicit CUDA requirement (assert, raise or exit without CUDA); attribute form.
inline constexpr std::string_view CudaRequirement = "cuda-requirement";
// name: the `raise` in the else-branch of a test that a tensor is on CUDA
// (`if x.is_cuda:` / `if x.device.type == "cuda":`); attribute test.
inline constexpr std::string_view TensorDeviceRaise = "tensor-device-raise";
inline constexpr std::string_view NumpyFloat64ToDevice = "numpy-float64-to-device"; // name: the sink
// A call of a module-level helper that picks a device (read by the
// mps-by-name-callers pass).
inline constexpr std::string_view DeviceHelperCall = "device-helper-call";
// A literal setting a user would change: a module-level config entry, or a
// parameter default (`mixed_precision="fp16"`; a class's annotated field,
// `fused: bool = True`, is one too, with the attribute class_field).
inline constexpr std::string_view ConfigValue = "config-value";
inline constexpr std::string_view ParameterDefault = "parameter-default";
inline constexpr std::string_view CudaOnlyGradScaler = "cuda-only-grad-scaler";
// name: the device expression compared with "cpu"; attributes operator (==
// or !=), means: "cuda" (the result is kept as a CUDA flag) or "precision"
// (it picks precision or mixed precision), and decides (the same in words).
inline constexpr std::string_view CpuDeviceTest = "cpu-device-test";

// C++ and CUDA (frontend/cxx, documented in docs/cxx-frontend.md).
inline constexpr std::string_view Include = "include";
inline constexpr std::string_view CudaKernel = "cuda-kernel";
inline constexpr std::string_view DeviceFunction = "device-function";
inline constexpr std::string_view KernelLaunch = "kernel-launch";
inline constexpr std::string_view CudaApi = "cuda-api";
inline constexpr std::string_view CudaLibrary = "cuda-library";
inline constexpr std::string_view InlinePtx = "inline-ptx";
inline constexpr std::string_view WarpIntrinsic = "warp-intrinsic";
inline constexpr std::string_view Atomic = "atomic";
inline constexpr std::string_view TensorCore = "tensor-core";
inline constexpr std::string_view CooperativeGroups = "cooperative-groups";
inline constexpr std::string_view Texture = "texture";
inline constexpr std::string_view AtenCuda = "aten-cuda";
inline constexpr std::string_view OpRegistration = "op-registration";
inline constexpr std::string_view MetalPort = "metal-port";
// A host function that sends CUDA tensors (or a CUDA build) one way and the
// rest another (device_dispatch.h).
inline constexpr std::string_view DeviceDispatch = "device-dispatch";
// A function definition with the functions it calls, in files that show
// CUDA: what the cpu-fallback pass follows from a dispatch to the kernels.
inline constexpr std::string_view CxxFunction = "cxx-function";

// Manifests, build files, shell and job scripts (frontend/manifest, see
// docs/dependencies.md), besides core/fact.h's shell and dependency.
// name: the index URL; attributes option (index-url, extra-index-url,
// find-links, poetry-source, uv-index), cuda_tag (cu118, cuda, nvidia) when the
// index serves CUDA builds.
inline constexpr std::string_view PackageIndex = "package-index";
// name: the conda channel (nvidia, pytorch, conda-forge).
inline constexpr std::string_view CondaChannel = "conda-channel";
// name: the CMake command in lower case; arguments: its arguments;
// attributes arg0, args (all, space-joined), and per command: package and
// required (find_package), languages (project, enable_language), variable
// (set, list, string), cuda_sources (.cu files), cuda_targets (CUDA::x).
inline constexpr std::string_view Build = "build";
// name: CUDAExtension or CppExtension (setup.py); attributes ext_name,
// sources, cuda_sources, cpu_fallback.
inline constexpr std::string_view CxxExtension = "cxx-extension";
// name: a C/C++/CUDA source path or glob (op_cuda.cu, *.cu) that setup.py
// or CMakeLists.txt builds; attributes build (setup.py, cmake), glob, and
// optional: "true" when the source is only built when CUDA is there (a
// CUDA_HOME / torch.cuda.is_available() / FORCE_CUDA / if(CUDA_FOUND) test)
// and the build goes on without it (a CppExtension otherwise, CUDA not
// required by the CMake project). Read by the C++ front end's cpu-fallback
// pass.
inline constexpr std::string_view BuildSource = "build-source";
// What setup.py runs at module level that needs the CUDA toolkit: nvcc
// through subprocess (directly or in a function of the file) or CUDA_HOME
// built into a path. name: the expression; attributes form (nvcc,
// cuda-home), detail (for the message).
inline constexpr std::string_view CudaProbe = "cuda-probe";
// name: the image reference of a Dockerfile FROM; attributes repository, tag.
inline constexpr std::string_view ContainerImage = "container-image";
// name: the variable; attributes value, how (env, arg, export, prefix).
inline constexpr std::string_view EnvVar = "env-var";
// name: "sbatch"; attributes option, value, gpus (the GPU request, if any).
inline constexpr std::string_view JobDirective = "job-directive";
// name: the object reference of a declared script, "pkg.mod:func"; attribute
// script: the command name ([project.scripts], console_scripts). Read by the
// assessment's entry-point discovery (assess/entry_points.h).
inline constexpr std::string_view EntryPoint = "entry-point";
// name: a git submodule's path (.gitmodules).
inline constexpr std::string_view Submodule = "submodule";

// Checkpoints (frontend/checkpoint) and prose (frontend/prose).
inline constexpr std::string_view Checkpoint = "checkpoint";
inline constexpr std::string_view CheckpointTensor = "checkpoint-tensor";
inline constexpr std::string_view ModelConfig = "model-config";
inline constexpr std::string_view DocRequirement = "doc-requirement";
// name: a YAML config's key path ("trainer.device", "distributed.backend");
// attribute value: its scalar value, as written. One per scalar setting of a
// model-config file, at the value's place.
inline constexpr std::string_view ConfigSetting = "config-setting";

// Added by project passes (frontend/registry.cpp).
// name: the distribution declared but never imported by any Python file.
inline constexpr std::string_view UnusedDependency = "unused-dependency";
// name: the imported top-level module; attribute distribution: the
// distribution that provides it, which no manifest of the project declares.
inline constexpr std::string_view UndeclaredImport = "undeclared-import";
inline constexpr std::string_view CudaExtensionImport = "cuda-extension-import";
// name: a call of an op of an extension the repository builds (`pkg._C.op`);
// attributes extension, built_at, build ("cuda-only": a Mac never has it;
// "cpu-too": a Mac has only its CPU build).
inline constexpr std::string_view ExtensionOpCall = "extension-op-call";
// name: a module of the tree, as imported, whose top level needs what a Mac
// cannot have; attributes value (that package or extension), needed_at,
// why_missing.
inline constexpr std::string_view LocalCudaOnlyImport = "local-cuda-only-import";
// name: a configuration default (`fused: bool = True`) whose option turns on
// code that needs what a Mac lacks; attributes value, option, gate_at,
// needs, why_missing.
inline constexpr std::string_view CudaOptionDefault = "cuda-option-default";
// name: the helper as called; attributes how (what the caller passes) and
// selector ("utils/devices.py:12", where the helper tests CUDA).
inline constexpr std::string_view MpsByNameCaller = "mps-by-name-caller";
// name: a Python call of a compiled op whose C++ entry sends non-CUDA tensors
// to CPU code; attributes function, dispatch_at, cpu_target.
inline constexpr std::string_view CpuDispatchedOpCall = "cpu-dispatched-op-call";
inline constexpr std::string_view MpsMissingOp = "mps-missing-op";

// Suppression comments (workflow/suppression.h, rules/meta.toml).
inline constexpr std::string_view UnusedSuppression = "unused-suppression";
// A comment that looks like a directive but is not one (MPS002).
inline constexpr std::string_view MalformedSuppression = "malformed-suppression";

} // namespace fact_kind

// Every kind above, once.
inline constexpr std::array kAllFactKinds{
    fact_kind::Import,
    fact_kind::Call,
    fact_kind::Attribute,
    fact_kind::Assignment,
    fact_kind::DeviceString,
    fact_kind::DeviceSelection,
    fact_kind::ClassDef,
    fact_kind::FunctionDef,
    fact_kind::MainGuard,
    fact_kind::RequiredImport,
    fact_kind::CudaRequirement,
    fact_kind::TensorDeviceRaise,
    fact_kind::NumpyFloat64ToDevice,
    fact_kind::DeviceHelperCall,
    fact_kind::ConfigValue,
    fact_kind::ParameterDefault,
    fact_kind::CudaOnlyGradScaler,
    fact_kind::Include,
    fact_kind::CudaKernel,
    fact_kind::DeviceFunction,
    fact_kind::KernelLaunch,
    fact_kind::CudaApi,
    fact_kind::CudaLibrary,
    fact_kind::InlinePtx,
    fact_kind::WarpIntrinsic,
    fact_kind::Atomic,
    fact_kind::TensorCore,
    fact_kind::CooperativeGroups,
    fact_kind::Texture,
    fact_kind::AtenCuda,
    fact_kind::OpRegistration,
    fact_kind::MetalPort,
    fact_kind::DeviceDispatch,
    fact_kind::CxxFunction,
    fact_kind::Shell,
    fact_kind::Dependency,
    fact_kind::PackageIndex,
    fact_kind::CondaChannel,
    fact_kind::Build,
    fact_kind::CxxExtension,
    fact_kind::BuildSource,
    fact_kind::CudaProbe,
    fact_kind::ContainerImage,
    fact_kind::EnvVar,
    fact_kind::JobDirective,
    fact_kind::EntryPoint,
    fact_kind::Submodule,
    fact_kind::Checkpoint,
    fact_kind::CheckpointTensor,
    fact_kind::ModelConfig,
    fact_kind::DocRequirement,
    fact_kind::ConfigSetting,
    fact_kind::UnusedDependency,
    fact_kind::UndeclaredImport,
    fact_kind::CudaExtensionImport,
    fact_kind::ExtensionOpCall,
    fact_kind::LocalCudaOnlyImport,
    fact_kind::CudaOptionDefault,
    fact_kind::CpuDeviceTest,
    fact_kind::MpsByNameCaller,
    fact_kind::CpuDispatchedOpCall,
    fact_kind::MpsMissingOp,
    fact_kind::UnusedSuppression,
    fact_kind::MalformedSuppression,
};

bool is_known_fact_kind(std::string_view kind);

// The listed kind nearest to an unknown one ("cal" -> "call"), for a "did
// you mean"; empty when none is close.
std::string_view closest_fact_kind(std::string_view kind);

} // namespace mpsaudit
