// FNV-1a, 64 bits: a fast, stable hash for fingerprints that need no
// resistance to forgery (baseline entries, result-cache checksums).
#pragma once

#include <cstdint>
#include <string_view>

namespace mpsaudit {

inline std::uint64_t fnv1a(std::string_view data) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char byte : data) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

} // namespace mpsaudit
