#include "workflow/comment_scan.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "core/text.h"

namespace mpsaudit {
namespace {

using Comments = std::vector<CommentSpan>;

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

bool is_identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

bool is_identifier_char(char c) {
  return is_identifier_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

// Offset of the '\n' ending the line that holds `at`, or text.size().
std::size_t line_end(std::string_view text, std::size_t at) {
  const std::size_t newline = text.find('\n', at);
  return newline == std::string_view::npos ? text.size() : newline;
}

// A comment from `begin` to the end of its line, '\r' excluded.
std::size_t add_line_comment(std::string_view text, std::size_t begin, Comments &out) {
  const std::size_t end = line_end(text, begin);
  out.push_back({begin, end > begin && text[end - 1] == '\r' ? end - 1 : end});
  return end;
}

// ---------------------------------------------------------------- Python

// Python's tokenizer as of 3.12 (PEP 701): a replacement field of an
// f-string is ordinary code, with its own strings, brackets, newlines and
// comments, up to the '}' or the ':' of a format spec at bracket depth 0; a
// format spec is text holding nested replacement fields. Nesting is kept on
// an explicit stack, so deep nesting costs memory, never the call stack.
class PythonLexer {
public:
  PythonLexer(std::string_view text, Comments &out) : text_(text), out_(out) {}

  void run() {
    stack_.push_back(Frame{});
    while (at_ < text_.size()) {
      switch (stack_.back().mode) {
      case Mode::Code:
        code();
        break;
      case Mode::String:
        string();
        break;
      case Mode::FormatSpec:
        format_spec();
        break;
      }
    }
  }

private:
  enum class Mode { Code, String, FormatSpec };
  struct Frame {
    Mode mode = Mode::Code;
    int depth = 0; // open brackets, in code
    char quote = 0;
    bool triple = false, raw = false, formatted = false;
  };

  char peek(std::size_t ahead) const { return at_ + ahead < text_.size() ? text_[at_ + ahead] : '\0'; }
  bool in_replacement_field() const { return stack_.size() > 1; }

  // r, u, b, f, t and their two-letter combinations, in any case.
  static bool string_prefix(std::string_view word, Frame &frame) {
    if (word.empty() || word.size() > 2)
      return false;
    const std::string lower = to_lower(word);
    static constexpr std::string_view kPrefixes[] = {"r",  "u",  "b",  "f",  "t", "br",
                                                     "rb", "fr", "rf", "tr", "rt"};
    if (std::find(std::begin(kPrefixes), std::end(kPrefixes), lower) == std::end(kPrefixes))
      return false;
    frame.raw = lower.find('r') != std::string::npos;
    frame.formatted = lower.find('f') != std::string::npos || lower.find('t') != std::string::npos;
    return true;
  }

  void open_string(Frame frame) {
    frame.mode = Mode::String;
    frame.quote = text_[at_];
    frame.triple = peek(1) == frame.quote && peek(2) == frame.quote;
    at_ += frame.triple ? 3 : 1;
    stack_.push_back(frame);
  }

  void code() {
    Frame &frame = stack_.back();
    const char c = text_[at_];
    if (c == '#') {
      at_ = add_line_comment(text_, at_, out_);
    } else if (c == '"' || c == '\'') {
      open_string(Frame{});
    } else if (is_identifier_start(c)) {
      const std::size_t start = at_;
      while (at_ < text_.size() && is_identifier_char(text_[at_]))
        ++at_;
      Frame prefixed;
      if (at_ < text_.size() && (text_[at_] == '"' || text_[at_] == '\'') &&
          string_prefix(text_.substr(start, at_ - start), prefixed))
        open_string(prefixed);
    } else if (c == '(' || c == '[' || c == '{') {
      ++frame.depth;
      ++at_;
    } else if (c == ')' || c == ']' || c == '}') {
      if (frame.depth > 0)
        --frame.depth;
      else if (c == '}' && in_replacement_field())
        stack_.pop_back(); // the field ends; back in its f-string
      ++at_;
    } else if (c == ':' && frame.depth == 0 && in_replacement_field()) {
      frame.mode = Mode::FormatSpec;
      ++at_;
    } else {
      ++at_;
    }
  }

  void string() {
    const Frame &frame = stack_.back();
    const char c = text_[at_];
    if (c == '\\') {
      const char next = peek(1);
      if (frame.formatted && !frame.raw && next == 'N' && peek(2) == '{') {
        // \N{NAME} is an escape, not a replacement field.
        const std::size_t close = text_.find('}', at_);
        at_ = close == std::string_view::npos ? text_.size() : close + 1;
      } else if (frame.formatted && (next == '{' || next == '}')) {
        ++at_; // the backslash stays literal; the brace is still a brace
      } else {
        at_ += 2; // an escaped (or, raw, a kept) quote, backslash or newline
      }
    } else if (c == '\n' && !frame.triple) {
      stack_.pop_back(); // unterminated: the tokenizer gives up at the line end
      ++at_;
    } else if (c == frame.quote && (!frame.triple || (peek(1) == c && peek(2) == c))) {
      at_ += frame.triple ? 3 : 1;
      stack_.pop_back();
    } else if (frame.formatted && (c == '{' || c == '}') && peek(1) == c) {
      at_ += 2; // {{ and }} are literal braces
    } else if (frame.formatted && c == '{') {
      ++at_;
      stack_.push_back(Frame{}); // a replacement field
    } else {
      ++at_;
    }
  }

  void format_spec() {
    const char c = text_[at_];
    ++at_;
    if (c == '{') {
      stack_.push_back(Frame{}); // a nested replacement field
    } else if (c == '}') {
      stack_.pop_back(); // the field ends
    } else if (c == '\n' && !stack_[stack_.size() - 2].triple) {
      stack_.resize(stack_.size() - 2); // unterminated f-string
    }
  }

  std::string_view text_;
  Comments &out_;
  std::size_t at_ = 0;
  std::vector<Frame> stack_;
};

// ---------------------------------------------------------------- C, C++, CUDA, Metal

// Past a "..." or '...' literal starting at `at` (escapes honoured; an
// unterminated one ends at its line).
std::size_t skip_quoted_c(std::string_view text, std::size_t at) {
  const char quote = text[at++];
  while (at < text.size() && text[at] != quote && text[at] != '\n')
    at += text[at] == '\\' ? 2 : 1;
  return std::min(at + 1, text.size());
}

// Past R"delim( ... )delim" whose '"' is at `at`.
std::size_t skip_raw_string(std::string_view text, std::size_t at) {
  const std::size_t open = text.find('(', at);
  if (open == std::string_view::npos || open - at > 17)
    return skip_quoted_c(text, at);
  const std::string closer = ")" + std::string(text.substr(at + 1, open - at - 1)) + "\"";
  const std::size_t close = text.find(closer, open + 1);
  return close == std::string_view::npos ? text.size() : close + closer.size();
}

void c_comments(std::string_view text, Comments &out) {
  std::size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    const char next = at + 1 < text.size() ? text[at + 1] : '\0';
    if (c == '/' && next == '/') {
      // A backslash at the line end splices the next line into the comment.
      std::size_t end = line_end(text, at);
      while (end < text.size() && ((end >= 1 && text[end - 1] == '\\') ||
                                   (end >= 2 && text[end - 1] == '\r' && text[end - 2] == '\\')))
        end = line_end(text, end + 1);
      out.push_back({at, end > at && text[end - 1] == '\r' ? end - 1 : end});
      at = end;
    } else if (c == '/' && next == '*') {
      const std::size_t close = text.find("*/", at + 2);
      const std::size_t end = close == std::string_view::npos ? text.size() : close + 2;
      out.push_back({at, end});
      at = end;
    } else if (c == '"' || c == '\'') {
      at = skip_quoted_c(text, at);
    } else if (is_identifier_start(c)) {
      const std::size_t start = at;
      while (at < text.size() && is_identifier_char(text[at]))
        ++at;
      const std::string_view word = text.substr(start, at - start);
      if (at < text.size() && text[at] == '"' &&
          (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR"))
        at = skip_raw_string(text, at);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      // A number, with C++14 digit separators (1'000) that are not quotes.
      ++at;
      while (at < text.size() &&
             (is_identifier_char(text[at]) || text[at] == '.' ||
              (text[at] == '\'' && at + 1 < text.size() && is_identifier_char(text[at + 1]))))
        ++at;
    } else {
      ++at;
    }
  }
}

// ---------------------------------------------------------------- CMake

// The length of "[", "=" * n, "[" at `at` (0 when not a bracket opener), and n.
std::size_t bracket_open(std::string_view text, std::size_t at, std::size_t &level) {
  if (at >= text.size() || text[at] != '[')
    return 0;
  std::size_t k = at + 1;
  while (k < text.size() && text[k] == '=')
    ++k;
  if (k >= text.size() || text[k] != '[')
    return 0;
  level = k - at - 1;
  return k - at + 1;
}

std::size_t skip_bracket_body(std::string_view text, std::size_t body, std::size_t level) {
  const std::string closer = "]" + std::string(level, '=') + "]";
  const std::size_t close = text.find(closer, body);
  return close == std::string_view::npos ? text.size() : close + closer.size();
}

void cmake_comments(std::string_view text, Comments &out) {
  std::size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    std::size_t level = 0;
    if (c == '#') {
      if (const std::size_t open = bracket_open(text, at + 1, level)) {
        const std::size_t end = skip_bracket_body(text, at + 1 + open, level);
        out.push_back({at, end});
        at = end;
      } else {
        at = add_line_comment(text, at, out);
      }
    } else if (c == '"') {
      ++at;
      while (at < text.size() && text[at] != '"')
        at += text[at] == '\\' ? 2 : 1;
      ++at;
    } else if (const std::size_t open = bracket_open(text, at, level);
               open &&
               (at == 0 || std::isspace(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '(')) {
      at = skip_bracket_body(text, at + open, level);
    } else {
      ++at;
    }
  }
}

// ---------------------------------------------------------------- TOML

void toml_comments(std::string_view text, Comments &out) {
  std::size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    if (c == '#') {
      at = add_line_comment(text, at, out);
      continue;
    }
    if (c != '"' && c != '\'') {
      ++at;
      continue;
    }
    const bool escapes = c == '"';
    const std::string triple(3, c);
    if (text.substr(at, 3) == triple) {
      at += 3;
      while (at < text.size() && text.substr(at, 3) != triple)
        at += escapes && text[at] == '\\' ? 2 : 1;
      at += 3;
      // Up to two quotes may stand right before the closing three.
      for (int extra = 0; extra < 2 && at < text.size() && text[at] == c; ++extra)
        ++at;
    } else {
      ++at;
      while (at < text.size() && text[at] != c && text[at] != '\n')
        at += escapes && text[at] == '\\' ? 2 : 1;
      ++at;
    }
  }
}

// ---------------------------------------------------------------- YAML

std::size_t count_indent(std::string_view text, std::size_t line_start) {
  std::size_t k = line_start;
  while (k < text.size() && text[k] == ' ')
    ++k;
  return k - line_start;
}

// The indentation a block scalar's content must exceed: the column of the
// key on the indicator's line, or of the '-' when the scalar is the entry.
std::size_t block_parent_column(std::string_view text, std::size_t line_start) {
  std::size_t k = line_start + count_indent(text, line_start);
  std::size_t dash = k;
  while (k + 1 < text.size() && text[k] == '-' && is_blank(text[k + 1])) {
    dash = k;
    ++k;
    while (k < text.size() && is_blank(text[k]))
      ++k;
  }
  if (k < text.size() && (text[k] == '|' || text[k] == '>'))
    return dash - line_start;
  return k - line_start;
}

std::size_t skip_yaml_quoted(std::string_view text, std::size_t at) {
  const char quote = text[at++];
  while (at < text.size()) {
    if (quote == '"' && text[at] == '\\') {
      at += 2;
    } else if (text[at] == quote) {
      if (quote == '\'' && at + 1 < text.size() && text[at + 1] == '\'')
        at += 2; // '' is a quote inside a single-quoted scalar
      else
        return at + 1;
    } else {
      ++at;
    }
  }
  return text.size();
}

void yaml_comments(std::string_view text, Comments &out) {
  std::size_t at = 0;
  std::size_t line_start = 0;
  bool block_scalar = false; // the lines below belong to a | or > scalar
  std::size_t block_parent = 0;
  char previous = '\0'; // the last non-blank character on this line, '\0' at its start
  bool at_line_start = true;
  while (at < text.size()) {
    if (at_line_start) {
      at_line_start = false;
      line_start = at;
      previous = '\0';
      const std::size_t end = line_end(text, at);
      const std::size_t indent = count_indent(text, at);
      if (block_scalar) {
        if (trim(text.substr(at, end - at)).empty() || indent > block_parent) {
          at = end + 1;
          at_line_start = true;
          continue;
        }
        block_scalar = false;
      }
      at += indent;
      continue;
    }
    const char c = text[at];
    if (c == '\n') {
      at_line_start = true;
      ++at;
    } else if (c == '#' && (at == line_start || std::isspace(static_cast<unsigned char>(text[at - 1])))) {
      at = add_line_comment(text, at, out);
    } else if ((c == '\'' || c == '"') &&
               (previous == '\0' || previous == '[' || previous == '{' || previous == ',' ||
                ((previous == ':' || previous == '-' || previous == '?') && is_blank(text[at - 1])))) {
      at = skip_yaml_quoted(text, at);
      previous = c;
    } else {
      if ((c == '|' || c == '>') &&
          (previous == '\0' || ((previous == ':' || previous == '-') && is_blank(text[at - 1])))) {
        block_scalar = true;
        block_parent = block_parent_column(text, line_start);
      }
      if (!is_blank(c) && c != '\r')
        previous = c;
      ++at;
    }
  }
}

// ---------------------------------------------------------------- requirements, setup.cfg

// pip: '#' at the start of a line or after whitespace (a URL's "#egg=" is not one).
void requirements_comments(std::string_view text, Comments &out) {
  for (std::size_t at = 0; at < text.size(); ++at)
    if (text[at] == '#' && (at == 0 || std::isspace(static_cast<unsigned char>(text[at - 1]))))
      at = add_line_comment(text, at, out);
}

// configparser, as setuptools reads setup.cfg: only whole-line comments.
void ini_comments(std::string_view text, Comments &out) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t first = at;
    while (first < text.size() && is_blank(text[first]))
      ++first;
    if (first < text.size() && (text[first] == '#' || text[first] == ';'))
      at = add_line_comment(text, first, out);
    else
      at = line_end(text, at);
    ++at;
  }
}

// ---------------------------------------------------------------- shell, Dockerfile, Makefile

class ShellLexer {
public:
  ShellLexer(std::string_view text, std::size_t offset, Comments &out)
      : text_(text), offset_(offset), out_(out) {}

