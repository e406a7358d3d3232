// libFuzzer target: the git index reader (workflow/git_repository.h). A
// scanned repository's .git/index is attacker-controlled: any bytes must be
// refused with a reason or read, never read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "workflow/git_repository.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char *>(data), size);
  for (const std::size_t hash_bytes : {std::size_t{20}, std::size_t{32}}) {
    mpsaudit::GitIndex index;
    std::string error;
    if (!mpsaudit::parse_git_index(input, hash_bytes, index, error) && error.empty())
      __builtin_trap(); // a refusal always says why
  }
  return 0;
}
