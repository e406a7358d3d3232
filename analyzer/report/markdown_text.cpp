#include "report/markdown_text.h"

#include <algorithm>

#include "core/text.h"

namespace mpsaudit {

std::string markdown_text(std::string_view text) {
  const std::string safe = terminal_safe(text, KeepLayout::TabAndNewline);
  std::string out;
  out.reserve(safe.size());
  for (std::size_t i = 0; i < safe.size(); ++i) {
    const char c = safe[i];
    switch (c) {
    case '\n':
    case '\r':
      out += ' ';
      break;
    case '<':
      out += "&lt;";
      break;
    case '|': {
      // GFM reads `\\` as one escaped backslash: "a\|" written as "a\\|" would
      // end the cell. Doubling the run before the pipe keeps it text.
      std::size_t run = 0;
      while (run < i && safe[i - 1 - run] == '\\')
        ++run;
      out.append(run, '\\');
      out += "\\|";
      break;
    }
    case ']':
      out += i + 1 < safe.size() && safe[i + 1] == '(' ? "]\\" : "]";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  const std::string body = markdown_text(text);
  std::size_t longest = 0;
  for (std::size_t i = 0, run = 0; i < body.size(); ++i) {
    run = body[i] == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  // A space inside the fence keeps a backtick at either end of the text apart from it.
  const std::string pad = longest ? " " : "";
  return fence + pad + body + pad + fence;
}

} // namespace mpsaudit
