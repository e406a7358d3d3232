// SHA-256 (FIPS 180-4) of the result cache's keys. The x86 SHA extensions
// are used where the CPU has them: a warm scan hashes every file of the tree,
// and the portable rounds were a quarter of such a scan. It is our own code
// rather than a crypto library's because loading one (relocating it and
// initialising it) cost a scan process about 1.5 ms, a tenth of a warm scan
// of a small tree (docs/performance.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mpsaudit {

// Which implementation of the compression function runs; the tests compare
// them on the same inputs.
enum class Sha256Rounds { Best, Portable };

// The digest of data given in pieces: what is hashed never has to be in
// memory at once (the rules files behind the bundled catalog's key are
// hashed through one read buffer).
class Sha256 {
public:
  explicit Sha256(Sha256Rounds rounds = Sha256Rounds::Best);
  Sha256 &update(std::string_view data);
  // The 32-byte digest of everything given so far.
  std::string digest() const;

private:
  std::array<std::uint32_t, 8> state_;
  std::array<unsigned char, 64> pending_{};
  std::size_t pending_size_ = 0;
  std::uint64_t length_ = 0;
  Sha256Rounds rounds_;
};

// The 32-byte digest.
std::string sha256_raw(std::string_view data);
std::string sha256_raw(std::string_view data, Sha256Rounds rounds);
// Whether this CPU has the SHA extensions (Best uses them).
bool sha256_has_cpu_rounds();

} // namespace mpsaudit
