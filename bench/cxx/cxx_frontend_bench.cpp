// Measures the C++/CUDA front end alone (numbers go to
// docs/performance.md by hand, never a test):
//   - files per second in AST mode (clang parses the file) and in lexical
//     mode (clang's raw lexer only, what files over 1 MiB get);
//   - what a shared header costs: the same files with and without an
//     `#include "common.cuh"` of --header-lines lines. The front end has no
//     header reuse (no precompiled preamble), so every file that includes the
//     header parses it again; the difference per file is what reuse would
//     save.
//
//   mpsaudit-cxx-bench [--files N] [--header-lines L] [--runs R]
//
// The inputs are generated into a temporary directory: N CUDA files of
// about 60 lines (a kernel with shared memory, a warp shuffle, an atomic, a
// launch and an op registration), and the header.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/confined_file.h"
#include "frontend/cxx/cxx_frontend.h"

namespace fs = std::filesystem;
using mpsaudit::CxxParseMode;

namespace {

std::string kernel_source(int index, bool with_header) {
  std::ostringstream out;
  if (with_header)
    out << "#include \"common.cuh\"\n";
  out << "#include <torch/extension.h>\n"
         "#include <cuda_runtime.h>\n\n"
         "__global__ void fused_kernel_"
      << index
      << "(const float *x, float *y, float *sum, int n) {\n"
         "  __shared__ float tile[256];\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  float v = i < n ? x[i] : 0.0f;\n"
         "  tile[threadIdx.x] = v;\n"
         "  __syncthreads();\n"
         "  for (int offset = 16; offset > 0; offset /= 2)\n"
         "    v += __shfl_down_sync(0xffffffff, v, offset);\n"
         "  if (threadIdx.x % 32 == 0)\n"
         "    atomicAdd(sum, v);\n"
         "  if (i < n)\n"
         "    y[i] = tile[threadIdx.x] * 2.0f + v;\n"
         "}\n\n"
         "torch::Tensor fused_"
      << index
      << "(torch::Tensor x) {\n"
         "  auto y = torch::empty_like(x);\n"
         "  auto sum = torch::zeros({1}, x.options());\n"
         "  const int n = x.numel();\n"
         "  fused_kernel_"
      << index
      << "<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), sum.data_ptr<float>(), n);\n"
         "  cudaDeviceSynchronize();\n"
         "  return y;\n"
         "}\n\n";
  for (int helper = 0; helper < 6; ++helper)
    out << "static float host_helper_" << index << "_" << helper << "(float a, float b) {\n"
        << "  float c = a * " << helper + 1 << ".0f + b;\n"
        << "  return c > 0 ? c : -c;\n"
        << "}\n";
  out << "\nTORCH_LIBRARY_IMPL(bench_ops, CUDA, m) { m.impl(\"fused_" << index << "\", &fused_" << index
      << "); }\n";
  return out.str();
}

std::string header_source(int lines) {
  std::ostringstream out;
  out << "#pragma once\n";
  int written = 1;
  for (int index = 0; written < lines; ++index) {
    out << "template <typename T>\n__device__ __forceinline__ T blend_" << index << "(T a, T b, T t) {\n"
        << "  T u = t * t * (T(3) - T(2) * t);\n"
        << "  return a + (b - a) * u;\n"
        << "}\n"
        << "struct Params" << index << " {\n  float scale;\n  int stride;\n  float bias[4];\n};\n";
    written += 10;
  }
  return out.str();
}

struct Timing {
  double seconds = 0;
  std::size_t kernels = 0;
};

Timing run_once(const std::vector<fs::path> &files, CxxParseMode mode) {
  Timing timing;
  const mpsaudit::ExtractOptions options;
  const auto start = std::chrono::steady_clock::now();
  for (const fs::path &path : files) {
    mpsaudit::SourceFile source;
    source.path = path.filename().string();
    source.absolute_path = path.string();
    source.kind = mpsaudit::FileKind::Cuda;
    source.text = mpsaudit::read_whole_file(path).value_or("");
    const mpsaudit::FileFacts facts = mpsaudit::extract_cxx_file(source, options, mode);
    timing.kernels += static_cast<std::size_t>(
        std::count_if(facts.facts.begin(), facts.facts.end(),
                      [](const mpsaudit::Fact &fact) { return fact.kind == "cuda-kernel"; }));
  }
  timing.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return timing;
}

Timing median_of(const std::vector<fs::path> &files, CxxParseMode mode, int runs) {
  std::vector<Timing> timings;
  for (int run = 0; run < runs; ++run)
    timings.push_back(run_once(files, mode));
  std::sort(timings.begin(), timings.end(),
            [](const Timing &a, const Timing &b) { return a.seconds < b.seconds; });
  return timings[timings.size() / 2];
}

int number_after(int &argi, int argc, char **argv) {
  if (argi + 1 >= argc) {
    std::fprintf(stderr, "%s needs a number\n", argv[argi]);
    std::exit(2);
  }
  return std::max(1, std::atoi(argv[++argi]));
}

} // namespace

