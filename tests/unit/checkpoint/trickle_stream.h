// A ByteStream that hands out its bytes `step` at a time, so that every
// opcode and argument straddles the reader's chunk boundaries somewhere.
// Shared by the pickle unit tests and the pickle fuzz target.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "frontend/checkpoint/byte_source.h"

namespace mpsaudit::checkpoint::testing {

class TrickleStream final : public ByteStream {
public:
  TrickleStream(std::string_view bytes, std::size_t step) : bytes_(bytes), step_(step) {}
  std::size_t read_some(char *out, std::size_t capacity) override {
    const std::size_t count = std::min({capacity, step_, bytes_.size() - at_});
    bytes_.copy(out, count, at_);
    at_ += count;
    return count;
  }

private:
  std::string bytes_;
  std::size_t step_;
  std::size_t at_ = 0;
};

} // namespace mpsaudit::checkpoint::testing
