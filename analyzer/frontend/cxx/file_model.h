// The structural model of one C++/CUDA file that both the AST path and the
// token path fill in: where kernels and device functions are, which kernels
// are launched where, inline assembly, and the lines that carry per-kernel
// evidence (shared memory, double, barriers). cxx_frontend.cpp merges the two
// models and turns them into facts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mpsaudit::cxx {

// A __global__ kernel or a __device__ function with a body.
struct CodeRegion {
  bool is_kernel = false;
  bool host_device = false; // __host__ __device__
  bool is_template = false;
  std::string name;
  std::string qualified_name;
  std::uint32_t line = 0; // of the name
  std::uint32_t column = 0;
  std::uint32_t end_column = 0;
  std::uint32_t body_begin_line = 0;
  std::uint32_t body_end_line = 0;
  std::string origin; // "ast" or "lexical"
};

// A <<<...>>> launch or a cudaLaunchKernel-style call.
struct LaunchSite {
  std::string kernel; // launched kernel's name, "?" when not a plain name
  std::string via;    // "triple-chevron" or the API function
  std::string config; // text between <<< and >>>
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t end_column = 0;
  std::string origin;
};

// An asm("...") statement.
struct AsmSite {
  std::string text; // the assembler template, concatenated
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t end_column = 0;
  std::string origin;
};

struct FileModel {
  std::vector<CodeRegion> regions;
  std::vector<LaunchSite> launches;
  std::vector<AsmSite> asm_sites;
  // Lines (1-based, sorted, may repeat) of evidence counted per kernel.
  std::vector<std::uint32_t> shared_lines;  // __shared__ declarations
  std::vector<std::uint32_t> double_lines;  // double-typed declarations or casts
  std::vector<std::uint32_t> barrier_lines; // __syncthreads() and friends
};

} // namespace mpsaudit::cxx
