// What the checkpoint tests share: their fixtures, and the reader's summary
// of bytes in memory.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "core/confined_file.h"
#include "frontend/checkpoint/checkpoint_reader.h"

namespace mpsaudit::checkpoint::testing {

inline std::string fixture_path(const std::string &name) {
  return std::string(MPSAUDIT_SOURCE_DIR) + "/tests/unit/checkpoint/fixtures/" + name;
}

inline std::string read_fixture(const std::string &name) {
  const std::optional<std::string> bytes = mpsaudit::read_whole_file(fixture_path(name));
  REQUIRE(bytes);
  return *bytes;
}

inline CheckpointSummary summarize(const std::string &bytes) {
  MemorySource source(bytes);
  return read_checkpoint(source);
}

} // namespace mpsaudit::checkpoint::testing
