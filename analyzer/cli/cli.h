// The command-line interface: a table of subcommands, each a function from
// arguments to an exit code. Exit codes are documented in docs/cli.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mpsaudit::cli {

enum ExitCode : int {
  kClean = 0,      // no findings at or above --fail-on
  kFindings = 1,   // findings at or above --fail-on
  kUsage = 2,      // bad arguments, bad config, unreadable rules
  kScanErrors = 3, // some inputs could not be scanned (findings still reported)
};

struct Invocation {
  std::string executable; // argv[0], to locate data relative to the binary
  std::vector<std::string> arguments;
};

using CommandFn = int (*)(const Invocation &);

struct Command {
  const char *name;
  const char *summary;
  CommandFn run;
};

const std::vector<Command> &commands();
int run(const Invocation &invocation);

// Subcommands defined in their own files (cli/<name>_command.cpp).
int command_scan(const Invocation &invocation);
int command_probe(const Invocation &invocation);
int command_env(const Invocation &invocation);       // cli/env_command.cpp
int command_compare(const Invocation &invocation);   // cli/compare_command.cpp
int command_baseline(const Invocation &invocation);  // cli/baseline_command.cpp
int command_config(const Invocation &invocation);    // cli/config_command.cpp
int command_fix(const Invocation &invocation);       // cli/fix_command.cpp
int command_facts(const Invocation &invocation);     // cli/facts_command.cpp
int command_portfolio(const Invocation &invocation); // cli/portfolio_command.cpp

// Shared helpers for commands.
std::string tool_version();
// The columns of the terminal standard output is, or 0 (not a terminal, or
// one too narrow to fit text to). COLUMNS, when set, wins, as for ls(1).
std::size_t terminal_columns();
// The rules directory: --rules-dir, $MPSAUDIT_RULES_DIR, beside the binary,
// or the source tree the binary was built from.
std::string rules_directory(const Invocation &invocation, const std::string &override_dir);

} // namespace mpsaudit::cli
