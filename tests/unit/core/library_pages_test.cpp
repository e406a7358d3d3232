#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#if defined(__linux__)
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "core/library_pages.h"

using namespace mpsaudit;

#if defined(__linux__)
namespace {

bool covers(const LibraryPages &pages, const void *address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  return std::any_of(
      pages.segments().begin(), pages.segments().end(),
      [&](const LibraryPages::Segment &segment) { return segment.begin <= at && at < segment.end; });
}

// Resident KiB of the mapping that holds `address` (/proc/self/smaps).
std::size_t resident_kib_at(const void *address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 && line.find(" kB") == std::string::npos) {
      inside = begin <= at && at < end;
      continue;
    }
    std::size_t kib = 0;
    if (inside && std::sscanf(line.c_str(), "Rss: %zu kB", &kib) == 1)
      return kib;
  }
  return 0;
}

using VersionFunction = const char *(*)();

// A small library that this process has not loaded yet, opened for one
// test and closed after it, and a function of it that returns a constant
// string. The candidates are present on every Debian system; a sanitizer's
// runtime may already have loaded one of them.
struct OpenedLibrary {
  std::string name; // the soname opened
  LibraryPages added;
  void *handle = nullptr;
  VersionFunction version = nullptr;

  OpenedLibrary() {
    static constexpr std::array<std::pair<const char *, const char *>, 4> kCandidates{{
        {"libz.so.1", "zlibVersion"},
        {"liblzma.so.5", "lzma_version_string"},
        {"libbz2.so.1.0", "BZ2_bzlibVersion"},
        {"libexpat.so.1", "XML_ExpatVersion"},
    }};
    for (const auto &[library, function] : kCandidates) {
      if (void *already = dlopen(library, RTLD_NOW | RTLD_NOLOAD)) {
        dlclose(already);
        continue;
      }
      const LibraryPages before = LibraryPages::loaded();
      handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
      if (!handle)
        continue;
      added = LibraryPages::added(before, LibraryPages::loaded());
      version = reinterpret_cast<VersionFunction>(dlsym(handle, function));
      name = library;
      break;
    }
    REQUIRE(handle != nullptr);
    REQUIRE(version != nullptr);
  }
  ~OpenedLibrary() { dlclose(handle); }
  OpenedLibrary(const OpenedLibrary &) = delete;
  OpenedLibrary &operator=(const OpenedLibrary &) = delete;
};

} // namespace

TEST_CASE("the loaded objects' read-only segments include this program's code", "[library-pages]") {
  const LibraryPages pages = LibraryPages::loaded();
  CHECK(covers(pages, reinterpret_cast<const void *>(&resident_kib_at)));
  CHECK(LibraryPages::added(pages, pages).segments().empty());
}

TEST_CASE("what one dlopen brought in is released, and faults in again when used", "[library-pages]") {
  const OpenedLibrary library;
  const LibraryPages &added = library.added;
  const VersionFunction version = library.version;
  CHECK(covers(added, reinterpret_cast<const void *>(version)));
  CHECK(!covers(added, reinterpret_cast<const void *>(&resident_kib_at)));
  for (const auto &segment : added.segments())
    CHECK(segment.library.find(library.name.substr(0, library.name.find('.'))) != std::string::npos);

  const std::string expected = version(); // its code and its constant are resident now
  REQUIRE(resident_kib_at(reinterpret_cast<const void *>(version)) > 0);
  CHECK(added.release() > 0);
  CHECK(resident_kib_at(reinterpret_cast<const void *>(version)) == 0);
  CHECK(version() == expected); // faulted in again from the file
  CHECK(resident_kib_at(reinterpret_cast<const void *>(version)) > 0);
}

TEST_CASE("a mapping with a private copy of a page keeps it", "[library-pages]") {
  const OpenedLibrary library;
  // What a debugger's breakpoint does: write into a read-only page through
  // a moment of write permission, which copies the page.
  const auto page_size = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto *text = const_cast<char *>(library.version());
  auto *page = reinterpret_cast<char *>(reinterpret_cast<std::uintptr_t>(text) & ~(page_size - 1));
  const char original = page[page_size - 1];
  REQUIRE(mprotect(page, page_size, PROT_READ | PROT_WRITE) == 0);
  page[page_size - 1] = static_cast<char>(original ^ 0x5a);
  REQUIRE(mprotect(page, page_size, PROT_READ) == 0);

  library.added.release();
  CHECK(page[page_size - 1] == static_cast<char>(original ^ 0x5a)); // the copy survived

  REQUIRE(mprotect(page, page_size, PROT_READ | PROT_WRITE) == 0);
  page[page_size - 1] = original;
  REQUIRE(mprotect(page, page_size, PROT_READ) == 0);
}
#endif
