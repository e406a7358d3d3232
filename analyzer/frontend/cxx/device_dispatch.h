// Function bodies and device dispatch, read from the token path's tokens.
//
// A device dispatch is a host function that sends CUDA tensors to CUDA code
// and everything else to other code:
//
//   if (x.is_cuda()) { return op_cuda(x); }     // also x.device().is_cuda(),
//   return op_cpu(x);                           // x.type().is_cuda(), else
//   return x.is_cuda() ? op_cuda(x) : op_cpu(x);
//   #if defined(WITH_CUDA) ... #else ... #endif  // #ifdef, __CUDACC__, #ifndef
//
// The AST cannot see this: clang drops the inactive #if arm (WITH_CUDA is not
// defined when mpsaudit parses) and, without the project's headers, often the
// whole function (at::Tensor is undeclared). The raw tokens keep both arms, so
// the analysis runs on them in AST and lexical mode alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/cxx/token_stream.h"

namespace mpsaudit::cxx {

// A function definition at namespace or class scope.
struct FunctionBody {
  std::string name; // last component
  std::string qualified_name;
  std::size_t name_index = 0;
  std::size_t open = 0;     // the body's '{'
  std::size_t close = 0;    // its '}'
  bool device_code = false; // __global__, or __device__ without __host__
  bool macro_block = false; // TORCH_LIBRARY(ns, m) { ... }: a macro, not a function
};

// Every function definition, in token order. Linear in the token count:
// bodies are skipped once found, and every look-ahead is bounded.
std::vector<FunctionBody> find_function_bodies(const TokenStream &stream);

// Names (last components) of the functions called or launched in
// [from, to), at most `limit`, in order of first use. Member calls, macros
// (ALL_CAPS), keywords, the CUDA vocabulary and std/at/torch/c10/thrust/cub
// functions are left out: what remains can name the project's own code.
std::vector<std::string> called_functions(const TokenStream &stream, std::size_t from, std::size_t to,
                                          std::size_t limit = 64);

// [begin, end) in token indexes.
struct TokenRange {
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct DeviceDispatch {
  std::size_t function = 0;                // index into the bodies
  std::string via;                         // "if", "ternary" or "preprocessor"
  std::string test;                        // ".is_cuda()", "kCUDA", "#if defined(WITH_CUDA)", ...
  std::uint32_t line = 0;                  // of the test
  bool cpu_fallback = false;               // the other arm does work (not only AT_ERROR/throw)
  std::vector<std::string> cuda_functions; // called in the CUDA arm, not in the other
  std::vector<std::string> cpu_functions;  // called in the other arm
  // The test and the CUDA arm: code that only runs for CUDA tensors or in a
  // CUDA build.
  std::vector<TokenRange> cuda_side;
};

// The device dispatches inside `bodies` (host code only).
std::vector<DeviceDispatch> find_device_dispatches(const TokenStream &stream,
                                                   const std::vector<FunctionBody> &bodies);

// Whether a preprocessor condition tests for a CUDA build: +1 when it holds
// in a CUDA build (defined(WITH_CUDA), __CUDACC__), -1 when it holds without
// one (!defined(WITH_CUDA)), 0 otherwise (unrelated, mixed, or a CUDA
// version or architecture test, which picks between two CUDA variants).
int cuda_build_condition(std::string_view condition);

} // namespace mpsaudit::cxx
