// libFuzzer target: the C/C++/CUDA front end, gate, raw lexer and clang
// parse alike. The input is a .cu file at the top of a fixed tree that
// holds the preprocessor's bombs: 41 unguarded headers that each include the
// next twice (2^41 entries), a header that includes itself, a header of
// doubling macros (A35 is 2^35 expansions), a macro that copies its
// argument twice and one that passes it on (for calls nested thousands
// deep), plus an ordinary header. Whatever the input includes or
// expands, the file must come back within its bounds (docs/cxx-frontend.md,
// "Bounds"): a parse is stopped by its budget or by its worker's deadline
// and memory cap, both well inside libFuzzer's own limits, and the file
// keeps the raw lexer's facts. A hang, memory without bound or a crash fails
// the run. Seeds: tests/fuzz/seeds/cxx.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/temporary_directory.h"
#include "frontend/cxx/cxx_frontend.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

struct BombTree {
  TemporaryDirectory directory{"mpsaudit-fuzz-cxx-"};
  fs::path root;

  BombTree() {
    root = fs::canonical(directory.path());
    for (int level = 0; level <= 40; ++level) {
      const std::string next = "h" + std::to_string(level + 1) + ".h";
      std::ofstream(root / ("h" + std::to_string(level) + ".h"))
          << (level < 40 ? "#include \"" + next + "\"\n#include \"" + next + "\"\n" : "/* leaf */\n");
    }
    std::ofstream(root / "self.h") << "#include \"self.h\"\n";
    std::string doubling = "#define A0 ;\n";
    for (int level = 1; level <= 35; ++level)
      doubling += "#define A" + std::to_string(level) + " A" + std::to_string(level - 1) + " A" +
                  std::to_string(level - 1) + "\n";
    std::ofstream(root / "doubling.h") << doubling << "#define TWICE(x) x x\n#define ONCE(x) x\n";
    std::ofstream(root / "kernels.cuh")
        << "#pragma once\n#define KERNEL(name) __global__ void name(float *x)\n";
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const BombTree tree;
  SourceFile file;
  file.path = "input.cu";
  file.absolute_path = (tree.root / "input.cu").string();
  file.kind = FileKind::Cuda;
  file.text.assign(reinterpret_cast<const char *>(data), size);
  ExtractOptions options;
  options.root = tree.root.string();
  options.parse_timeout_ms = 2000;
  options.parse_memory_bytes = 512ull << 20;
  extract_cxx_file(file, options, CxxParseMode::Auto);
  return 0;
}
