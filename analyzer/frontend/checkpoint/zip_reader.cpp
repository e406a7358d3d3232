#include "frontend/checkpoint/zip_reader.h"

#include <algorithm>
#include <zlib.h>

namespace mpsaudit::checkpoint {
namespace {

constexpr std::uint32_t kLocalHeader = 0x04034b50;
constexpr std::uint32_t kCentralHeader = 0x02014b50;
constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64End = 0x06064b50;
constexpr std::uint64_t kMaxCentralDirectory = 256ull << 20;
constexpr std::uint64_t kMaxEntries = 1u << 20;

} // namespace

bool ZipReader::fail(std::string message) {
  error_ = std::move(message);
  return false;
}

bool ZipReader::looks_like_zip(ByteSource &source) {
  std::string head;
  if (!source.read(0, 4, head))
    return false;
  const std::uint32_t signature = read_u32le(head, 0);
  return signature == kLocalHeader || signature == kEndOfCentralDirectory;
}

bool ZipReader::open() {
  const std::uint64_t size = source_.size();
  if (size < 22)
    return fail("too small to be a zip archive (" + std::to_string(size) + " bytes)");
  // The end record sits in the last 22 + 65535 (comment) bytes.
  const std::uint64_t tail_length = std::min<std::uint64_t>(size, 22 + 65535);
  std::string tail;
  if (!source_.read(size - tail_length, tail_length, tail))
    return fail("could not read the end of the archive");
  std::size_t end_at = std::string::npos;
  for (std::size_t i = tail.size() - 22 + 1; i-- > 0;)
    if (read_u32le(tail, i) == kEndOfCentralDirectory) {
      end_at = i;
      break;
    }
  if (end_at == std::string::npos)
    return fail("no end-of-central-directory record: the zip is truncated or not a zip");
  const std::uint64_t end_offset = size - tail_length + end_at;

  std::uint64_t entry_count = read_u16le(tail, end_at + 10);
  std::uint64_t directory_size = read_u32le(tail, end_at + 12);
  std::uint64_t directory_offset = read_u32le(tail, end_at + 16);

  // ZIP64: a locator 20 bytes before the end record points at the real values.
  if (end_offset >= 20) {
    std::string locator;
    if (source_.read(end_offset - 20, 20, locator) && read_u32le(locator, 0) == kZip64Locator) {
      const std::uint64_t record_offset = read_u64le(locator, 8);
      std::string record;
      if (!source_.read(record_offset, 56, record) || read_u32le(record, 0) != kZip64End)
        return fail("ZIP64 end record missing or outside the file");
      entry_count = read_u64le(record, 32);
      directory_size = read_u64le(record, 40);
      directory_offset = read_u64le(record, 48);
    }
  }
  if (entry_count > kMaxEntries)
    return fail("implausible entry count " + std::to_string(entry_count));
  if (directory_size > kMaxCentralDirectory || directory_offset > size ||
      directory_size > size - directory_offset)
    return fail("central directory lies outside the file: the zip is truncated");

  std::string directory;
  if (!source_.read(directory_offset, directory_size, directory))
    return fail("could not read the central directory");
  std::size_t at = 0;
  for (std::uint64_t index = 0; index < entry_count; ++index) {
    if (at + 46 > directory.size() || read_u32le(directory, at) != kCentralHeader)
      return fail("central directory entry " + std::to_string(index) + " is damaged");
    ZipEntry entry;
    entry.method = read_u16le(directory, at + 10);
    entry.crc32 = read_u32le(directory, at + 16);
    entry.compressed_size = read_u32le(directory, at + 20);
    entry.uncompressed_size = read_u32le(directory, at + 24);
    const std::size_t name_length = read_u16le(directory, at + 28);
    const std::size_t extra_length = read_u16le(directory, at + 30);
    const std::size_t comment_length = read_u16le(directory, at + 32);
    entry.local_header_offset = read_u32le(directory, at + 42);
    const std::size_t variable = name_length + extra_length + comment_length;
    if (at + 46 + variable > directory.size())
      return fail("central directory entry " + std::to_string(index) + " runs past its end");
    entry.name = directory.substr(at + 46, name_length);
    // ZIP64 extra field: 64-bit values for those fields saturated at 0xFFFFFFFF.
    std::size_t extra = at + 46 + name_length;
    const std::size_t extra_end = extra + extra_length;
    while (extra + 4 <= extra_end) {
      const std::uint16_t id = read_u16le(directory, extra);
      const std::uint16_t length = read_u16le(directory, extra + 2);
      if (extra + 4 + length > extra_end)
        break;
      if (id == 0x0001) {
        std::size_t field = extra + 4;
        const auto take = [&](std::uint64_t &value) {
          if (value == 0xFFFFFFFFu && field + 8 <= extra + 4 + length) {
            value = read_u64le(directory, field);
            field += 8;
          }
        };
        take(entry.uncompressed_size);
        take(entry.compressed_size);
        take(entry.local_header_offset);
      }
      extra += 4 + length;
    }
    entries_.push_back(std::move(entry));
    at += 46 + variable;
  }
  return true;
}

const ZipEntry *ZipReader::find(const std::string &name) const {
  for (const auto &entry : entries_)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

std::unique_ptr<ZipEntryStream> ZipReader::stream(const ZipEntry &entry) {
  std::string header;
  if (!source_.read(entry.local_header_offset, 30, header) || read_u32le(header, 0) != kLocalHeader) {
    fail("local header of " + entry.name + " is missing: the zip is truncated or damaged");
    return nullptr;
  }
  if (entry.method != 0 && entry.method != 8) {
    fail(entry.name + " uses unsupported compression method " + std::to_string(entry.method));
    return nullptr;
  }
  const std::uint64_t data_offset =
      entry.local_header_offset + 30 + read_u16le(header, 26) + read_u16le(header, 28);
  return std::make_unique<ZipEntryStream>(source_, entry, data_offset);
}

std::optional<std::string> ZipReader::read(const ZipEntry &entry, std::uint64_t max_bytes) {
  if (entry.uncompressed_size > max_bytes) {
    fail(entry.name + " is " + std::to_string(entry.uncompressed_size) + " bytes, over the limit of " +
         std::to_string(max_bytes));
    return std::nullopt;
  }
  const auto data_stream = stream(entry);
  if (!data_stream)
    return std::nullopt;
  std::string data(static_cast<std::size_t>(entry.uncompressed_size) + 1, '\0');
  std::size_t filled = 0;
  // One byte of room past the recorded size shows an entry that holds more.
  while (filled < data.size()) {
    const std::size_t got = data_stream->read_some(data.data() + filled, data.size() - filled);
    if (got == 0)
      break;
    filled += got;
  }
  data.resize(filled);
  if (const std::string problem = data_stream->integrity_problem(); !problem.empty()) {
    fail(problem);
    return std::nullopt;
  }
  return data;
}

ZipEntryStream::ZipEntryStream(ByteSource &source, const ZipEntry &entry, std::uint64_t data_offset)
    : compressed_(source, data_offset, entry.compressed_size), entry_(entry) {
  crc_ = static_cast<std::uint32_t>(::crc32(0L, Z_NULL, 0));
  if (entry.method != 8)
    return;
  zlib_ = std::make_unique<z_stream_s>();
  if (inflateInit2(zlib_.get(), -MAX_WBITS) != Z_OK) {
    error_ = "zlib could not start inflating " + entry.name;
    zlib_.reset();
  }
}

ZipEntryStream::~ZipEntryStream() {
  if (zlib_)
    inflateEnd(zlib_.get());
}

std::size_t ZipEntryStream::read_some(char *out, std::size_t capacity) {
  if (!error_.empty() || finished_)
    return 0;
  const std::size_t got =
      entry_.method == 8 ? inflate_some(out, capacity) : compressed_.read_some(out, capacity);
  if (entry_.method != 8 && got == 0) {
    finished_ = true;
    if (!compressed_.error().empty())
      error_ = "data of " + entry_.name + " runs past the end of the file: the zip is truncated";
  }
  crc_ =
      static_cast<std::uint32_t>(::crc32(crc_, reinterpret_cast<const Bytef *>(out), static_cast<uInt>(got)));
  delivered_ += got;
  return got;
}

std::size_t ZipEntryStream::inflate_some(char *out, std::size_t capacity) {
  constexpr std::size_t kInputChunk = 64 * 1024;
  if (!zlib_)
    return 0;
  zlib_->next_out = reinterpret_cast<Bytef *>(out);
  zlib_->avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 0x40000000u));
  const uInt room = zlib_->avail_out;
  while (zlib_->avail_out == room) {
    if (zlib_->avail_in == 0) {
      input_.resize(kInputChunk);
      const std::size_t got = compressed_.read_some(input_.data(), input_.size());
      if (got == 0) {
        error_ = "deflated data of " + entry_.name + " ends early: the zip is truncated or damaged";
        break;
      }
      zlib_->next_in = reinterpret_cast<Bytef *>(input_.data());
      zlib_->avail_in = static_cast<uInt>(got);
    }
    const int status = inflate(zlib_.get(), Z_NO_FLUSH);
    if (status == Z_STREAM_END) {
      finished_ = true;
      break;
    }
    // Z_BUF_ERROR with input left means inflate cannot move: the data is bad.
    if ((status != Z_OK && status != Z_BUF_ERROR) || (status == Z_BUF_ERROR && zlib_->avail_in != 0)) {
      error_ = "deflated data of " + entry_.name + " is damaged";
      break;
    }
  }
  return room - zlib_->avail_out;
}

std::string ZipEntryStream::integrity_problem() const {
  if (!error_.empty())
    return error_;
  if (!finished_)
    return entry_.name + " was not read to its end";
  if (delivered_ != entry_.uncompressed_size)
    return entry_.name + " holds " + std::to_string(delivered_) + " bytes where its directory entry says " +
           std::to_string(entry_.uncompressed_size) + ": the zip is damaged";
  if (crc_ != entry_.crc32)
    return "CRC-32 of " + entry_.name + " does not match: the data is damaged";
  return {};
}

} // namespace mpsaudit::checkpoint