  void run() {
    stack_.push_back(Frame{});
    while (at_ < text_.size()) {
      if (stack_.back().double_quoted)
        double_quoted();
      else
        code();
    }
  }

private:
  struct Frame {
    bool double_quoted = false; // else code: the script, or a $(...) inside it
    int depth = 0;              // open parentheses
    int arithmetic_from = -1;   // inside (( )) or $(( )) from this depth on: << is a shift
  };

  char peek(std::size_t ahead) const { return at_ + ahead < text_.size() ? text_[at_ + ahead] : '\0'; }

  bool word_start() const {
    if (at_ == 0)
      return true;
    const char before = text_[at_ - 1];
    return std::isspace(static_cast<unsigned char>(before)) || before == ';' || before == '&' ||
           before == '|' || before == '(' || before == ')' || before == '<' || before == '>';
  }

  void push(Frame frame) { stack_.push_back(frame); }

  void skip_backquoted() {
    ++at_;
    while (at_ < text_.size() && text_[at_] != '`')
      at_ += text_[at_] == '\\' ? 2 : 1;
    ++at_;
  }

  // <<WORD, <<-WORD, <<'WORD', <<"WORD", <<\WORD; the body starts on the next line.
  void heredoc() {
    std::size_t k = at_ + 2;
    const bool strip_tabs = k < text_.size() && text_[k] == '-';
    if (strip_tabs)
      ++k;
    while (k < text_.size() && is_blank(text_[k]))
      ++k;
    std::string word;
    while (k < text_.size() && !std::isspace(static_cast<unsigned char>(text_[k])) &&
           std::string_view(";&|<>()").find(text_[k]) == std::string_view::npos) {
      if (text_[k] != '\'' && text_[k] != '"' && text_[k] != '\\')
        word.push_back(text_[k]);
      ++k;
    }
    if (!word.empty())
      heredocs_.push_back({word, strip_tabs});
    at_ = k;
  }

