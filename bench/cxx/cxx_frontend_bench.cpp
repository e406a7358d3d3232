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
//   mpsaudit-cxx-bench --tree DIR
//
// --tree times every C/C++/CUDA file of a real tree instead, once per mode,
// in CPU time of the one thread and of the worker process its clang parses
// run in (so other load on the machine barely
// counts): clang on every body (CxxParseMode::Ast, the path before the
// gate), the default path (the gate, unread bodies skipped) and the raw
// lexer alone; it also counts files whose facts differ between the first two,
// and the default path's clang parses that added nothing to the raw lexer's
// facts (the `origin` attribute aside): the time a better gate could save.
//
// The inputs are generated into a temporary directory: N CUDA files of
// about 60 lines (a kernel with shared memory, a warp shuffle, an atomic, a
// launch and an op registration), and the header.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "core/confined_file.h"
#include "core/source.h"
#include "frontend/cxx/ast_scan.h"
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

double seconds_of(clockid_t clock) {
  timespec now{};
  if (clock_gettime(clock, &now) != 0)
    return 0;
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Processor time of this thread and of the worker process its clang parses
// run in (frontend/cxx/ast_scan.h).
double thread_seconds() {
  double seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID);
  clockid_t worker_clock{};
  if (const int worker = mpsaudit::cxx::parse_worker_process();
      worker > 0 && clock_getcpuclockid(worker, &worker_clock) == 0)
    seconds += seconds_of(worker_clock);
  return seconds;
}

// Everything about a file's facts that rules can read, one line per fact.
std::string describe(const mpsaudit::FileFacts &facts) {
  std::string text;
  for (const auto &fact : facts.facts) {
    text += fact.kind + " " + fact.name + " " + std::to_string(fact.span.line) + ":" +
            std::to_string(fact.span.column) + " guard=" + std::to_string(static_cast<int>(fact.guard));
    for (const auto &[key, value] : fact.attributes)
      text += " " + key + "=" + value;
    text += "\n";
  }
  return text;
}

// `described` without the attribute that names the path a fact came from.
std::string without_origin(std::string described) {
  for (const std::string_view origin : {" origin=ast", " origin=lexical"})
    for (std::size_t at = described.find(origin); at != std::string::npos; at = described.find(origin, at))
      described.erase(at, origin.size());
  return described;
}

int time_tree(const fs::path &tree) {
  std::vector<mpsaudit::SourceFile> sources;
  std::error_code error;
  for (auto entry =
           fs::recursive_directory_iterator(tree, fs::directory_options::skip_permission_denied, error);
       entry != fs::recursive_directory_iterator(); entry.increment(error)) {
    if (error || !entry->is_regular_file(error))
      continue;
    mpsaudit::SourceFile source;
    source.path = fs::relative(entry->path(), tree, error).generic_string();
    source.kind = mpsaudit::classify_path(source.path);
    if (source.kind != mpsaudit::FileKind::Cxx && source.kind != mpsaudit::FileKind::Cuda)
      continue;
    source.absolute_path = entry->path().string();
    source.text = mpsaudit::read_whole_file(entry->path()).value_or("");
    sources.push_back(std::move(source));
  }
  mpsaudit::ExtractOptions options;
  options.root = tree.string();
  struct Mode {
    CxxParseMode mode = CxxParseMode::Auto;
    const char *name = "";
    double seconds = 0;
    std::map<std::string, int> modes;
    std::vector<std::string> facts;
    std::vector<double> per_file;
    std::vector<std::string> mode_of;
  };
  Mode modes[3];
  modes[0].mode = CxxParseMode::Ast;
  modes[0].name = "clang on every body (before)";
  modes[1].mode = CxxParseMode::Auto;
  modes[1].name = "default: gate + unread bodies skipped";
  modes[2].mode = CxxParseMode::Lexical;
  modes[2].name = "raw lexer only";
  for (Mode &mode : modes)
    for (const auto &source : sources) {
      const double start = thread_seconds();
      const mpsaudit::FileFacts facts = mpsaudit::extract_cxx_file(source, options, mode.mode);
      const double spent = thread_seconds() - start;
      mode.seconds += spent;
      mode.per_file.push_back(spent);
      ++mode.modes[facts.mode];
      mode.mode_of.push_back(facts.mode);
      mode.facts.push_back(describe(facts));
    }
  std::printf(
      "%s: %zu C/C++/CUDA files\n\n| path | CPU s | files/s per core | file modes |\n|---|---:|---:|---|\n",
      tree.string().c_str(), sources.size());
  for (const Mode &mode : modes) {
    std::string counts;
    for (const auto &[name, count] : mode.modes)
      counts += (counts.empty() ? "" : ", ") + name + " " + std::to_string(count);
    std::printf("| %s | %.2f | %.0f | %s |\n", mode.name, mode.seconds,
                mode.seconds > 0 ? static_cast<double>(sources.size()) / mode.seconds : 0.0, counts.c_str());
  }
  std::size_t differ = 0;
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (modes[0].facts[i] != modes[1].facts[i]) {
      ++differ;
      std::printf("facts differ: %s\n", sources[i].path.c_str());
      std::istringstream before(modes[0].facts[i]), now(modes[1].facts[i]);
      std::set<std::string> before_lines, now_lines;
      for (std::string line; std::getline(before, line);)
        before_lines.insert(line);
      for (std::string line; std::getline(now, line);)
        now_lines.insert(line);
      for (const auto &line : before_lines)
        if (!now_lines.count(line))
          std::printf("  - %s\n", line.c_str());
      for (const auto &line : now_lines)
        if (!before_lines.count(line))
          std::printf("  + %s\n", line.c_str());
    }
  std::size_t parsed_for_nothing = 0;
  double parse_seconds_for_nothing = 0;
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (without_origin(modes[1].facts[i]) == without_origin(modes[2].facts[i]) &&
        modes[1].mode_of[i] == "ast") {
      ++parsed_for_nothing;
      parse_seconds_for_nothing += modes[1].per_file[i];
    }
  std::printf("\nfiles whose facts differ between the first two paths: %zu\n"
              "default path: clang parses that added nothing to the raw lexer's facts: %zu (%.2f s)\n"
              "slowest files (before -> now, ms):\n",
              differ, parsed_for_nothing, parse_seconds_for_nothing);
  std::vector<std::size_t> order(sources.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return modes[0].per_file[a] > modes[0].per_file[b]; });
  for (std::size_t k = 0; k < std::min<std::size_t>(8, order.size()); ++k)
    std::printf("  %8.1f -> %8.1f  %s\n", modes[0].per_file[order[k]] * 1000,
                modes[1].per_file[order[k]] * 1000, sources[order[k]].path.c_str());
  return 0;
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
    else if (arg == "--tree" && argi + 1 < argc)
      return time_tree(argv[++argi]);
    else {
      std::fprintf(stderr, "usage: %s [--files N] [--header-lines L] [--runs R] | --tree DIR\n", argv[0]);
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
  const Case cases[] = {{"no header", &plain, CxxParseMode::Ast, "AST, every body"},
                        {"no header", &plain, CxxParseMode::Auto, "AST"},
                        {"no header", &plain, CxxParseMode::Lexical, "lexical"},
                        {"with common.cuh", &with_header, CxxParseMode::Ast, "AST, every body"},
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
