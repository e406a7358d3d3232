#include "core/free_memory.h"

#include <cstddef>

#include <dlfcn.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace mpsaudit {

void return_free_memory() {
  using Mallctl = int (*)(const char *, void *, std::size_t *, void *, std::size_t);
  // Looked up at run time: the binary may link jemalloc (analyzer/cli), the
  // libraries and tests do not.
  static const auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl) {
    // 4096 is MALLCTL_ARENAS_ALL: every arena at once.
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

} // namespace mpsaudit
