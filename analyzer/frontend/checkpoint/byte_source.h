// Random-access bytes of a checkpoint. A checkpoint can be gigabytes, and the
// reader needs only its index (zip central directory, safetensors header)
// and its pickle, so it reads ranges instead of loading the whole file.
#pragma once

#include <cstddef>
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

// A forward-only stream of bytes: a range of a ByteSource, or a zip entry
// being inflated. The pickle reader scans a stream chunk by chunk, so a
// pickle of any length costs it fixed memory.
class ByteStream {
public:
  virtual ~ByteStream() = default;
  // Copies up to `capacity` bytes into `out` and returns how many; 0 once
  // the stream has ended (or failed: see error()).
  virtual std::size_t read_some(char *out, std::size_t capacity) = 0;
  // Why the stream ended before its announced length ("" when it did not).
  virtual std::string error() const { return {}; }
};

// `length` bytes of `source` from `offset`. When the source is shorter than
// that, the stream ends where the source does and error() says so.
class SourceStream final : public ByteStream {
public:
  SourceStream(ByteSource &source, std::uint64_t offset, std::uint64_t length)
      : source_(source), offset_(offset), remaining_(length) {}
  std::size_t read_some(char *out, std::size_t capacity) override;
  std::string error() const override { return error_; }

private:
  ByteSource &source_;
  std::uint64_t offset_;
  std::uint64_t remaining_;
  std::string chunk_;
  std::string error_;
};

// Little-endian integer decoding from a byte buffer (bounds checked by callers).
std::uint16_t read_u16le(std::string_view bytes, std::size_t at);
std::uint32_t read_u32le(std::string_view bytes, std::size_t at);
std::uint64_t read_u64le(std::string_view bytes, std::size_t at);

} // namespace mpsaudit::checkpoint
