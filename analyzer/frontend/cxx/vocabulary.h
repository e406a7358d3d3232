// The CUDA vocabulary: which identifiers and headers mean what. Shared by the
// AST and token paths so that both name facts identically.
#pragma once

#include <string>
#include <string_view>

#include "core/fact_kinds.h"

namespace mpsaudit::cxx {

// Fact kinds of the C++/CUDA front end (documented in docs/cxx-frontend.md),
// listed with every other kind in core/fact_kinds.h.
namespace kind = ::mpsaudit::fact_kind;

// Category of a CUDA runtime or driver API function ("memory",
// "stream-event", "device", "graph", "error", "other"), or empty when `name`
// is not one. Launch functions are not APIs here: see is_launch_api.
std::string_view cuda_api_category(std::string_view name);
// cudaLaunchKernel, cudaLaunchCooperativeKernel, cuLaunchKernel, ...
bool is_launch_api(std::string_view name);

// The library a called function belongs to by its C prefix (cublasSgemm ->
// "cublas", cublasLtMatmul -> "cublaslt"), or empty.
std::string_view library_of_function(std::string_view name);
// The library of a namespace (thrust, cub, cutlass, cute -> cutlass), or empty.
std::string_view library_of_namespace(std::string_view name);
// The library an #include names (<cublas_v2.h>, <thrust/sort.h>), or empty.
std::string_view library_of_header(std::string_view header);

bool is_warp_intrinsic(std::string_view name);
bool is_atomic_function(std::string_view name);
bool is_texture_api(std::string_view name);
// Functions of nvcuda::wmma and friends that use tensor cores.
bool is_tensor_core_function(std::string_view name);
// PTX mnemonics that use tensor cores or async copies (mma.sync, ldmatrix).
bool ptx_uses_tensor_cores(std::string_view asm_text);
bool is_cooperative_groups_function(std::string_view name);

// PyTorch's CUDA glue. Returns the aten-cuda category: "glue" (streams,
// guards, contexts, CUDA checks), "device" (kCUDA, .cuda()), or empty.
std::string_view aten_cuda_identifier_category(std::string_view name);
// True for ATen/cuda/*, c10/cuda/*, THC/* and ATen/cudnn/* headers.
bool is_aten_cuda_header(std::string_view header);
// AT_DISPATCH_* macros whose type list includes double.
bool dispatch_macro_instantiates_double(std::string_view name);

// Objective-C++ / Metal identifiers that show a Metal port exists.
bool is_metal_host_identifier(std::string_view name);

} // namespace mpsaudit::cxx
