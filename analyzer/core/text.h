// Small text helpers shared by front ends and writers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mpsaudit {

// Offset of the first invalid UTF-8 byte, or npos when `text` is valid.
std::size_t find_invalid_utf8(std::string_view text);
// True when the first `probe` bytes contain a NUL: treated as binary.
bool looks_binary(std::string_view text, std::size_t probe = 8192);
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);
std::string to_lower(std::string_view text);
// PEP 503 name normalisation: lower case, runs of -_. become one '-'.
std::string normalize_package_name(std::string_view name);
// Matches `text` against a glob: '*' any run, '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);
// Replaces invalid UTF-8 sequences with U+FFFD so output stays valid.
std::string sanitize_utf8(std::string_view text);

} // namespace mpsaudit
