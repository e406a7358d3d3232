// SHA-1, for git object ids (a blob's id is the SHA-1 of "blob <size>\0"
// and its content): `--changed-since` compares a work tree file with the
// index without asking git to read it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mpsaudit {

class Sha1 {
public:
  Sha1();
  void update(std::string_view bytes);
  // The 20-byte digest; the object is spent afterwards.
  std::string finish();

private:
  void block(const unsigned char *data);
  std::array<std::uint32_t, 5> state_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;
};

} // namespace mpsaudit
