#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/text.h"

using namespace mpsaudit;

TEST_CASE("terminal_safe makes control characters visible", "[core][text][security]") {
  CHECK(terminal_safe("plain text: a/b.py") == "plain text: a/b.py");
  CHECK(terminal_safe("\x1b[31mred\x07") == "\\x1b[31mred\\x07");
  CHECK(terminal_safe("a\rb\nc\td\x7f") == "a\\x0db\\x0ac\\x09d\\x7f");
  CHECK(terminal_safe(std::string("nul\0byte", 8)) == "nul\\x00byte");
}

TEST_CASE("terminal_safe escapes C1 controls and Trojan Source bidi controls", "[core][text][security]") {
  CHECK(terminal_safe("\xc2\x9b"
                      "31m") == "\\u009b31m");           // U+009B, CSI
  CHECK(terminal_safe("\xc2\x85") == "\\u0085");         // U+0085, NEL
  CHECK(terminal_safe("x\xe2\x80\xaey") == "x\\u202ey"); // U+202E RLO
  CHECK(terminal_safe("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9") == "\\u202a\\u2066\\u2069");
  CHECK(terminal_safe("\xe2\x80\x8f\xd8\x9c") == "\\u200f\\u061c"); // RLM, ALM
  // Printable Unicode stays as it is.
  CHECK(terminal_safe("café – ✓ 日本") == "café – ✓ 日本");
  CHECK(terminal_safe("\xe2\x80\x94") == "\xe2\x80\x94"); // U+2014, next to the bidi block
}

TEST_CASE("terminal_safe shows bytes that are not UTF-8 as escapes", "[core][text][security]") {
  CHECK(terminal_safe("caf\xe9.py") == "caf\\xe9.py");
  CHECK(terminal_safe("\x9b[2J") == "\\x9b[2J"); // a lone C1 byte, which 8-bit terminals obey
  CHECK(terminal_safe("\xe2\x80") == "\\xe2\\x80");
}

TEST_CASE("terminal_safe keeps the layout it is asked to keep", "[core][text][security]") {
  CHECK(terminal_safe("\tx = 1", KeepLayout::Tab) == "\tx = 1");
  CHECK(terminal_safe("a\nb", KeepLayout::Tab) == "a\\x0ab");
  CHECK(terminal_safe("a\nb\r\nc\rd\t", KeepLayout::TabAndNewline) == "a\nb\r\nc\\x0dd\t");
  CHECK(terminal_safe("end\r", KeepLayout::TabAndNewline) == "end\\x0d");
}

TEST_CASE("count_newlines counts every newline, whatever the bytes around it", "[core][text]") {
  // Every length and offset around the eight-byte words, with bytes whose
  // difference from '\n' could carry into a neighbour (0x00, 0x0b, 0x8a, 0xff).
  std::string text;
  std::uint32_t state = 2463534242U;
  for (int i = 0; i < 300; ++i) {
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    const char bytes[] = {'\n', '\0', '\x0b', '\x8a', '\xff', 'a', '\n', '\x09'};
    text += bytes[state % 8];
  }
  for (std::size_t start = 0; start < 9; ++start)
    for (std::size_t length = 0; start + length <= text.size(); length += 7) {
      const std::string_view part = std::string_view(text).substr(start, length);
      INFO("start " << start << ", length " << length);
      CHECK(count_newlines(part) == static_cast<std::size_t>(std::count(part.begin(), part.end(), '\n')));
    }
  CHECK(count_newlines(std::string(1000, '\n')) == 1000);
  CHECK(count_newlines("") == 0);
}

TEST_CASE("counted says one thing in the singular and the rest in the plural", "[core][text]") {
  CHECK(counted(1, "open finding") == "1 open finding");
  CHECK(counted(0, "open finding") == "0 open findings");
  CHECK(counted(16, "site") == "16 sites");
  CHECK(counted(1, "distinct fix", "distinct fixes") == "1 distinct fix");
  CHECK(counted(3, "distinct fix", "distinct fixes") == "3 distinct fixes");
}

TEST_CASE("a line fits a terminal: colours take no column, cuts end in an ellipsis", "[core][text][width]") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("2\u20133 h") == 5);                // the en dash is one column
  CHECK(display_width("\x1b[1;31mKEEP\x1b[0m now") == 8); // colour sequences take none
  CHECK(cut_to_width("short", 10) == "short");            // fits: unchanged
  CHECK(cut_to_width("abcdefghij", 5) == "abcd\u2026");   // five columns, the last an ellipsis
  CHECK(display_width(cut_to_width("abcdefghij", 5)) == 5);
  CHECK(cut_to_width("\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9", 4) ==
        "\u00e9\u00e9\u00e9\u2026"); // never half a code point
  // Cut inside a painted span: the colour is reset after the ellipsis.
  CHECK(cut_to_width("\x1b[31mabcdef\x1b[0m", 4) == "\x1b[31mabc\u2026\x1b[0m");
}

TEST_CASE("wrapping breaks at spaces, never inside a word", "[core][text][width]") {
  CHECK(wrap_to_width("fits as it is", 40, 4) == "fits as it is");
  CHECK(wrap_to_width("  - one two three four five", 14, 4) == "  - one two\n    three four\n    five");
  for (const std::string line : {"  - one two", "    three four", "    five"})
    CHECK(display_width(line) <= 14);
  // The near case: a word longer than the line is cut, not split across lines.
  CHECK(wrap_to_width("a supercalifragilistic word", 12, 2) == "a\n  supercali\u2026\n  word");
}
