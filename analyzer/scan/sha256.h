// SHA-256 (FIPS 180-4) of the result cache's keys. The x86 SHA extensions
// are used where the CPU has them: a warm scan hashes every file of the tree,
// and the portable rounds were a quarter of such a scan. It is our own code
// rather than a crypto library's because loading one (relocating it and
// initialising it) cost a scan process about 1.5 ms, a tenth of a warm scan
// of a small tree (docs/performance.md).
#pragma once

#include <string>
#include <string_view>

namespace mpsaudit {

// The 32-byte digest.
std::string sha256_raw(std::string_view data);

// Which implementation of the compression function runs; the tests compare
// them on the same inputs.
enum class Sha256Rounds { Best, Portable };
std::string sha256_raw(std::string_view data, Sha256Rounds rounds);
// Whether this CPU has the SHA extensions (Best uses them).
bool sha256_has_cpu_rounds();

} // namespace mpsaudit
