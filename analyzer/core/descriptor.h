// A file descriptor that is closed when it goes out of scope: what code that
// walks a hostile tree (or a cache inside one) with openat and O_NOFOLLOW
// holds, one directory at a time.
#pragma once

#include <unistd.h>

#include <utility>

namespace mpsaudit {

class Descriptor {
public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  Descriptor(Descriptor &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor &operator=(Descriptor &&other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  ~Descriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Closes now and reports the error close gives (a delayed write error).
  bool close() { return ::close(std::exchange(fd_, -1)) == 0; }
  // Hands the descriptor to the caller, who closes it.
  int release() { return std::exchange(fd_, -1); }

private:
  int fd_;
};

} // namespace mpsaudit
