// A small reader for the CMake language: command invocations with quoted,
// bracket and unquoted arguments, line and bracket comments. Each command
// becomes a `build` fact; if()/else() nesting gives guards (a CUDA test such
// as if(CMAKE_CUDA_COMPILER) means CUDA is optional; if(NOT APPLE) is a
// platform restriction).
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "core/text.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/requirement.h"

namespace mpsaudit {
using namespace manifest;

namespace {

struct CmakeArgument {
  std::string text;
  bool quoted = false;
  std::uint32_t line = 0, column = 0; // where it starts
};

struct CmakeCommand {
  std::string name;
  std::uint32_t line = 0, column = 0;
  std::vector<CmakeArgument> arguments;
};

// A command that enables CUDA among other languages, over several lines
// (`project(x\n  LANGUAGES CXX CUDA\n)`): its fact points at the `CUDA`
// word, where the fix goes, not at the command's first line.
void point_at_cuda_language(const CmakeCommand &command, const std::vector<std::string> &languages,
                            Fact &fact) {
  if (std::find(languages.begin(), languages.end(), "CUDA") == languages.end())
    return;
  for (const CmakeArgument &argument : command.arguments)
    if (argument.text == "CUDA" && argument.line != 0) {
      fact.span.line = fact.span.end_line = argument.line;
      fact.span.column = argument.column;
      fact.span.end_column = argument.column + 4;
      return;
    }
}

class CmakeLexer {
public:
  CmakeLexer(std::string_view text, const std::string &path, FileFacts &facts)
      : text_(text), path_(path), facts_(facts) {}

  std::vector<CmakeCommand> commands() {
    std::vector<CmakeCommand> out;
    while (skip_space_and_comments(), position_ < text_.size()) {
      const char c = text_[position_];
      if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
        error(line_, "unexpected '" + std::string(1, c) + "' outside a command");
        skip_line();
        continue;
      }
      CmakeCommand command;
      command.line = line_;
      command.column = column();
      const std::size_t begin = position_;
      while (position_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_'))
        ++position_;
      command.name = to_lower(text_.substr(begin, position_ - begin));
      while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\t'))
        ++position_;
      if (position_ >= text_.size() || text_[position_] != '(') {
        error(command.line, "expected '(' after '" + command.name + "'");
        skip_line();
        continue;
      }
      ++position_;
      if (!read_arguments(command))
        break; // unterminated: everything after it belongs to this command
      out.push_back(std::move(command));
    }
    return out;
  }

private:
  std::uint32_t column() const {
    const auto start = text_.rfind('\n', position_ == 0 ? 0 : position_ - 1);
    const std::size_t line_start = (start == std::string_view::npos || position_ == 0) ? 0 : start + 1;
    return static_cast<std::uint32_t>(position_ - line_start + 1);
  }

  void error(std::uint32_t line, std::string message) {
    add_diagnostic(facts_, DiagnosticLevel::Warning, path_, line, "parse-error", std::move(message));
  }

  void advance() {
    if (text_[position_] == '\n')
      ++line_;
    ++position_;
  }

  void skip_line() {
    while (position_ < text_.size() && text_[position_] != '\n')
      ++position_;
  }

  // `[==[`: returns the number of '=' or -1 when not a bracket opening.
  int bracket_level(std::size_t at) const {
    if (at >= text_.size() || text_[at] != '[')
      return -1;
    std::size_t k = at + 1;
    while (k < text_.size() && text_[k] == '=')
      ++k;
    return k < text_.size() && text_[k] == '[' ? static_cast<int>(k - at - 1) : -1;
  }

  // Reads a bracket argument or comment starting at position_; false if unterminated.
  bool read_bracket(int level, std::string *content) {
    const std::uint32_t start_line = line_;
    position_ += static_cast<std::size_t>(level) + 2;
    const std::string close = "]" + std::string(static_cast<std::size_t>(level), '=') + "]";
    const auto end = text_.find(close, position_);
    if (end == std::string_view::npos) {
      error(start_line, "unterminated bracket argument");
      while (position_ < text_.size())
        advance();
      return false;
    }
    if (content)
      *content = std::string(text_.substr(position_, end - position_));
    while (position_ < end + close.size())
      advance();
    return true;
  }

