// Small text helpers shared by front ends and writers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mpsaudit {

// Offset of the first invalid UTF-8 byte, or npos when `text` is valid.
std::size_t find_invalid_utf8(std::string_view text);
// The number of '\n' bytes, eight bytes at a time.
std::size_t count_newlines(std::string_view text);
// True when the first `probe` bytes contain a NUL: treated as binary.
bool looks_binary(std::string_view text, std::size_t probe = 8192);
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);
// Whether `word` is one of `words` (a word list of rules/assess.toml, a
// config's list of names), compared exactly.
bool is_one_of(std::string_view word, const std::vector<std::string> &words);
std::string to_lower(std::string_view text);
// Bytes as lower-case hex, two digits a byte (object ids, digests).
std::string to_hex(std::string_view bytes);
// The directory part of a relative path ("a/b" for "a/b/c.py"); `at_top` for
// a path with no directory.
std::string parent_directory(std::string_view path, std::string_view at_top = ".");
// PEP 503 name normalisation: lower case, runs of -_. become one '-'.
std::string normalize_package_name(std::string_view name);
// An ASCII identifier: a letter or '_', then letters, digits and '_' (a
// Python module name as an import statement spells it).
bool is_ascii_identifier(std::string_view name);
// Matches `text` against a glob: '*' any run, '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);
// Calls `visit` with each item of a comma-separated list ("a,b,c"); empty
// items included, none for an empty list.
template <typename Visit> void for_each_listed_name(std::string_view names, Visit visit) {
  while (!names.empty()) {
    const auto comma = names.find(',');
    visit(names.substr(0, comma));
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
  }
}
// A count and its noun, singular for one: counted(1, "open finding") is
// "1 open finding", counted(3, "distinct fix", "distinct fixes") is
// "3 distinct fixes". Without `plural`, the singular with an "s".
std::string counted(std::size_t count, std::string_view singular, std::string_view plural = {});
// Replaces invalid UTF-8 sequences with U+FFFD so output stays valid.
std::string sanitize_utf8(std::string_view text);

// Which layout characters terminal_safe leaves as they are.
enum class KeepLayout {
  None,
  Tab,           // code snippets: tabs keep the caret line aligned
  TabAndNewline, // multi-line text: '\n', and '\r' only right before '\n'
};
// Text from the scanned tree (file names, code, names read from pickles,
// imported records) made safe to show on a terminal or in a text viewer:
// C0 control characters (ESC, BEL, CR...), DEL and C1 controls become visible
// escapes (`\x1b`, `\x7f`, `\u009b`), as do the Unicode bidirectional
// controls that reorder what is shown, "Trojan Source" (U+202A-U+202E,
// U+2066-U+2069, U+200E, U+200F, U+061C: `\u202e`); a byte that is not
// UTF-8 becomes `\xff`. Every human-readable writer passes such text
// through here (docs/security.md).
std::string terminal_safe(std::string_view text, KeepLayout keep = KeepLayout::None);

// Fitting a line to a terminal `width` columns wide. A column is a code
// point; the colour sequences a Palette paints (ESC [ ... m) take none and
// are never split.
std::size_t display_width(std::string_view text);
// `text` cut to `width` columns, the last one an ellipsis when anything was
// cut (and the colour reset, when the cut falls inside a painted span);
// unchanged when it fits.
std::string cut_to_width(std::string_view text, std::size_t width);
// `text` broken at spaces into lines of at most `width` columns, never
// inside a word; the lines after the first start with `indent` spaces. A
// word longer than a line is cut to it. Lines joined by '\n', none after
// the last.
std::string wrap_to_width(std::string_view text, std::size_t width, std::size_t indent);

} // namespace mpsaudit
