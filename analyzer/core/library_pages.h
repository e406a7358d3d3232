// The read-only pages of loaded shared libraries (code and constants), and a
// way to unmap them from this process while the page cache keeps them.
//
// Why: the C++ front end's plugin brings in libclang-cpp and libLLVM, and a
// scan touches about 60 MB of their pages while it parses. Once the last
// C/C++/CUDA file is read those pages are idle, yet they would stay in the
// process's resident set through the other files, the assessment and the
// reports (docs/performance.md, "Fixed so far", item 13). Code and constants can always be faulted in again
// from the file, so dropping the mappings is safe: a later parse costs minor page faults, nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mpsaudit {

class LibraryPages {
public:
  struct Segment {
    std::string library; // the loader's name for it ("" for the executable)
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0; // one past the last byte, page-aligned
  };

  // The read-only segments of every object loaded now. Empty where the
  // platform has no dl_iterate_phdr.
  static LibraryPages loaded();
  // The segments of `after` that `before` lacks: what one dlopen brought in.
  static LibraryPages added(const LibraryPages &before, const LibraryPages &after);

  const std::vector<Segment> &segments() const { return segments_; }

  // Unmaps the segments' resident pages from this process (Linux:
  // madvise(MADV_DONTNEED)), except in any mapping with private copies of
  // pages (a debugger's breakpoint, a text relocation), whose changes would
  // be lost. Returns the bytes that were resident. A no-op elsewhere.
  std::size_t release() const;

private:
  std::vector<Segment> segments_;
};

} // namespace mpsaudit