  // The offset past the line that ends the heredoc, or npos when no line does.
  std::size_t heredoc_end(std::size_t from, const std::string &word, bool strip_tabs) const {
    while (from < text_.size()) {
      const std::size_t end = line_end(text_, from);
      std::string_view line = text_.substr(from, end - from);
      if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
      while (strip_tabs && !line.empty() && line.front() == '\t')
        line.remove_prefix(1);
      if (line == word)
        return end + 1;
      from = end + 1;
    }
    return std::string_view::npos;
  }

  // Heredoc bodies are data. One that never ends is read as script: what
  // follows an unterminated heredoc is not taken for data on a guess.
  void skip_heredoc_bodies() {
    for (const auto &[word, strip_tabs] : heredocs_) {
      const std::size_t end = heredoc_end(at_, word, strip_tabs);
      if (end == std::string_view::npos)
        break;
      at_ = end;
    }
    heredocs_.clear();
  }

  void code() {
    Frame &frame = stack_.back();
    const char c = text_[at_];
    if (c == '\n') {
      ++at_;
      skip_heredoc_bodies();
    } else if (c == '#' && word_start()) {
      const std::size_t begin = at_;
      at_ = line_end(text_, at_);
      const std::size_t end = at_ > begin && text_[at_ - 1] == '\r' ? at_ - 1 : at_;
      out_.push_back({offset_ + begin, offset_ + end});
    } else if (c == '\\') {
      at_ += 2;
    } else if (c == '\'') {
      // '...' takes no escapes; $'...' does.
      const bool escapes = at_ > 0 && text_[at_ - 1] == '$';
      ++at_;
      while (at_ < text_.size() && text_[at_] != '\'')
        at_ += escapes && text_[at_] == '\\' ? 2 : 1;
      ++at_;
    } else if (c == '"') {
      ++at_;
      push(Frame{true});
    } else if (c == '`') {
      skip_backquoted();
    } else if (c == '$' && peek(1) == '(') {
      at_ += 2;
      push(Frame{false, 0, peek(0) == '(' ? 0 : -1});
    } else if (c == '(') {
      if (peek(1) == '(' && frame.arithmetic_from < 0)
        frame.arithmetic_from = frame.depth;
      ++frame.depth;
      ++at_;
    } else if (c == ')') {
      if (frame.depth > 0) {
        --frame.depth;
        if (frame.depth <= frame.arithmetic_from)
          frame.arithmetic_from = -1;
      } else if (stack_.size() > 1) {
        stack_.pop_back();
      }
      ++at_;
    } else if (c == '<' && peek(1) == '<') {
      if (peek(2) == '<')
        at_ += 3; // a here-string
      else if (frame.arithmetic_from >= 0)
        at_ += 2; // a shift
      else
        heredoc();
    } else {
      ++at_;
    }
  }

