// A minimal zip reader for torch checkpoints: the central directory (with
// ZIP64), and entries that are stored or deflated. torch.save writes stored
// entries; deflate is read because re-zipped checkpoints exist in the wild.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/checkpoint/byte_source.h"

namespace mpsaudit::checkpoint {

struct ZipEntry {
  std::string name;
  std::uint16_t method = 0; // 0 stored, 8 deflate
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
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

  const std::string &error() const { return error_; }

private:
  bool fail(std::string message);
  ByteSource &source_;
  std::vector<ZipEntry> entries_;
  std::string error_;
};

} // namespace mpsaudit::checkpoint
