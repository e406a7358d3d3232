// A minimal tar reader for torch's oldest checkpoint format (torch.save
// before 0.4 wrote a tar archive of pickles: sys_info, storages, tensors,
// pickle). It reads member headers the way Python's tarfile does for
// torch.load: ustar and v7 headers with their checksum, GNU long names and
// PAX path/size records, and links to other members.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/checkpoint/byte_source.h"

namespace mpsaudit::checkpoint {

struct TarMember {
  std::string name;
  char type = '0'; // '0' file, '1' hard link, '2' symlink, '5' directory, ...
  std::string link;
  std::uint64_t offset = 0; // of its data
  std::uint64_t size = 0;
};

class TarReader {
public:
  explicit TarReader(ByteSource &source) : source_(source) {}

  // True when the source starts with a tar header whose checksum is right:
  // what makes Python's tarfile (and so torch.load) take it for a tar.
  static bool looks_like_tar(ByteSource &source);

  // Reads the member headers up to the end marker (or, as tarfile does, up
  // to the first damaged header). False and error() when none can be read.
  bool open();
  const std::vector<TarMember> &members() const { return members_; }

  // The member whose data torch reads for `name`: the last of that name,
  // with hard and symbolic links inside the archive followed. Null when
  // there is none or a link leads nowhere (then error() says why).
  const TarMember *data_of(const std::string &name);

  const std::string &error() const { return error_; }

private:
  ByteSource &source_;
  std::vector<TarMember> members_;
  std::string error_;
};

} // namespace mpsaudit::checkpoint
