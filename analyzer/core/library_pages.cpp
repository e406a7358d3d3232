#include "core/library_pages.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#if defined(__linux__)
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace mpsaudit {
namespace {

#if defined(__linux__)

std::uintptr_t page_size() {
  static const auto size = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  return size;
}

int add_read_only_segments(dl_phdr_info *info, std::size_t, void *data) {
  auto &segments = *static_cast<std::vector<LibraryPages::Segment> *>(data);
  const std::uintptr_t page = page_size();
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &header = info->dlpi_phdr[i];
    if (header.p_type != PT_LOAD || (header.p_flags & PF_W) || header.p_memsz == 0)
      continue;
    const std::uintptr_t start = info->dlpi_addr + header.p_vaddr;
    segments.push_back({info->dlpi_name ? info->dlpi_name : "", start & ~(page - 1),
                        (start + header.p_memsz + page - 1) & ~(page - 1)});
  }
  return 0;
}

// One mapping of /proc/self/smaps, with what release() asks of it.
struct Mapping {
  std::uintptr_t begin = 0, end = 0;
  bool writable = true;
  std::size_t resident_kib = 0;
  std::size_t private_copies_kib = 0; // "Anonymous": pages copied on write
};

std::vector<Mapping> read_mappings() {
  std::vector<Mapping> mappings;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  while (std::getline(smaps, line)) {
    unsigned long begin = 0, end = 0;
    char permissions[5] = {};
    if (std::sscanf(line.c_str(), "%lx-%lx %4s", &begin, &end, permissions) == 3) {
      mappings.push_back({begin, end, permissions[1] == 'w', 0, 0});
      continue;
    }
    if (mappings.empty())
      continue;
    std::size_t kib = 0;
    if (std::sscanf(line.c_str(), "Rss: %zu kB", &kib) == 1)
      mappings.back().resident_kib = kib;
    else if (std::sscanf(line.c_str(), "Anonymous: %zu kB", &kib) == 1)
      mappings.back().private_copies_kib = kib;
  }
  return mappings;
}

#endif

} // namespace

LibraryPages LibraryPages::loaded() {
  LibraryPages pages;
#if defined(__linux__)
  dl_iterate_phdr(add_read_only_segments, &pages.segments_);
#endif
  return pages;
}

LibraryPages LibraryPages::added(const LibraryPages &before, const LibraryPages &after) {
  LibraryPages pages;
  for (const Segment &segment : after.segments_) {
    const bool known = std::any_of(before.segments_.begin(), before.segments_.end(), [&](const Segment &old) {
      return old.begin == segment.begin && old.end == segment.end && old.library == segment.library;
    });
    if (!known)
      pages.segments_.push_back(segment);
  }
  return pages;
}

std::size_t LibraryPages::release() const {
  std::size_t released_kib = 0;
#if defined(__linux__)
  if (segments_.empty())
    return 0;
  for (const Mapping &mapping : read_mappings()) {
    if (mapping.writable || mapping.private_copies_kib > 0 || mapping.resident_kib == 0)
      continue;
    for (const Segment &segment : segments_) {
      const std::uintptr_t begin = std::max(segment.begin, mapping.begin);
      const std::uintptr_t end = std::min(segment.end, mapping.end);
      if (begin >= end)
        continue;
      if (madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED) == 0)
        released_kib += mapping.resident_kib * (end - begin) / (mapping.end - mapping.begin);
    }
  }
#endif
  return released_kib * 1024;
}

} // namespace mpsaudit
