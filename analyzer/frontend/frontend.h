// The front-end registry: one extractor per file kind.
//
// A front end turns one loaded file into facts (core/fact.h). It must never
// throw on bad input and never execute anything: problems become diagnostics
// in FileFacts::diagnostics, and whatever could be understood is still
// returned. Front ends are registered by kind in frontend/registry.cpp: each front end library
// exposes `void register_<name>_frontends(ExtractorTable &)`.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/fact.h"
#include "core/project_pass.h"
#include "core/source.h"

namespace mpsaudit {

struct ExtractOptions {
  // Directory holding compile_commands.json for C++/CUDA files (-p), or empty.
  std::string compile_commands_dir;
  // Root of the scan, for front ends that resolve includes (requirements -r).
  std::string root;
  // Every scanned path (the first is `root`; empty: `root` alone). A file the
  // tree names, such as a requirements include, is read only when it lies
  // inside one of them (core/confined_file.h).
  std::vector<std::string> roots;
  // The largest such file read (--max-file-size).
  std::uint64_t max_file_bytes = 10u << 20;
  // Longest a parser may spend on one file before it gives up with a
  // "parse-timeout" diagnostic (0: no limit). Front ends whose parsers can be
  // interrupted honour it.
  unsigned parse_timeout_ms = 0;
  // Most address space one C/C++/CUDA file's clang parse may add (it runs in
  // a child process capped at that; 0: no cap).
  std::uint64_t parse_memory_bytes = 0;
};

using Extractor = std::function<FileFacts(const SourceFile &, const ExtractOptions &)>;

// Front ends register their extractors here, one per file kind, and what
// they can give back once the files are read.
class ExtractorTable {
public:
  void add(FileKind kind, Extractor extractor) {
    extractors_[static_cast<std::size_t>(kind)] = std::move(extractor);
  }
  const Extractor *find(FileKind kind) const {
    const auto &slot = extractors_[static_cast<std::size_t>(kind)];
    return slot ? &slot : nullptr;
  }
  // `release` hands back memory that reading files needs and can bring back
  // on demand. It may run while other files are read, and an extractor
  // called after it must still work.
  void add_release(std::function<void()> release) { releases_.push_back(std::move(release)); }
  void release_reading_memory() const {
    for (const auto &release : releases_)
      release();
  }
  // `loaded` says whether the front end has loaded what its first file
  // needs (the C++ front end's Clang libraries); false until a file needed it.
  void add_loaded_check(std::function<bool()> loaded) { loaded_checks_.push_back(std::move(loaded)); }
  bool loaded() const {
    for (const auto &check : loaded_checks_)
      if (!check())
        return false;
    return true;
  }

private:
  std::array<Extractor, static_cast<std::size_t>(FileKind::Unknown) + 1> extractors_{};
  std::vector<std::function<void()>> releases_;
  std::vector<std::function<bool()>> loaded_checks_;
};

// Returns the extractor for `kind`, or nullptr when no front end reads it.
const Extractor *find_extractor(FileKind kind);

// What the front ends hold to read files and can bring back on demand (the
// C++ front end's mapped Clang libraries), handed back. The scan reads the
// C/C++/CUDA files first and calls it when the last of them is done, while
// the other files are still read; reading more C/C++/CUDA files afterwards
// works, at the cost of page faults.
void release_reading_memory();

// Whether the front ends have loaded what their first files need (the C++
// front end's Clang libraries, about 90 ms, loaded by the first C/C++/CUDA
// file that is not in the result cache). Until then the scan gives such files
// to one thread at a time, and the others read files of other kinds rather
// than wait for the load.
bool extractors_loaded();

// The project passes of the front ends compiled into this build, in the order
// they run (see core/project_pass.h); the scan runs them.
const std::vector<ProjectPass> &frontend_project_passes();

} // namespace mpsaudit
