#include "frontend/cxx/vocabulary.h"

#include <array>
#include <cctype>

namespace mpsaudit::cxx {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// `prefix` followed by an upper-case letter: cudaMalloc but not cudart.
bool has_api_prefix(std::string_view name, std::string_view prefix) {
  return name.size() > prefix.size() && starts_with(name, prefix) &&
         std::isupper(static_cast<unsigned char>(name[prefix.size()]));
}

template <std::size_t N> bool contains(const std::array<std::string_view, N> &list, std::string_view name) {
  for (std::string_view entry : list)
    if (entry == name)
      return true;
  return false;
}

} // namespace

bool is_launch_api(std::string_view name) {
  static constexpr std::array<std::string_view, 7> launches{"cudaLaunchKernel",
                                                            "cudaLaunchKernelEx",
                                                            "cudaLaunchCooperativeKernel",
                                                            "cudaLaunchCooperativeKernelMultiDevice",
                                                            "cuLaunchKernel",
                                                            "cuLaunchKernelEx",
                                                            "cuLaunchCooperativeKernel"};
  return contains(launches, name);
}

std::string_view cuda_api_category(std::string_view name) {
  const bool runtime = has_api_prefix(name, "cuda");
  const bool driver = has_api_prefix(name, "cu");
  if (!runtime && !driver)
    return {};
  if (is_launch_api(name))
    return {};
  const std::string_view rest = name.substr(runtime ? 4 : 2);
  // Graph capture starts on a stream but belongs with graphs.
  if (starts_with(rest, "Graph") || starts_with(rest, "StreamBeginCapture") ||
      starts_with(rest, "StreamEndCapture") || starts_with(rest, "StreamIsCapturing") ||
      starts_with(rest, "StreamGetCaptureInfo"))
    return "graph";
  if (starts_with(rest, "Stream") || starts_with(rest, "Event"))
    return "stream-event";
  if (starts_with(rest, "Malloc") || starts_with(rest, "Free") || starts_with(rest, "Memcpy") ||
      starts_with(rest, "Memset") || starts_with(rest, "Mem") || starts_with(rest, "Host") ||
      starts_with(rest, "Array") || starts_with(rest, "MipmappedArray") || starts_with(rest, "Pointer") ||
      starts_with(rest, "IpcGetMemHandle") || starts_with(rest, "IpcOpenMemHandle") ||
      starts_with(rest, "GetSymbolAddress"))
    return "memory";
  if (starts_with(rest, "GetLastError") || starts_with(rest, "PeekAtLastError") ||
      starts_with(rest, "GetErrorString") || starts_with(rest, "GetErrorName"))
    return "error";
  if (starts_with(rest, "Device") || starts_with(rest, "SetDevice") || starts_with(rest, "GetDevice") ||
      starts_with(rest, "ChooseDevice") || starts_with(rest, "Func") || starts_with(rest, "Occupancy") ||
      starts_with(rest, "Ctx") || starts_with(rest, "Init") || starts_with(rest, "DriverGetVersion") ||
      starts_with(rest, "RuntimeGetVersion") || starts_with(rest, "ThreadSynchronize") ||
      starts_with(rest, "SetDeviceFlags"))
    return "device";
  return "other";
}

std::string_view library_of_function(std::string_view name) {
  // Longest prefixes first: cublasLt before cublas.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> prefixes{{
      {"cublasLt", "cublaslt"},
      {"cublas", "cublas"},
      {"cudnn", "cudnn"},
      {"cufft", "cufft"},
      {"curand", "curand"},
      {"cusparse", "cusparse"},
      {"cusolver", "cusolver"},
      {"nccl", "nccl"},
      {"getCurrentCUDABlasHandle", "cublas"},
  }};
  for (const auto &[prefix, library] : prefixes) {
    if (!starts_with(name, prefix))
      continue;
    if (name.size() == prefix.size())
      return library;
    const char next = name[prefix.size()];
    // cublasSgemm, curand_uniform, cusolverDnSgetrf; not "cublaslike".
    if (std::isupper(static_cast<unsigned char>(next)) || next == '_')
      return library;
  }
  return {};
}

std::string_view library_of_namespace(std::string_view name) {
  if (name == "thrust")
    return "thrust";
  if (name == "cub")
    return "cub";
  if (name == "cutlass" || name == "cute")
    return "cutlass";
  return {};
}

std::string_view library_of_header(std::string_view header) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 17> headers{{
      {"cublasLt", "cublaslt"},
      {"cublas", "cublas"},
      {"ATen/cuda/CUDABlas", "cublas"},
      {"cudnn", "cudnn"},
      {"ATen/cudnn/", "cudnn"},
      {"cufft", "cufft"},
      {"curand", "curand"},
      {"cusparse", "cusparse"},
      {"cusolver", "cusolver"},
      {"nccl", "nccl"},
      {"thrust/", "thrust"},
      {"cub/", "cub"},
      {"cub.cuh", "cub"},
      {"cutlass/", "cutlass"},
      {"cute/", "cutlass"},
      {"torch/csrc/cuda/nccl", "nccl"},
      {"c10d/ProcessGroupNCCL", "nccl"},
  }};
  for (const auto &[prefix, library] : headers)
    if (starts_with(header, prefix))
      return library;
  return {};
}

