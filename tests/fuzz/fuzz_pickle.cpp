// libFuzzer target: the restricted pickle reader alone, for every protocol
// (seeds: tests/fuzz/seeds/pickle, protocols 0-5, benign and hostile). Small
// limits make the memory bound, the input bound and the cap on recorded
// callables reachable. Each input is read twice, whole and trickled through
// a stream a few bytes at a time: both reads must end at the same offset
// with the same callables, or chunk boundaries hide something. Then the
// checkpoint reader reads the same bytes as a file. Any crash, sanitizer
// report or difference is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "../unit/checkpoint/trickle_stream.h"
#include "frontend/checkpoint/checkpoint_reader.h"
#include "frontend/checkpoint/pickle_reader.h"

using namespace mpsaudit::checkpoint;
using mpsaudit::checkpoint::testing::TrickleStream;

namespace {

bool same_callables(const PickleResult &left, const PickleResult &right) {
  if (left.globals.size() != right.globals.size() || left.globals_not_kept != right.globals_not_kept)
    return false;
  for (std::size_t i = 0; i < left.globals.size(); ++i)
    if (left.globals[i].module != right.globals[i].module || left.globals[i].name != right.globals[i].name ||
        left.globals[i].form != right.globals[i].form || left.globals[i].offset != right.globals[i].offset)
      return false;
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char *>(data), size);
  PickleLimits limits;
  limits.max_memory_bytes = 256 * 1024;
  limits.max_input_bytes = 64 * 1024;
  limits.max_kept_string = 256;
  limits.max_globals = 16;
  const PickleResult whole = parse_pickle(bytes, 0, limits);
  TrickleStream trickle(bytes, size == 0 ? 1 : 1 + data[size - 1] % 7);
  const PickleResult trickled = parse_pickle(trickle, 0, limits);
  if (whole.stopped != trickled.stopped || whole.end_offset != trickled.end_offset ||
      whole.memory_limit_hit != trickled.memory_limit_hit ||
      whole.input_limit_hit != trickled.input_limit_hit || !same_callables(whole, trickled))
    __builtin_trap();
  MemorySource source(bytes);
  (void)checkpoint_facts(read_checkpoint(source), "fuzz-input");
  return 0;
}
