#include "core/process.h"

#include <array>
#include <cstdio>

namespace mpsaudit {

std::string shell_quote(const std::string &text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out.push_back(c);
  }
  return out + "'";
}

bool run_command(const std::string &command, std::string &output) {
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return false;
  std::array<char, 65536> buffer{};
  std::size_t read;
  while ((read = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), read);
  return pclose(pipe) == 0;
}

} // namespace mpsaudit
