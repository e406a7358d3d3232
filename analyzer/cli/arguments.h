// Option parsing shared by the subcommands.
#pragma once

#include <string>
#include <vector>

#include "rules/rule.h"

namespace mpsaudit::cli {

struct Invocation;

// Minimal option parsing: `--name value`, `--name=value`, flags, positionals.
class Arguments {
public:
  explicit Arguments(const std::vector<std::string> &arguments) : arguments_(arguments) {}

  bool next() { return ++index_ < arguments_.size(); }
  const std::string &current() const { return arguments_[index_]; }
  bool is_option() const { return current().size() > 1 && current()[0] == '-'; }
  // Matches `--name` (then the value is the next argument) or `--name=value`.
  bool option(const char *name, std::string &value) {
    const std::string &arg = current();
    const std::string prefix = std::string(name) + "=";
    if (arg.rfind(prefix, 0) == 0) {
      value = arg.substr(prefix.size());
      return true;
    }
    // Short options also take their value attached: -j4, -pbuild.
    const std::string short_name(name);
    if (short_name.size() == 2 && short_name[0] == '-' && short_name[1] != '-' && arg.size() > 2 &&
        arg.rfind(short_name, 0) == 0) {
      value = arg.substr(2);
      return true;
    }
    if (arg != name)
      return false;
    if (index_ + 1 >= arguments_.size()) {
      error_ = std::string(name) + " needs a value";
      value.clear();
      return true;
    }
    value = arguments_[++index_];
    return true;
  }
  bool flag(const char *name) const { return current() == name; }
  const std::string &error() const { return error_; }

private:
  const std::vector<std::string> &arguments_;
  std::size_t index_ = static_cast<std::size_t>(-1);
  std::string error_;
};

// Prints `message` with a pointer to help; returns the usage exit code.
int usage_error(const std::string &message);
// Loads the rule catalog; prints problems and returns false on any.
bool load_catalog(const Invocation &invocation, const std::string &override_dir, RuleCatalog &catalog);

} // namespace mpsaudit::cli