int main(int argc, char **argv) {
  int file_count = 200, header_lines = 2000, runs = 3;
  for (int argi = 1; argi < argc; ++argi) {
    const std::string arg = argv[argi];
    if (arg == "--files")
      file_count = number_after(argi, argc, argv);
    else if (arg == "--header-lines")
      header_lines = number_after(argi, argc, argv);
    else if (arg == "--runs")
      runs = number_after(argi, argc, argv);
    else {
      std::fprintf(stderr, "usage: %s [--files N] [--header-lines L] [--runs R]\n", argv[0]);
      return 2;
    }
  }
  std::string pattern = (fs::temp_directory_path() / "mpsaudit-cxx-bench-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    std::perror("mkdtemp");
    return 1;
  }
  const fs::path root = pattern;
  std::vector<fs::path> plain, with_header;
  fs::create_directories(root / "plain");
  fs::create_directories(root / "header");
  std::ofstream(root / "header" / "common.cuh") << header_source(header_lines);
  std::size_t bytes = 0;
  for (int index = 0; index < file_count; ++index) {
    const std::string name = "kernel" + std::to_string(index) + ".cu";
    const std::string source = kernel_source(index, false);
    bytes += source.size();
    std::ofstream(root / "plain" / name) << source;
    std::ofstream(root / "header" / name) << kernel_source(index, true);
    plain.push_back(root / "plain" / name);
    with_header.push_back(root / "header" / name);
  }

  std::printf("C++/CUDA front end: %d files of %.1f KiB each, header of %d lines, median of %d runs\n\n",
              file_count, static_cast<double>(bytes) / file_count / 1024.0, header_lines, runs);
  std::printf("| input | mode | files/s | ms per file | kernels found |\n|---|---|---:|---:|---:|\n");
  struct Case {
    const char *input;
    const std::vector<fs::path> *files;
    CxxParseMode mode;
    const char *mode_name;
  };
  const Case cases[] = {{"no header", &plain, CxxParseMode::Auto, "AST"},
                        {"no header", &plain, CxxParseMode::Lexical, "lexical"},
                        {"with common.cuh", &with_header, CxxParseMode::Auto, "AST"},
                        {"with common.cuh", &with_header, CxxParseMode::Lexical, "lexical"}};
  double ast_plain = 0, ast_header = 0;
  for (const Case &bench_case : cases) {
    const Timing timing = median_of(*bench_case.files, bench_case.mode, runs);
    const double per_file_ms = timing.seconds * 1000.0 / file_count;
    std::printf("| %s | %s | %.0f | %.2f | %zu |\n", bench_case.input, bench_case.mode_name,
                file_count / timing.seconds, per_file_ms, timing.kernels);
    if (bench_case.mode == CxxParseMode::Auto)
      (bench_case.files == &plain ? ast_plain : ast_header) = per_file_ms;
  }
  std::printf("\nParsing the %d-line header again in every file costs %.2f ms per file in AST mode; "
              "header reuse would save about that much per including file.\n",
              header_lines, ast_header - ast_plain);
  std::error_code error;
  fs::remove_all(root, error);
  return 0;
}
