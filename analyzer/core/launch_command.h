// A line that launches a program, read the way entry-point discovery needs
// it (assess/entry_points.h): the command word after an optional `$ `
// prompt and environment assignments, the arguments after it, and the
// module of `python -m`. For README commands and notebooks' `!` lines;
// shell scripts have a lexer of their own (frontend/manifest), which also
// handles quoting, keywords and continuations.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/fact.h"

namespace mpsaudit {

struct LaunchCommand {
  std::size_t word_offset = 0; // where the command word starts in the line
  std::string word;            // as written: "./run.sh", "python3"
  std::string name;            // its base name: "run.sh", "python3"
  std::string args;            // the words after it, joined by one space
  std::string module;          // `python -m pkg.mod`: "pkg.mod"
};

// Nothing for a line that is blank, a prompt or assignments alone.
std::optional<LaunchCommand> read_launch_command(std::string_view line);

// A `shell` fact's launch attributes: `args`, and `module` when there is one.
void set_launch_attributes(Fact &fact, const LaunchCommand &command);

} // namespace mpsaudit
