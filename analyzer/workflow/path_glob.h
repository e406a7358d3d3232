// Path globs for config files (include, exclude, per-path ignores, roles).
//
// The syntax users know from .gitignore and ruff's per-file-ignores:
//   *      any run of characters within one path segment
//   **     any number of whole segments ("src/**/*.py", "**/tests")
//   ?      one character other than '/'
//   [abc]  one of the characters; [!abc] or [^abc] negates; a-z ranges
// A pattern without '/' matches a file or directory name at any depth
// ("*_test.py", "third_party"). A pattern that matches a directory also
// matches everything beneath it ("vendor/", "docs").
#pragma once

#include <string_view>

namespace mpsaudit {

// True when `relative_path` ('/'-separated, relative to the scan root) or one
// of its parent directories matches `pattern`.
bool path_pattern_match(std::string_view pattern, std::string_view relative_path);

} // namespace mpsaudit
