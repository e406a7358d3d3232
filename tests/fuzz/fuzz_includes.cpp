// libFuzzer target: the requirements include resolver. The input is the
// requirements.txt at the top of a fixed tree that holds the hostile cases:
// a FIFO, symlinks to /dev/zero, /etc/passwd and a directory outside the
// tree, a symlink loop, a file over the size limit, and a chain that leads
// out of the tree. Whatever the input includes, at any depth, must be
// refused or read from inside the tree: a hang (the FIFO, /dev/stdin), memory
// without bound (/dev/zero) or a fact read from outside fails the run. The
// input's first line is also resolved as a path on its own; what it reads
// must be a regular file inside the tree, within the limit.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>

#include "core/confined_file.h"
#include "core/temporary_directory.h"
#include "core/text.h"
#include "frontend/frontend.h"

using namespace mpsaudit;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kLimit = 4096;
constexpr const char *kLeak = "leaked-from-outside";

struct HostileTree {
  TemporaryDirectory directory{"mpsaudit-fuzz-includes-"};
  fs::path root;
  std::vector<fs::path> roots;

  HostileTree() {
    const fs::path base = fs::canonical(directory.path());
    root = base / "root";
    fs::create_directories(root / "sub");
    fs::create_directories(base / "outside");
    std::ofstream(base / "outside" / "secret.txt") << kLeak << "==1.0\n";
    std::ofstream(root / "requirements-base.txt") << "numpy\n-r sub/a.in\n";
    std::ofstream(root / "sub" / "a.in")
        << "scipy\n-r ../requirements-base.txt\n-r ../../outside/secret.txt\n"
        << "-r ../out/secret.txt\n-c ../zero.in\n-r b.in\n";
    std::ofstream(root / "sub" / "b.in") << "pandas\n-r b.in\n-r ../pipe.in\n";
    std::ofstream(root / "big.in") << std::string(2 * kLimit, '#') << "\n";
    ::mkfifo((root / "pipe.in").c_str(), 0600);
    fs::create_symlink("/dev/zero", root / "zero.in");
    fs::create_symlink("/etc/passwd", root / "passwd.in");
    fs::create_directory_symlink(base / "outside", root / "out");
    fs::create_symlink("loop.in", root / "loop.in");
    fs::create_directory_symlink(".", root / "self");
    roots = confinement_roots({root.string()});
  }
};

void check(bool condition) {
  if (!condition)
    __builtin_trap();
}

// The fuzzer learns the marker from the comparisons and writes it into the
// input itself; a fact that merely repeats the input is no leak. Package
// names are compared after normalisation, so the input is too.
bool input_names_marker(const std::string &text) {
  return normalize_package_name(text).find(kLeak) != std::string::npos;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const HostileTree tree;
  const std::string text(reinterpret_cast<const char *>(data), size);

  // The resolver alone, on the first line as a path.
  const std::string first_line = text.substr(0, text.find('\n'));
  const ConfinedFile file = read_confined_file(tree.root, first_line, tree.roots, kLimit);
  if (file.status == ConfinedStatus::Ok) {
    check(is_within(file.real_path, tree.roots));
    check(fs::is_regular_file(file.real_path));
    check(file.text.size() <= kLimit);
    // requirements.txt holds the previous input, which may name the marker.
    if (fs::path(file.real_path).filename() != "requirements.txt")
      check(file.text.find(kLeak) == std::string::npos);
  } else {
    check(file.text.empty());
  }

  // The front end following every include of the input.
  const fs::path path = tree.root / "requirements.txt";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  SourceFile source;
  source.path = "requirements.txt";
  source.absolute_path = path.string();
  source.kind = FileKind::Requirements;
  source.text = text;
  ExtractOptions options;
  options.root = tree.root.string();
  options.max_file_bytes = kLimit;
  const Extractor *extractor = find_extractor(FileKind::Requirements);
  check(extractor != nullptr);
  const FileFacts facts = (*extractor)(source, options);
  if (input_names_marker(text))
    return 0;
  for (const Fact &fact : facts.facts)
    check(fact.name.find(kLeak) == std::string::npos);
  return 0;
}