  void skip_space_and_comments() {
    while (position_ < text_.size()) {
      const char c = text_[position_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        advance();
      } else if (c == '#') {
        const int level = bracket_level(position_ + 1);
        if (level >= 0) {
          ++position_;
          read_bracket(level, nullptr);
        } else {
          skip_line();
        }
      } else {
        return;
      }
    }
  }

  bool read_arguments(CmakeCommand &command) {
    int depth = 0;
    while (true) {
      skip_space_and_comments();
      if (position_ >= text_.size()) {
        error(command.line, "unterminated argument list of '" + command.name + "('");
        return false;
      }
      const char c = text_[position_];
      if (c == ')') {
        ++position_;
        if (depth == 0)
          return true;
        --depth;
        continue;
      }
      if (c == '(') {
        ++depth;
        ++position_;
        continue;
      }
      CmakeArgument argument;
      argument.line = line_;
      argument.column = column();
      if (c == '"') {
        const std::uint32_t start_line = line_;
        ++position_;
        bool closed = false;
        while (position_ < text_.size()) {
          const char d = text_[position_];
          if (d == '\\' && position_ + 1 < text_.size()) {
            argument.text.push_back(text_[position_ + 1]);
            advance();
            advance();
            continue;
          }
          if (d == '"') {
            ++position_;
            closed = true;
            break;
          }
          argument.text.push_back(d);
          advance();
        }
        if (!closed) {
          error(start_line, "unterminated quoted argument");
          return false;
        }
        argument.quoted = true;
      } else if (const int level = bracket_level(position_); level >= 0) {
        if (!read_bracket(level, &argument.text))
          return false;
        argument.quoted = true;
      } else {
        while (position_ < text_.size()) {
          const char d = text_[position_];
          if (d == ' ' || d == '\t' || d == '\r' || d == '\n' || d == '(' || d == ')' || d == '#' || d == '"')
            break;
          if (d == '\\' && position_ + 1 < text_.size()) {
            argument.text.push_back(text_[position_ + 1]);
            position_ += 2;
            continue;
          }
          argument.text.push_back(d);
          ++position_;
        }
      }
      command.arguments.push_back(std::move(argument));
    }
  }

