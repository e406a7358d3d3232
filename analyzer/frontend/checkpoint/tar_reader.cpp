#include "frontend/checkpoint/tar_reader.h"

#include <optional>
#include <string_view>

namespace mpsaudit::checkpoint {
namespace {

constexpr std::uint64_t kBlock = 512;
constexpr std::size_t kMaxMembers = 100000;
constexpr std::uint64_t kMaxExtendedHeader = 1u << 20;
constexpr int kMaxLinkHops = 8;

// A NUL-terminated header field.
std::string field(std::string_view block, std::size_t at, std::size_t length) {
  const std::string_view raw = block.substr(at, length);
  return std::string(raw.substr(0, raw.find('\0')));
}

// A numeric header field as tarfile's nti() reads it: octal text (spaces
// and NULs around it), or GNU base-256 when the first byte is 0x80 or 0xff.
std::optional<std::uint64_t> number(std::string_view block, std::size_t at, std::size_t length) {
  const auto first = static_cast<unsigned char>(block[at]);
  if (first == 0x80 || first == 0xff) {
    if (first == 0xff)
      return std::nullopt; // negative
    std::uint64_t value = 0;
    for (std::size_t i = 1; i < length; ++i) {
      if (value >> 56)
        return std::nullopt;
      value = (value << 8) | static_cast<unsigned char>(block[at + i]);
    }
    return value;
  }
  std::string text = field(block, at, length);
  const auto begin = text.find_first_not_of(' ');
  if (begin == std::string::npos)
    return 0;
  text = text.substr(begin, text.find_last_not_of(' ') - begin + 1);
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '7' || value >> 60)
      return std::nullopt;
    value = value * 8 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

// tarfile accepts the checksum summed over unsigned or signed bytes.
bool checksum_matches(std::string_view block) {
  const auto recorded = number(block, 148, 8);
  if (!recorded)
    return false;
  std::int64_t unsigned_sum = 8 * ' ';
  std::int64_t signed_sum = 8 * ' ';
  for (std::size_t i = 0; i < kBlock; ++i) {
    if (i >= 148 && i < 156)
      continue;
    unsigned_sum += static_cast<unsigned char>(block[i]);
    signed_sum += static_cast<signed char>(block[i]);
  }
  return static_cast<std::int64_t>(*recorded) == unsigned_sum ||
         static_cast<std::int64_t>(*recorded) == signed_sum;
}

bool all_zero(std::string_view block) {
  return block.find_first_not_of('\0') == std::string_view::npos;
}

// "path" and "size" records of a PAX extended header: "LEN key=value\n"...
void read_pax(std::string_view records, std::optional<std::string> &path,
              std::optional<std::uint64_t> &size) {
  while (!records.empty()) {
    const auto space = records.find(' ');
    if (space == std::string_view::npos)
      return;
    std::uint64_t length = 0;
    for (char c : records.substr(0, space)) {
      if (c < '0' || c > '9' || length > kMaxExtendedHeader)
        return;
      length = length * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (length <= space + 1 || length > records.size())
      return;
    std::string_view record = records.substr(space + 1, length - space - 1);
    if (!record.empty() && record.back() == '\n')
      record.remove_suffix(1);
    const auto equals = record.find('=');
    if (equals != std::string_view::npos) {
      const std::string_view key = record.substr(0, equals);
      const std::string_view value = record.substr(equals + 1);
      if (key == "path")
        path = std::string(value);
      else if (key == "size" && !value.empty() && value.size() <= 18 &&
               value.find_first_not_of("0123456789") == std::string_view::npos)
        size = std::stoull(std::string(value));
    }
    records.remove_prefix(length);
  }
}

bool is_regular(char type) {
  return type == '0' || type == '\0' || type == '7' || type == 'S';
}
bool is_known(char type) {
  return is_regular(type) || (type >= '1' && type <= '6') || type == 'L' || type == 'K';
}

// "dir/../x" -> "x", "./a//b" -> "a/b": what os.path.normpath does to a link target.
std::string normalize(const std::string &path) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at <= path.size()) {
    const auto slash = path.find('/', at);
    const std::string part = path.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
    if (part == "..") {
      if (!parts.empty())
        parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    if (slash == std::string::npos)
      break;
    at = slash + 1;
  }
  std::string out;
  for (const auto &part : parts)
    out += (out.empty() ? "" : "/") + part;
  return out;
}

} // namespace

bool TarReader::looks_like_tar(ByteSource &source) {
  std::string block;
  return source.size() >= kBlock && source.read(0, kBlock, block) && !all_zero(block) &&
         checksum_matches(block);
}

bool TarReader::open() {
  std::uint64_t at = 0;
  std::optional<std::string> long_name;
  std::optional<std::string> pax_path;
  std::optional<std::uint64_t> pax_size;
  std::optional<std::string> global_path;
  std::optional<std::uint64_t> global_size;
  std::string block;
  while (members_.size() < kMaxMembers && source_.read(at, kBlock, block)) {
    if (all_zero(block) || !checksum_matches(block))
      break; // tarfile ends the archive at an end marker or a damaged header
    TarMember member;
    member.type = block[156];
    member.name = field(block, 0, 100);
    member.link = field(block, 157, 100);
    const auto size = number(block, 124, 12);
    if (!size)
      break;
    member.size = *size;
    member.offset = at + kBlock;
    const std::string magic = field(block, 257, 6);
    const std::string prefix = field(block, 345, 155);
    if (magic == "ustar" && !prefix.empty() && member.type != 'L' && member.type != 'K' && member.type != 'S')
      member.name = prefix + "/" + member.name;

    if (member.type == 'L' || member.type == 'K' || member.type == 'x' || member.type == 'g') {
      if (member.size > kMaxExtendedHeader || !source_.read(member.offset, member.size, block))
        break;
      if (member.type == 'L')
        long_name = field(block, 0, block.size());
      else if (member.type == 'x')
        read_pax(block, pax_path, pax_size);
      else if (member.type == 'g')
        read_pax(block, global_path, global_size);
      at = member.offset + (member.size + kBlock - 1) / kBlock * kBlock;
      continue;
    }
    if (long_name)
      member.name = *long_name;
    if (pax_path || global_path)
      member.name = pax_path ? *pax_path : *global_path;
    if (pax_size || global_size)
      member.size = pax_size ? *pax_size : *global_size;
    long_name.reset();
    pax_path.reset();
    pax_size.reset();
    if (member.type == '\0' && !member.name.empty() && member.name.back() == '/')
      member.type = '5';
    if (member.type == '5')
      while (!member.name.empty() && member.name.back() == '/')
        member.name.pop_back();
    // tarfile skips the data of regular and unknown members only.
    const std::uint64_t data = is_regular(member.type) || !is_known(member.type) ? member.size : 0;
    if (data > source_.size() - std::min(source_.size(), member.offset))
      member.size = source_.size() - std::min(source_.size(), member.offset); // truncated archive
    members_.push_back(member);
    at = member.offset + (data + kBlock - 1) / kBlock * kBlock;
  }
  if (members_.empty())
    error_ = "no member header could be read";
  return !members_.empty();
}

const TarMember *TarReader::data_of(const std::string &name) {
  std::string wanted = name;
  std::size_t before = members_.size(); // hard links look only at earlier members
  for (int hop = 0; hop <= kMaxLinkHops; ++hop) {
    const TarMember *found = nullptr;
    for (std::size_t i = before; i-- > 0;)
      if (members_[i].name == wanted || normalize(members_[i].name) == wanted) {
        found = &members_[i];
        before = i;
        break;
      }
    if (!found) {
      if (hop > 0)
        error_ = "member " + name + " links to " + wanted + ", which the archive does not hold";
      return nullptr;
    }
    if (found->type != '1' && found->type != '2')
      return found;
    if (found->type == '2') {
      const auto slash = found->name.rfind('/');
      const std::string folder = slash == std::string::npos ? "" : found->name.substr(0, slash);
      wanted = normalize(folder.empty() ? found->link : folder + "/" + found->link);
      before = members_.size();
    } else {
      wanted = normalize(found->link);
    }
  }
  error_ = "member " + name + " is a chain of more than " + std::to_string(kMaxLinkHops) + " links";
  return nullptr;
}

} // namespace mpsaudit::checkpoint
