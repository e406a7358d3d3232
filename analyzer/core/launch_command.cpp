#include "core/launch_command.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/text.h"

namespace mpsaudit {
namespace {

// NAME=value, NAME an identifier: an environment assignment before the
// command (CUDA_VISIBLE_DEVICES=0 python ...).
bool is_assignment(std::string_view word) {
  const std::size_t equals = word.find('=');
  return equals != std::string_view::npos && equals > 0 && is_ascii_identifier(word.substr(0, equals));
}

} // namespace

std::optional<LaunchCommand> read_launch_command(std::string_view line) {
  std::vector<std::pair<std::size_t, std::string_view>> words; // offset, word
  for (std::size_t at = 0; at < line.size();) {
    const std::size_t begin = line.find_first_not_of(" \t", at);
    if (begin == std::string_view::npos)
      break;
    const std::size_t end = std::min(line.find_first_of(" \t", begin), line.size());
    words.emplace_back(begin, line.substr(begin, end - begin));
    at = end;
  }
  std::size_t first = 0;
  while (first < words.size() && (words[first].second == "$" || is_assignment(words[first].second)))
    ++first;
  if (first == words.size())
    return std::nullopt;
  LaunchCommand command;
  command.word_offset = words[first].first;
  command.word = std::string(words[first].second);
  const std::size_t slash = command.word.rfind('/');
  command.name = slash == std::string::npos ? command.word : command.word.substr(slash + 1);
  for (std::size_t k = first + 1; k < words.size(); ++k) {
    command.args += (command.args.empty() ? "" : " ") + std::string(words[k].second);
    if (words[k].second == "-m" && k + 1 < words.size() && starts_with(command.name, "python") &&
        command.module.empty())
      command.module = std::string(words[k + 1].second);
  }
  return command;
}

void set_launch_attributes(Fact &fact, const LaunchCommand &command) {
  fact.set_attribute("args", command.args);
  if (!command.module.empty())
    fact.set_attribute("module", command.module);
}

} // namespace mpsaudit
