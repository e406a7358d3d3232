// Where the comments of a file are, as its own language reads them.
//
// Inline suppressions (suppression.h) are read from comments only: a marker
// inside a string literal, a shell heredoc, a YAML block scalar or a Markdown
// code span is data, and a scanned repository must not be able to silence
// findings by putting the marker text in data. Each lexer here knows just
// enough of its language to tell comments from strings:
//
//   Python, setup.py, notebook cells   '#' outside strings (every prefix and
//                                      quote form, f-string replacement fields
//                                      with PEP 701 nesting and comments)
//   C++, CUDA, Metal                   '//' (with line splices) and '/* */'
//                                      outside string, character and raw
//                                      string literals
//   CMake                              '#' and '#[[ ]]' outside quoted and
//                                      bracket arguments
//   TOML (pyproject.toml)              '#' outside the four string forms
//   YAML (conda env, model configs)    '#' after a space, outside quoted and
//                                      block scalars
//   requirements files                 '#' at the line start or after a space
//   setup.cfg                          whole lines starting with '#' or ';'
//   shell, Dockerfiles                 '#' starting a word, outside quotes,
//                                      $(...) and heredocs
//   Makefiles                          '#' anywhere in make lines; shell rules
//                                      in recipe lines
//   Markdown and other prose           '<!-- -->' outside code spans and fenced
//                                      code blocks
//   JSON model configs, unknown kinds  none
//
// The lexers never fail: malformed input (an unterminated string) ends the
// current construct at the end of its line or of the text.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/source.h"

namespace mpsaudit {

struct CommentSpan {
  std::size_t begin = 0; // offset of the comment introducer ('#', "//", "/*", "<!--", ';')
  std::size_t end = 0;   // one past its last byte; a line comment's newline (and '\r') excluded
};

// The comments of `text`, in order. `path` tells Makefiles from shell
// scripts and JSON model configs from YAML ones. A notebook's cells are
// Python: pass each code cell's source with FileKind::Notebook.
std::vector<CommentSpan> find_comments(FileKind kind, std::string_view path, std::string_view text);

} // namespace mpsaudit
