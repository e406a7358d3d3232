#include "frontend/checkpoint/byte_source.h"

#include <algorithm>
#include <cstring>

namespace mpsaudit::checkpoint {

bool MemorySource::read(std::uint64_t offset, std::uint64_t length, std::string &out) {
  if (offset > bytes_.size() || length > bytes_.size() - offset)
    return false;
  out.assign(bytes_.data() + offset, static_cast<std::size_t>(length));
  return true;
}

FileSource::FileSource(const std::string &path) : stream_(path, std::ios::binary) {
  if (!stream_)
    return;
  stream_.seekg(0, std::ios::end);
  const auto end = stream_.tellg();
  if (end < 0)
    return;
  size_ = static_cast<std::uint64_t>(end);
  open_ = true;
}

bool FileSource::read(std::uint64_t offset, std::uint64_t length, std::string &out) {
  if (!open_ || offset > size_ || length > size_ - offset)
    return false;
  out.resize(static_cast<std::size_t>(length));
  stream_.clear();
  stream_.seekg(static_cast<std::streamoff>(offset));
  stream_.read(out.data(), static_cast<std::streamsize>(length));
  return static_cast<std::uint64_t>(stream_.gcount()) == length;
}

std::size_t SourceStream::read_some(char *out, std::size_t capacity) {
  if (remaining_ == 0 || capacity == 0)
    return 0;
  const std::uint64_t available = offset_ < source_.size() ? source_.size() - offset_ : 0;
  const std::uint64_t length = std::min<std::uint64_t>({capacity, remaining_, available});
  if (length == 0 || !source_.read(offset_, length, chunk_)) {
    error_ = "it runs past the end of the file (" + std::to_string(remaining_) + " bytes missing)";
    remaining_ = 0;
    return 0;
  }
  std::memcpy(out, chunk_.data(), chunk_.size());
  offset_ += length;
  remaining_ -= length;
  return static_cast<std::size_t>(length);
}

std::uint16_t read_u16le(std::string_view bytes, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[at]) |
                                    (static_cast<unsigned char>(bytes[at + 1]) << 8));
}

std::uint32_t read_u32le(std::string_view bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return value;
}

std::uint64_t read_u64le(std::string_view bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return value;
}

} // namespace mpsaudit::checkpoint
