// The argv loop that the probe's mains (mpsaudit-probe, mpsaudit-gen-coverage)
// share: flags, options that take the next argument as their value, and at
// most one bare word. Header-only, so that it needs no library of its own.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mpsaudit::probe {

struct CommandLine {
  // "--check": runs the action.
  std::vector<std::pair<std::string, std::function<void()>>> flags;
  // "--out DIR": stores DIR. An option with no value after it is bad usage.
  std::vector<std::pair<std::string, std::string *>> options;
  // Where a bare word (not empty, not starting with '-') goes; null when the
  // command takes none. Only one is accepted.
  std::string *positional = nullptr;
};

// Walks argv[1..]; false on bad usage (an unknown argument, an option
// without its value, a second bare word), for the caller to print its usage.
inline bool parse_command_line(int argc, char **argv, const CommandLine &line) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    bool known = false;
    for (const auto &[name, action] : line.flags)
      if (arg == name) {
        action();
        known = true;
        break;
      }
    for (const auto &[name, into] : line.options)
      if (!known && arg == name && i + 1 < argc) {
        *into = argv[++i];
        known = true;
        break;
      }
    if (known)
      continue;
    if (line.positional && !arg.empty() && arg[0] != '-' && line.positional->empty())
      *line.positional = arg;
    else
      return false;
  }
  return true;
}

} // namespace mpsaudit::probe
