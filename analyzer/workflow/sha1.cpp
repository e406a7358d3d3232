#include "workflow/sha1.h"

namespace mpsaudit {
namespace {

std::uint32_t rotate_left(std::uint32_t value, int bits) {
  return (value << bits) | (value >> (32 - bits));
}

} // namespace

Sha1::Sha1() : state_{0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u} {}

void Sha1::block(const unsigned char *data) {
  std::uint32_t w[80];
  for (int i = 0; i < 16; ++i)
    w[i] = (std::uint32_t{data[4 * i]} << 24) | (std::uint32_t{data[4 * i + 1]} << 16) |
           (std::uint32_t{data[4 * i + 2]} << 8) | std::uint32_t{data[4 * i + 3]};
  for (int i = 16; i < 80; ++i)
    w[i] = rotate_left(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3], e = state_[4];
  for (int i = 0; i < 80; ++i) {
    std::uint32_t f, k;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999u;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1u;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDCu;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6u;
    }
    const std::uint32_t next = rotate_left(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = rotate_left(b, 30);
    b = a;
    a = next;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
}

void Sha1::update(std::string_view bytes) {
  length_ += bytes.size();
  const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
  std::size_t size = bytes.size();
  while (size > 0) {
    if (buffered_ == 0 && size >= 64) {
      block(data);
      data += 64;
      size -= 64;
      continue;
    }
    const std::size_t take = std::min(size, 64 - buffered_);
    std::copy(data, data + take, buffer_.begin() + static_cast<std::ptrdiff_t>(buffered_));
    buffered_ += take;
    data += take;
    size -= take;
    if (buffered_ == 64) {
      block(buffer_.data());
      buffered_ = 0;
    }
  }
}

std::string Sha1::finish() {
  const std::uint64_t bits = length_ * 8;
  update(std::string_view("\x80", 1));
  while (buffered_ != 56)
    update(std::string_view("\0", 1));
  unsigned char tail[8];
  for (int i = 0; i < 8; ++i)
    tail[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  update(std::string_view(reinterpret_cast<const char *>(tail), 8));
  std::string digest(20, '\0');
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j)
      digest[static_cast<std::size_t>(4 * i + j)] =
          static_cast<char>(state_[static_cast<std::size_t>(i)] >> (24 - 8 * j));
  return digest;
}

} // namespace mpsaudit
