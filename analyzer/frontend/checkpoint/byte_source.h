// Random-access bytes of a checkpoint. A checkpoint can be gigabytes, and the
// reader needs only its index (zip central directory, safetensors header)
// and its pickle, so it reads ranges instead of loading the whole file.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

namespace mpsaudit::checkpoint {

class ByteSource {
public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Reads `length` bytes at `offset` into `out`. False (and `out` untouched
  // or partial) when the range is not entirely inside the source.
  virtual bool read(std::uint64_t offset, std::uint64_t length, std::string &out) = 0;
};

// Bytes already in memory (the scan loaded the file, or a test built it).
class MemorySource final : public ByteSource {
public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t size() const override { return bytes_.size(); }
  bool read(std::uint64_t offset, std::uint64_t length, std::string &out) override;

private:
  std::string_view bytes_;
};

// A file on disk, read range by range.
class FileSource final : public ByteSource {
public:
  explicit FileSource(const std::string &path);
  bool is_open() const { return open_; }
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t offset, std::uint64_t length, std::string &out) override;

private:
  std::ifstream stream_;
  std::uint64_t size_ = 0;
  bool open_ = false;
};

// Little-endian integer decoding from a byte buffer (bounds checked by callers).
std::uint16_t read_u16le(std::string_view bytes, std::size_t at);
std::uint32_t read_u32le(std::string_view bytes, std::size_t at);
std::uint64_t read_u64le(std::string_view bytes, std::size_t at);

} // namespace mpsaudit::checkpoint
