// A scratch git repository for the git and discovery tests (tests/unit/workflow,
// tests/unit/scan): real git builds the
// fixtures (indexes, ignore files) that the in-process readers must agree
// with. git runs here on our own temporary repository only, without the
// user's or the system's configuration.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "scratch_tree.h"

namespace mpsaudit::testing {

class ScratchRepository : public ScratchTree {
public:
  ScratchRepository() : ScratchTree("mpsaudit-git") {
    git("init -q");
    git("config user.email lab@example.org");
    git("config user.name Lab");
  }

  // A file whose content does not matter to the test, unless given.
  std::filesystem::path write(const std::string &relative, const std::string &content = "x\n") const {
    return ScratchTree::write(relative, content);
  }

  // Runs git in the repository; REQUIREs success and returns its output.
  std::string git(const std::string &arguments) const {
    const std::string command = "cd '" + root().string() +
                                "' && GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git " + arguments +
                                " 2>/dev/null";
    FILE *pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe);
    std::string output;
    std::array<char, 4096> buffer{};
    std::size_t got;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
      output.append(buffer.data(), got);
    REQUIRE(::pclose(pipe) == 0);
    return output;
  }
};

} // namespace mpsaudit::testing
