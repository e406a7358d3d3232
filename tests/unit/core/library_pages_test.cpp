#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

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

// zlib, opened for one test and closed after it: present on every Debian
// system, and not linked into this test. `added` is what its dlopen brought in.
struct OpenedZlib {
  LibraryPages added;
  void *handle = nullptr;
  VersionFunction version = nullptr;

  OpenedZlib() {
    const LibraryPages before = LibraryPages::loaded();
    handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    REQUIRE(handle != nullptr);
    added = LibraryPages::added(before, LibraryPages::loaded());
    version = reinterpret_cast<VersionFunction>(dlsym(handle, "zlibVersion"));
    REQUIRE(version != nullptr);
  }
  ~OpenedZlib() { dlclose(handle); }
  OpenedZlib(const OpenedZlib &) = delete;
  OpenedZlib &operator=(const OpenedZlib &) = delete;
};

} // namespace

TEST_CASE("the loaded objects' read-only segments include this program's code", "[library-pages]") {
  const LibraryPages pages = LibraryPages::loaded();
  CHECK(covers(pages, reinterpret_cast<const void *>(&resident_kib_at)));
  CHECK(LibraryPages::added(pages, pages).segments().empty());
}

TEST_CASE("what one dlopen brought in is released, and faults in again when used", "[library-pages]") {
  REQUIRE(dlopen("libz.so.1", RTLD_NOW | RTLD_NOLOAD) == nullptr);
  const OpenedZlib zlib;
  const LibraryPages &added = zlib.added;
  const VersionFunction version = zlib.version;
  CHECK(covers(added, reinterpret_cast<const void *>(version)));
  CHECK(!covers(added, reinterpret_cast<const void *>(&resident_kib_at)));
  for (const auto &segment : added.segments())
    CHECK(segment.library.find("libz") != std::string::npos);

  const std::string expected = version(); // its code and its constant are resident now
  REQUIRE(resident_kib_at(reinterpret_cast<const void *>(version)) > 0);
  CHECK(added.release() > 0);
  CHECK(resident_kib_at(reinterpret_cast<const void *>(version)) == 0);
  CHECK(version() == expected); // faulted in again from the file
  CHECK(resident_kib_at(reinterpret_cast<const void *>(version)) > 0);
}

TEST_CASE("a mapping with a private copy of a page keeps it", "[library-pages]") {
  const OpenedZlib zlib;
  // What a debugger's breakpoint does: write into a read-only page through
  // a moment of write permission, which copies the page.
  const auto page_size = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto *text = const_cast<char *>(zlib.version());
  auto *page = reinterpret_cast<char *>(reinterpret_cast<std::uintptr_t>(text) & ~(page_size - 1));
  const char original = page[page_size - 1];
  REQUIRE(mprotect(page, page_size, PROT_READ | PROT_WRITE) == 0);
  page[page_size - 1] = static_cast<char>(original ^ 0x5a);
  REQUIRE(mprotect(page, page_size, PROT_READ) == 0);

  zlib.added.release();
  CHECK(page[page_size - 1] == static_cast<char>(original ^ 0x5a)); // the copy survived

  REQUIRE(mprotect(page, page_size, PROT_READ | PROT_WRITE) == 0);
  page[page_size - 1] = original;
  REQUIRE(mprotect(page, page_size, PROT_READ) == 0);
}
#endif