  void double_quoted() {
    const char c = text_[at_];
    if (c == '\\') {
      at_ += 2;
    } else if (c == '"') {
      stack_.pop_back();
      ++at_;
    } else if (c == '$' && peek(1) == '(') {
      at_ += 2;
      push(Frame{false, 0, peek(0) == '(' ? 0 : -1});
    } else if (c == '`') {
      skip_backquoted();
    } else {
      ++at_;
    }
  }

  std::string_view text_;
  std::size_t offset_;
  Comments &out_;
  std::size_t at_ = 0;
  std::vector<Frame> stack_;
  std::vector<std::pair<std::string, bool>> heredocs_;
};

void shell_comments(std::string_view text, std::size_t offset, Comments &out) {
  ShellLexer(text, offset, out).run();
}

// make: '#' anywhere outside recipes (no quoting; "\#" is a literal '#');
// recipe lines (starting with a tab) go to the shell.
void makefile_comments(std::string_view text, Comments &out) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = line_end(text, at);
    if (text[at] == '\t') {
      shell_comments(text.substr(at, end - at), at, out);
    } else {
      for (std::size_t k = at; k < end; ++k)
        if (text[k] == '#' && (k == at || text[k - 1] != '\\')) {
          add_line_comment(text, k, out);
          break;
        }
    }
    at = end + 1;
  }
}

