// Logical lines: physical lines joined at a trailing backslash, the way pip,
// shells and Dockerfiles continue a line, with a map back to line:column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpsaudit::manifest {

struct LogicalLine {
  std::string text;
  struct Piece {
    std::size_t offset;   // in text
    std::uint32_t line;   // physical, 1-based
    std::uint32_t column; // 1-based column of the piece's first byte
  };
  std::vector<Piece> pieces;

  // 1-based line and column of byte `offset` of text.
  std::pair<std::uint32_t, std::uint32_t> position(std::size_t offset) const {
    const Piece *best = &pieces.front();
    for (const auto &piece : pieces)
      if (piece.offset <= offset)
        best = &piece;
    return {best->line, best->column + static_cast<std::uint32_t>(offset - best->offset)};
  }
  std::uint32_t first_line() const { return pieces.front().line; }
};

// Splits `text` into logical lines. `joins_comment_lines`: a line that is a
// comment inside a continuation is dropped (Dockerfile behaviour).
inline std::vector<LogicalLine> logical_lines(std::string_view text, std::uint32_t first_line = 1,
                                              bool drops_comment_lines = false) {
  std::vector<LogicalLine> lines;
  LogicalLine current;
  bool continuing = false;
  std::uint32_t line_number = first_line;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view physical = text.substr(start, end - start);
    if (!physical.empty() && physical.back() == '\r')
      physical.remove_suffix(1);
    const auto first = physical.find_first_not_of(" \t");
    const bool comment_line = first != std::string_view::npos && physical[first] == '#';
    if (continuing && drops_comment_lines && comment_line) {
      // skipped: Docker ignores comment lines inside a continued instruction
    } else {
      if (!continuing)
        current = LogicalLine{};
      current.pieces.push_back({current.text.size(), line_number, 1});
      const bool joins = !physical.empty() && physical.back() == '\\';
      current.text.append(joins ? physical.substr(0, physical.size() - 1) : physical);
      if (joins)
        current.text.push_back(' ');
      continuing = joins;
      if (!continuing)
        lines.push_back(std::move(current));
    }
    if (end == text.size())
      break;
    start = end + 1;
    ++line_number;
  }
  if (continuing)
    lines.push_back(std::move(current));
  return lines;
}

} // namespace mpsaudit::manifest
