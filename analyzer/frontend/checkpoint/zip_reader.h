// A minimal zip reader for torch checkpoints: the central directory (with
// ZIP64), and entries that are stored or deflated. torch.save writes stored
// entries; deflate is read because re-zipped checkpoints exist in the wild.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/checkpoint/byte_source.h"

struct z_stream_s; // zlib.h

namespace mpsaudit::checkpoint {

struct ZipEntry {
  std::string name;
  std::uint16_t method = 0; // 0 stored, 8 deflate
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
};

// One entry's data as a stream: its stored bytes, or inflated on the fly.
// It keeps the CRC-32 and count of what it delivered, so a reader that
// consumed the whole entry can tell whether it was intact.
class ZipEntryStream final : public ByteStream {
public:
  ZipEntryStream(ByteSource &source, const ZipEntry &entry, std::uint64_t data_offset);
  ~ZipEntryStream() override;
  ZipEntryStream(const ZipEntryStream &) = delete;
  ZipEntryStream &operator=(const ZipEntryStream &) = delete;

  std::size_t read_some(char *out, std::size_t capacity) override;
  std::string error() const override { return error_; }
  // "" once the whole entry was delivered with the size and CRC-32 its
  // directory entry records; otherwise what is wrong.
  std::string integrity_problem() const;
  std::uint64_t delivered() const { return delivered_; }

private:
  std::size_t inflate_some(char *out, std::size_t capacity);

  SourceStream compressed_;
  ZipEntry entry_;
  std::unique_ptr<::z_stream_s> zlib_; // deflated entries only
  std::string input_;
  bool finished_ = false;
  std::uint32_t crc_ = 0;
  std::uint64_t delivered_ = 0;
  std::string error_;
};

class ZipReader {
public:
  explicit ZipReader(ByteSource &source) : source_(source) {}

  // True when the source starts with a local file header or is an empty zip.
  static bool looks_like_zip(ByteSource &source);

  // Reads the central directory. On failure returns false and sets error().
  bool open();
  const std::vector<ZipEntry> &entries() const { return entries_; }
  const ZipEntry *find(const std::string &name) const;

  // Reads and, if needed, inflates one entry, refusing entries larger than
  // `max_bytes` uncompressed. Checks the CRC-32. Sets error() on failure.
  std::optional<std::string> read(const ZipEntry &entry, std::uint64_t max_bytes);

  // The entry's data as a stream, however large it claims to be. Null (and
  // error() set) when its local header is missing or its compression unknown.
  std::unique_ptr<ZipEntryStream> stream(const ZipEntry &entry);

  const std::string &error() const { return error_; }

private:
  bool fail(std::string message);
  ByteSource &source_;
  std::vector<ZipEntry> entries_;
  std::string error_;
};

} // namespace mpsaudit::checkpoint
