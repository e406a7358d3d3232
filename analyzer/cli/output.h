// The output convention of the commands that produce one JSON document
// (env, compare): `-o FILE` always gets the JSON; standard output gets JSON
// with `--format json`, the readable text otherwise.
#pragma once

#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace mpsaudit::cli {

// False, after saying so, when FILE cannot be written.
template <typename TextFn>
bool emit_json_or_text(const nlohmann::json &json, const std::string &output, const std::string &format,
                       TextFn &&text) {
  if (!output.empty()) {
    std::ofstream out(output, std::ios::binary);
    if (!(out << json.dump(2) << "\n")) {
      std::cerr << "mpsaudit: cannot write " << terminal_safe(output) << "\n";
      return false;
    }
  }
  if (format == "json")
    std::cout << json.dump(2) << "\n";
  else
    std::cout << terminal_safe(text(), KeepLayout::TabAndNewline); // imported records are untrusted text
  return true;
}

} // namespace mpsaudit::cli