// ---------------------------------------------------------------- Markdown

// A fence: up to three spaces, then three or more ` or ~.
bool fence_at(std::string_view line, char &fence_char, std::size_t &fence_length) {
  std::size_t k = 0;
  while (k < line.size() && k < 3 && line[k] == ' ')
    ++k;
  if (k >= line.size() || (line[k] != '`' && line[k] != '~'))
    return false;
  const char c = line[k];
  std::size_t run = 0;
  while (k + run < line.size() && line[k + run] == c)
    ++run;
  if (run < 3)
    return false;
  fence_char = c;
  fence_length = run;
  return true;
}

// The HTML comments of one prose line, [from, to), outside its code spans
// (a backtick run up to the next run of the same length on the line). Returns
// `to`, or where a comment that runs past the line ends.
std::size_t prose_line_comments(std::string_view text, std::size_t from, std::size_t to, Comments &out) {
  struct Run {
    std::size_t at, length, closer;
  };
  std::vector<Run> runs;
  for (std::size_t k = from; k < to;) {
    if (text[k] != '`') {
      ++k;
      continue;
    }
    const std::size_t start = k;
    while (k < to && text[k] == '`')
      ++k;
    runs.push_back({start, k - start, std::string_view::npos});
  }
  // Each run's closer: the next run of its length (found right to left, linear).
  std::map<std::size_t, std::size_t> next_of_length;
  for (std::size_t r = runs.size(); r-- > 0;) {
    const auto it = next_of_length.find(runs[r].length);
    if (it != next_of_length.end())
      runs[r].closer = it->second;
    next_of_length[runs[r].length] = r;
  }
  std::size_t run = 0;
  for (std::size_t k = from; k < to;) {
    if (text.compare(k, 4, "<!--") == 0) {
      const std::size_t close = text.find("-->", k + 4);
      const std::size_t end = close == std::string_view::npos ? text.size() : close + 3;
      out.push_back({k, end});
      if (end > to)
        return end;
      k = end;
    } else if (text[k] == '`') {
      while (run + 1 < runs.size() && runs[run].at < k)
        ++run;
      const Run &opener = runs[run];
      k = opener.closer == std::string_view::npos ? k + opener.length
                                                  : runs[opener.closer].at + runs[opener.closer].length;
    } else {
      ++k;
    }
  }
  return to;
}

