// The byte codec of the result cache's entries (scan/result_cache.h) and of
// the rule-catalog snapshot (scan/catalog_snapshot.h): length-prefixed
// little-endian fields, and keys built from fields that cannot run together.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "scan/result_cache.h"
#include "scan/sha256.h"

namespace mpsaudit::cache_codec {

// A SHA-256 over fields, each prefixed by its length.
class KeyBuilder {
public:
  KeyBuilder &add(std::string_view field) { return begin_field(field.size()).add_to_field(field); }
  KeyBuilder &add(std::uint64_t number) { return add(std::to_string(number)); }
  // A field given in pieces: its size first, then pieces of that many bytes in all.
  KeyBuilder &begin_field(std::uint64_t size) {
    char prefix[8];
    for (int i = 0; i < 8; ++i)
      prefix[i] = static_cast<char>((size >> (8 * i)) & 0xff);
    hash_.update(std::string_view(prefix, sizeof prefix));
    return *this;
  }
  KeyBuilder &add_to_field(std::string_view piece) {
    hash_.update(piece);
    return *this;
  }
  std::string digest() const { return hash_.digest(); }

private:
  Sha256 hash_;
};

class Writer {
public:
  void u8(std::uint8_t value) { out.push_back(static_cast<char>(value)); }
  void u32(std::uint32_t value) {
    for (int i = 0; i < 4; ++i)
      out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  void u64(std::uint64_t value) {
    for (int i = 0; i < 8; ++i)
      out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  void str(std::string_view text) {
    u32(static_cast<std::uint32_t>(text.size()));
    out.append(text);
  }
  std::string out;
};

// Reads what Writer wrote; any read past the end sets `failed` and yields
// zeros, so a truncated payload never reads outside its buffer.
class Reader {
public:
  explicit Reader(std::string_view data) : data_(data) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)[0]); }
  std::uint32_t u32() {
    const std::string_view bytes = take(4);
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i)
      value |= std::uint32_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
    return value;
  }
  std::uint64_t u64() {
    const std::string_view bytes = take(8);
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
      value |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
    return value;
  }
  std::string str() { return std::string(take(u32())); }
  // A count of items each at least `min_bytes` long: never more than remain.
  std::size_t count(std::size_t min_bytes) {
    const std::uint32_t n = u32();
    if (static_cast<std::uint64_t>(n) * min_bytes > data_.size() - position_)
      failed = true;
    return failed ? 0 : n;
  }
  bool at_end() const { return position_ == data_.size(); }
  bool failed = false;

private:
  std::string_view take(std::size_t size) {
    static const char zeros[8] = {};
    if (failed || size > data_.size() - position_) {
      failed = true;
      return std::string_view(zeros, size <= sizeof zeros ? size : 0);
    }
    const std::string_view bytes = data_.substr(position_, size);
    position_ += size;
    return bytes;
  }
  std::string_view data_;
  std::size_t position_ = 0;
};

} // namespace mpsaudit::cache_codec