  std::string_view text_;
  const std::string &path_;
  FileFacts &facts_;
  std::size_t position_ = 0;
  std::uint32_t line_ = 1;
};

bool mentions_cuda(std::string_view word) {
  return to_lower(word).find("cuda") != std::string::npos;
}

// What an if() condition says about CUDA and the platform.
struct ConditionGuard {
  Guard then_branch = Guard::None;
  Guard else_branch = Guard::None;
};

ConditionGuard classify_condition(const std::vector<CmakeArgument> &arguments) {
  ConditionGuard guard;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string &word = arguments[i].text;
    const bool negated = i > 0 && arguments[i - 1].text == "NOT";
    if (mentions_cuda(word)) {
      (negated ? guard.else_branch : guard.then_branch) = Guard::CudaCheck;
    } else if (word == "APPLE" || word == "Darwin") {
      // if(NOT APPLE) is Linux/Windows only; if(APPLE) ... else() likewise.
      (negated ? guard.then_branch : guard.else_branch) = Guard::PlatformCheck;
    } else if (!negated && (word == "LINUX" || word == "WIN32" || word == "MSVC" || word == "Linux" ||
                            word == "Windows")) {
      guard.then_branch = Guard::PlatformCheck;
    }
  }
  return guard;
}

struct IfFrame {
  ConditionGuard condition;
  bool in_else = false;
  Guard active() const { return in_else ? condition.else_branch : condition.then_branch; }
};

std::string join(const std::vector<std::string> &items, std::string_view separator) {
  std::string out;
  for (const auto &item : items)
    out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

bool is_source_path(std::string_view argument) {
  const std::string lower = to_lower(argument);
  for (const char *suffix : {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".mm"})
    if (ends_with(lower, suffix))
      return true;
  return false;
}

// Commands that name a variable and give it values: set(VAR ...),
// list(APPEND VAR ...), file(GLOB VAR ...). The variable, or empty.
std::string assigned_variable(const CmakeCommand &command) {
  const auto &args = command.arguments;
  if (command.name == "set" && !args.empty())
    return args[0].text;
  if (command.name == "list" && args.size() > 1 &&
      (args[0].text == "APPEND" || args[0].text == "PREPEND" || args[0].text == "INSERT"))
    return args[1].text;
  if (command.name == "file" && args.size() > 1 && (args[0].text == "GLOB" || args[0].text == "GLOB_RECURSE"))
    return args[1].text;
  return {};
}

// Whether the project needs CUDA to configure at all: project(... CUDA),
// enable_language(CUDA) or find_package(CUDA... REQUIRED) outside a CUDA test.
bool cuda_required(const std::vector<std::pair<const CmakeCommand *, Guard>> &commands) {
  for (const auto &[command, guard] : commands) {
    if (guard != Guard::None)
      continue;
    const auto &args = command->arguments;
    const auto has = [&](std::string_view word) {
      return std::any_of(args.begin(), args.end(), [&](const CmakeArgument &a) { return a.text == word; });
    };
    if ((command->name == "project" && args.size() > 1 && has("CUDA")) ||
        (command->name == "enable_language" && has("CUDA")) ||
        (command->name == "find_package" && !args.empty() && mentions_cuda(args[0].text) && has("REQUIRED")))
      return true;
  }
  return false;
}

// build-source facts (manifest_frontend.h): which C/C++/CUDA sources are only
// built under a CUDA test, directly (if(CMAKE_CUDA_COMPILER) target_sources(t
// a.cu)) or through a variable that is only used there.
void record_build_sources(const std::vector<std::pair<const CmakeCommand *, Guard>> &commands,
                          FileFacts &facts) {
  enum class Use : std::uint8_t { Neutral, Conditional, Unconditional };
  struct Read {
    Guard guard;
    std::string into; // the variable the command assigns, or empty for a consumer
  };
  std::map<std::string, std::vector<Read>> reads;
  for (const auto &[command, guard] : commands) {
    const std::string into = assigned_variable(*command);
    for (const auto &argument : command->arguments)
      for (std::size_t at = argument.text.find("${"); at != std::string::npos;
           at = argument.text.find("${", at + 2)) {
        const auto end = argument.text.find('}', at);
        if (end != std::string::npos)
          reads[argument.text.substr(at + 2, end - at - 2)].push_back({guard, into});
      }
  }
  std::function<Use(Guard, const std::string &, std::set<std::string> &)> use_of =
      [&](Guard guard, const std::string &into, std::set<std::string> &visiting) {
        if (guard == Guard::CudaCheck)
          return Use::Conditional;
        if (into.empty())
          return Use::Unconditional; // add_library, target_sources, ...
        if (!visiting.insert(into).second)
          return Use::Neutral;
        Use result = Use::Neutral;
        if (const auto found = reads.find(into); found != reads.end())
          for (const Read &read : found->second) {
            if (read.into == into)
              continue; // list(APPEND SRCS ${SRCS}) and the like
            const Use use = use_of(read.guard, read.into, visiting);
            if (use == Use::Unconditional)
              return Use::Unconditional;
            if (use == Use::Conditional)
              result = Use::Conditional;
          }
        visiting.erase(into);
        return result;
      };
  const bool required = cuda_required(commands);
  for (const auto &[command, guard] : commands) {
    const std::string into = assigned_variable(*command);
    for (const auto &argument : command->arguments) {
      if (!is_source_path(argument.text))
        continue;
      std::set<std::string> visiting;
      const bool optional = !required && use_of(guard, into, visiting) == Use::Conditional;
      Fact fact = make_fact(manifest_fact_kind::BuildSource, argument.text, command->line, command->column,
                            static_cast<std::uint32_t>(command->name.size()));
      fact.set_attribute("build", "cmake");
      fact.set_attribute("optional", optional ? "true" : "false");
      fact.set_attribute("glob", argument.text.find_first_of("*?[") != std::string::npos ? "true" : "false");
      facts.facts.push_back(std::move(fact));
    }
  }
}

} // namespace

FileFacts extract_cmake(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "lexical";
  CmakeLexer lexer(text, path, facts);
  const auto commands = lexer.commands();
  std::vector<IfFrame> frames;
  std::vector<std::pair<const CmakeCommand *, Guard>> guarded_commands;
  for (const CmakeCommand &command : commands) {
    Guard guard = Guard::None;
    for (auto frame = frames.rbegin(); frame != frames.rend() && guard == Guard::None; ++frame)
      guard = frame->active();
    guarded_commands.emplace_back(&command, guard);

    Fact fact = make_fact(manifest_fact_kind::Build, command.name, command.line, command.column,
                          static_cast<std::uint32_t>(command.name.size()));
    fact.guard = guard;
    std::vector<std::string> words, cuda_sources, cuda_targets, languages;
    for (const auto &argument : command.arguments) {
      Argument fact_argument;
      fact_argument.text = argument.text;
      fact_argument.value = argument.text;
      fact_argument.is_string = argument.quoted;
      fact.arguments.push_back(std::move(fact_argument));
      words.push_back(argument.text);
      const std::string lower = to_lower(argument.text);
      if (ends_with(lower, ".cu") || ends_with(lower, ".cuh"))
        cuda_sources.push_back(argument.text);
      if (starts_with(argument.text, "CUDA::") || (argument.text.find("${CUDA_") != std::string::npos &&
                                                   argument.text.find("LIBRARIES") != std::string::npos))
        cuda_targets.push_back(argument.text);
    }
    if (!words.empty())
      fact.set_attribute("arg0", words.front());
    fact.set_attribute("args", join(words, " "));
    fact.set_attribute("value", command.name + "(" + join(words, " ") + ")");
    if (!cuda_sources.empty())
      fact.set_attribute("cuda_sources", join(cuda_sources, ","));
    if (!cuda_targets.empty())
      fact.set_attribute("cuda_targets", join(cuda_targets, ","));

    const std::string &name = command.name;
    if (name == "project") {
      // project(name [VERSION v] [LANGUAGES l...]) or project(name l...)
      bool after_keyword = false, any_keyword = false;
      for (std::size_t i = 1; i < words.size(); ++i) {
        const std::string &word = words[i];
        if (word == "LANGUAGES") {
          after_keyword = any_keyword = true;
        } else if (word == "VERSION" || word == "DESCRIPTION" || word == "HOMEPAGE_URL") {
          after_keyword = false;
          any_keyword = true;
          ++i; // its value
        } else if (after_keyword || !any_keyword) {
          languages.push_back(word);
        }
      }
    } else if (name == "enable_language") {
      languages.assign(words.begin(), words.end());
    } else if (name == "find_package" && !words.empty()) {
      fact.set_attribute("package", words.front());
      bool required = false;
      for (const auto &word : words)
        required = required || word == "REQUIRED";
      fact.set_attribute("required", required ? "true" : "false");
    } else if ((name == "set" || name == "unset" || name == "option") && !words.empty()) {
      fact.set_attribute("variable", words.front());
    } else if ((name == "list" || name == "string") && words.size() > 1) {
      fact.set_attribute("variable", words[1]);
    } else if (name == "set_property" || name == "set_target_properties" ||
               name == "set_source_files_properties") {
      for (const auto &word : words)
        if (starts_with(word, "CUDA_") || word == "LANGUAGE") {
          fact.set_attribute("variable", word);
          break;
        }
      for (std::size_t i = 0; i + 1 < words.size(); ++i)
        if (words[i] == "LANGUAGE")
          languages.push_back(words[i + 1]);
    }
    if (!languages.empty())
      fact.set_attribute("languages", join(languages, " "));
    point_at_cuda_language(command, languages, fact);
    facts.facts.push_back(std::move(fact));

    if (name == "if") {
      frames.push_back({classify_condition(command.arguments), false});
    } else if (name == "elseif" && !frames.empty()) {
      frames.back() = {classify_condition(command.arguments), false};
    } else if (name == "else" && !frames.empty()) {
      frames.back().in_else = true;
    } else if (name == "endif" && !frames.empty()) {
      frames.pop_back();
    }
  }
  record_build_sources(guarded_commands, facts);
  return facts;
}

} // namespace mpsaudit
