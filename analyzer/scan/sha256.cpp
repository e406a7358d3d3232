#include "scan/sha256.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace mpsaudit {
namespace {

using State = std::array<std::uint32_t, 8>;

constexpr State kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

alignas(16) constexpr std::array<std::uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotate_right(std::uint32_t value, int bits) {
  return (value >> bits) | (value << (32 - bits));
}

void portable_blocks(State &state, const unsigned char *blocks, std::size_t count) {
  for (; count > 0; --count, blocks += 64) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = (std::uint32_t(blocks[4 * i]) << 24) | (std::uint32_t(blocks[4 * i + 1]) << 16) |
             (std::uint32_t(blocks[4 * i + 2]) << 8) | std::uint32_t(blocks[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    State v = state;
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t s1 = rotate_right(v[4], 6) ^ rotate_right(v[4], 11) ^ rotate_right(v[4], 25);
      const std::uint32_t choice = (v[4] & v[5]) ^ (~v[4] & v[6]);
      const std::uint32_t t1 = v[7] + s1 + choice + kRound[i] + w[i];
      const std::uint32_t s0 = rotate_right(v[0], 2) ^ rotate_right(v[0], 13) ^ rotate_right(v[0], 22);
      const std::uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      for (int j = 7; j > 0; --j)
        v[j] = v[j - 1];
      v[4] += t1;
      v[0] = t1 + s0 + majority;
    }
    for (int i = 0; i < 8; ++i)
      state[i] += v[i];
  }
}

#if defined(__x86_64__)

bool cpu_has_sha_extensions() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    return false;
  const bool sha = (ebx >> 29) & 1U;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    return false;
  const bool ssse3 = (ecx >> 9) & 1U, sse41 = (ecx >> 19) & 1U;
  return sha && ssse3 && sse41;
}

// The SHA extensions keep the state as two vectors, ABEF and CDGH, and run
// two rounds per instruction; the message schedule takes three
// instructions per four words (Intel's "New Instructions Supporting the
// Secure Hash Algorithm on Intel Architecture Processors", 2013).
__attribute__((target("sha,sse4.1,ssse3"))) void cpu_blocks(State &state, const unsigned char *blocks,
                                                            std::size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  const __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[0])), 0xB1);
  __m128i cdgh = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[4])), 0x1B);
  __m128i abef = _mm_alignr_epi8(dcba, cdgh, 8);
  cdgh = _mm_blend_epi16(cdgh, dcba, 0xF0);
  for (; count > 0; --count, blocks += 64) {
    const __m128i abef_before = abef, cdgh_before = cdgh;
    // words[k % 4] holds w[4k .. 4k+3]. The schedule runs ahead of the
    // rounds so that the two overlap: group k finishes group k+1's words
    // (sha256msg2) and starts group k+3's (sha256msg1).
    __m128i words[4];
#pragma GCC unroll 16
    for (int k = 0; k < 16; ++k) {
      if (k < 4)
        words[k] =
            _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(blocks + 16 * k)), byte_swap);
      const __m128i &current = words[k % 4];
      __m128i message =
          _mm_add_epi32(current, _mm_load_si128(reinterpret_cast<const __m128i *>(&kRound[4 * k])));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
      if (k >= 3 && k < 15) {
        __m128i &next = words[(k + 1) % 4];
        next = _mm_add_epi32(next, _mm_alignr_epi8(current, words[(k + 3) % 4], 4));
        next = _mm_sha256msg2_epu32(next, current);
      }
      message = _mm_shuffle_epi32(message, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, message);
      if (k >= 1 && k < 13)
        words[(k + 3) % 4] = _mm_sha256msg1_epu32(words[(k + 3) % 4], current);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[0]), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[4]), _mm_alignr_epi8(dchg, feba, 8));
}

#else

bool cpu_has_sha_extensions() {
  return false;
}

void cpu_blocks(State &state, const unsigned char *blocks, std::size_t count) {
  portable_blocks(state, blocks, count);
}

#endif

using Compress = void (*)(State &, const unsigned char *, std::size_t);

Compress compression(Sha256Rounds rounds) {
  static const bool cpu = cpu_has_sha_extensions();
  return rounds == Sha256Rounds::Best && cpu ? cpu_blocks : portable_blocks;
}

} // namespace

bool sha256_has_cpu_rounds() {
  return cpu_has_sha_extensions();
}

Sha256::Sha256(Sha256Rounds rounds) : state_(kInitialState), rounds_(rounds) {}

Sha256 &Sha256::update(std::string_view data) {
  const Compress compress = compression(rounds_);
  const auto *bytes = reinterpret_cast<const unsigned char *>(data.data());
  std::size_t size = data.size();
  length_ += size;
  if (pending_size_ > 0) {
    const std::size_t taken = std::min(size, pending_.size() - pending_size_);
    std::memcpy(pending_.data() + pending_size_, bytes, taken);
    pending_size_ += taken;
    bytes += taken;
    size -= taken;
    if (pending_size_ < pending_.size())
      return *this;
    compress(state_, pending_.data(), 1);
    pending_size_ = 0;
  }
  const std::size_t whole = size / 64;
  compress(state_, bytes, whole);
  pending_size_ = size - whole * 64;
  if (pending_size_ > 0)
    std::memcpy(pending_.data(), bytes + whole * 64, pending_size_);
  return *this;
}

std::string Sha256::digest() const {
  State state = state_;
  // The padding: 0x80, zeros, then the length in bits, big-endian, in one or two blocks.
  unsigned char tail[128] = {};
  if (pending_size_ > 0)
    std::memcpy(tail, pending_.data(), pending_size_);
  tail[pending_size_] = 0x80;
  const std::size_t tail_blocks = pending_size_ + 9 <= 64 ? 1 : 2;
  const std::uint64_t bits = length_ * 8;
  for (int i = 0; i < 8; ++i)
    tail[tail_blocks * 64 - 1 - i] = static_cast<unsigned char>((bits >> (8 * i)) & 0xff);
  compression(rounds_)(state, tail, tail_blocks);
  std::string digest(32, '\0');
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j)
      digest[4 * i + j] = static_cast<char>((state[i] >> (24 - 8 * j)) & 0xff);
  return digest;
}

std::string sha256_raw(std::string_view data, Sha256Rounds rounds) {
  return Sha256(rounds).update(data).digest();
}

std::string sha256_raw(std::string_view data) {
  return sha256_raw(data, Sha256Rounds::Best);
}

} // namespace mpsaudit
