// Text from the scanned tree (file and pickle names, messages that quote
// them, paths) placed in a Markdown report: a pull-request comment or a job
// summary, rendered by GitHub. Every such text goes through markdown_text,
// or markdown_code for a code span (docs/report-formats.md, docs/security.md).
#pragma once

#include <string>
#include <string_view>

namespace mpsaudit {

// One line of Markdown text that stays what it is: no raw HTML (`<` becomes
// `&lt;`, so `<!--` cannot hide the rest of the report and `<script>` or
// `<img>` never reach the page), no link or image (`](` becomes `]\(`), no
// line break that could start a block, and no `|` that ends a table cell (a
// backslash before it is doubled, so that the pipe's own escape holds).
// Control characters and bidi overrides are shown as escapes (terminal_safe).
// Emphasis characters stay as they are: they change how text looks, never
// what it says.
std::string markdown_text(std::string_view text);

// `markdown_text(text)` as inline code, fenced with more backticks than the
// longest run inside it so that no backtick in the text can end the span.
std::string markdown_code(std::string_view text);

} // namespace mpsaudit