bool is_warp_intrinsic(std::string_view name) {
  static constexpr std::array<std::string_view, 20> intrinsics{"__shfl_sync",
                                                               "__shfl_up_sync",
                                                               "__shfl_down_sync",
                                                               "__shfl_xor_sync",
                                                               "__shfl",
                                                               "__shfl_up",
                                                               "__shfl_down",
                                                               "__shfl_xor",
                                                               "__ballot_sync",
                                                               "__ballot",
                                                               "__any_sync",
                                                               "__all_sync",
                                                               "__any",
                                                               "__all",
                                                               "__activemask",
                                                               "__syncwarp",
                                                               "__match_any_sync",
                                                               "__match_all_sync",
                                                               "__uni_sync",
                                                               "warpSize"};
  if (contains(intrinsics, name))
    return true;
  // __reduce_add_sync, __reduce_min_sync, ... (sm_80 warp reductions)
  return starts_with(name, "__reduce_") && name.size() > 14 && name.substr(name.size() - 5) == "_sync";
}

bool is_atomic_function(std::string_view name) {
  if (has_api_prefix(name, "atomic"))
    return true; // atomicAdd, atomicCAS, atomicMax_block, ...
  return name == "gpuAtomicAdd" || name == "gpuAtomicMax" || name == "gpuAtomicMin" ||
         name == "gpuAtomicMul" || name == "fastAtomicAdd";
}

bool is_texture_api(std::string_view name) {
  static constexpr std::array<std::string_view, 12> textures{"cudaTextureObject_t",
                                                             "cudaSurfaceObject_t",
                                                             "cudaCreateTextureObject",
                                                             "cudaCreateSurfaceObject",
                                                             "tex1Dfetch",
                                                             "tex1D",
                                                             "tex2D",
                                                             "tex3D",
                                                             "tex2DLayered",
                                                             "surf2Dwrite",
                                                             "surf2Dread",
                                                             "texture"};
  // `texture` alone is too common a word; only the CUDA spellings count.
  return name != "texture" && contains(textures, name);
}

bool is_tensor_core_function(std::string_view name) {
  static constexpr std::array<std::string_view, 6> functions{
      "mma_sync", "load_matrix_sync", "store_matrix_sync", "fill_fragment", "bmma_sync", "wmma"};
  return contains(functions, name);
}

bool ptx_uses_tensor_cores(std::string_view asm_text) {
  for (std::string_view needle : {"mma.", "wmma.", "ldmatrix", "cp.async", "wgmma"})
    if (asm_text.find(needle) != std::string_view::npos)
      return true;
  return false;
}

bool is_cooperative_groups_function(std::string_view name) {
  static constexpr std::array<std::string_view, 6> functions{
      "this_grid",       "this_multi_grid",   "this_thread_block",
      "tiled_partition", "coalesced_threads", "cudaLaunchCooperativeKernel"};
  return contains(functions, name);
}

std::string_view aten_cuda_identifier_category(std::string_view name) {
  static constexpr std::array<std::string_view, 22> glue{"getCurrentCUDAStream",
                                                         "getDefaultCUDAStream",
                                                         "getStreamFromPool",
                                                         "CUDAStream",
                                                         "CUDAGuard",
                                                         "OptionalCUDAGuard",
                                                         "CUDAStreamGuard",
                                                         "OptionalCUDAStreamGuard",
                                                         "CUDAEvent",
                                                         "CUDAMultiStreamGuard",
                                                         "C10_CUDA_KERNEL_LAUNCH_CHECK",
                                                         "C10_CUDA_CHECK",
                                                         "AT_CUDA_CHECK",
                                                         "TORCH_CUDABLAS_CHECK",
                                                         "getCurrentDeviceProperties",
                                                         "getDeviceProperties",
                                                         "getCurrentCUDABlasHandle",
                                                         "getCurrentCUDASparseHandle",
                                                         "CUDACachingAllocator",
                                                         "getCurrentCUDASolverDnHandle",
                                                         "CUDAContext",
                                                         "THCState"};
  if (contains(glue, name))
    return "glue";
  if (name == "kCUDA")
    return "device";
  return {};
}

bool is_aten_cuda_header(std::string_view header) {
  return starts_with(header, "ATen/cuda/") || starts_with(header, "c10/cuda/") ||
         starts_with(header, "THC/") || starts_with(header, "ATen/cudnn/") ||
         starts_with(header, "ATen/native/cuda/") || starts_with(header, "torch/csrc/cuda/");
}

bool dispatch_macro_instantiates_double(std::string_view name) {
  if (name.find("REDUCED") != std::string_view::npos)
    return false; // AT_DISPATCH_REDUCED_FLOATING_TYPES: Half and BFloat16 only
  return name.find("FLOATING_TYPES") != std::string_view::npos ||
         name.find("ALL_TYPES") != std::string_view::npos ||
         name.find("FLOATING_AND_COMPLEX") != std::string_view::npos;
}

bool is_metal_host_identifier(std::string_view name) {
  static constexpr std::array<std::string_view, 10> identifiers{"MPSGraph",
                                                                "MTLDevice",
                                                                "MTLCreateSystemDefaultDevice",
                                                                "MTLComputePipelineState",
                                                                "MTLCommandBuffer",
                                                                "MTLComputeCommandEncoder",
                                                                "MTLLibrary",
                                                                "MPSStream",
                                                                "getCurrentMPSStream",
                                                                "aoti_torch_mps_create_shader_library"};
  return contains(identifiers, name);
}

} // namespace mpsaudit::cxx