// Markdown: HTML comments. Fenced code blocks and code spans are data.
void markdown_comments(std::string_view text, Comments &out) {
  std::size_t at = 0;
  bool in_fence = false;
  char fence_char = 0;
  std::size_t fence_length = 0;
  while (at < text.size()) {
    std::size_t end = line_end(text, at);
    const std::string_view line = text.substr(at, end - at);
    char c = 0;
    std::size_t length = 0;
    const bool fence = fence_at(line, c, length);
    if (in_fence) {
      if (fence && c == fence_char && length >= fence_length &&
          trim(line).find_first_not_of(c) == std::string_view::npos)
        in_fence = false;
    } else if (fence) {
      in_fence = true;
      fence_char = c;
      fence_length = length;
    } else {
      std::size_t stop = prose_line_comments(text, at, end, out);
      while (stop > end) { // a comment ran past the line: go on after it
        end = line_end(text, stop);
        stop = prose_line_comments(text, stop, end, out);
      }
    }
    at = end + 1;
  }
}

bool is_makefile(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string name = to_lower(slash == std::string_view::npos ? path : path.substr(slash + 1));
  return name == "makefile" || name == "gnumakefile" || ends_with(name, ".mk");
}

} // namespace

std::vector<CommentSpan> find_comments(FileKind kind, std::string_view path, std::string_view text) {
  Comments out;
  switch (kind) {
  case FileKind::Python:
  case FileKind::Notebook:
  case FileKind::SetupPy:
    PythonLexer(text, out).run();
    break;
  case FileKind::Cxx:
  case FileKind::Cuda:
  case FileKind::Metal:
    c_comments(text, out);
    break;
  case FileKind::Cmake:
    cmake_comments(text, out);
    break;
  case FileKind::Pyproject:
    toml_comments(text, out);
    break;
  case FileKind::CondaEnv:
    yaml_comments(text, out);
    break;
  case FileKind::ModelConfig:
    if (!ends_with(to_lower(path), ".json")) // JSON has no comments
      yaml_comments(text, out);
    break;
  case FileKind::Requirements:
    requirements_comments(text, out);
    break;
  case FileKind::SetupCfg:
  case FileKind::GitModules: // git-config syntax: # and ; comments
    ini_comments(text, out);
    break;
  case FileKind::Shell:
    if (is_makefile(path))
      makefile_comments(text, out);
    else
      shell_comments(text, 0, out);
    break;
  case FileKind::Dockerfile:
    shell_comments(text, 0, out);
    break;
  case FileKind::Prose:
    markdown_comments(text, out);
    break;
  case FileKind::Checkpoint:
  case FileKind::Unknown:
    break;
  }
  return out;
}

} // namespace mpsaudit
