// The Python front end (tree-sitter) and the notebook front end built on it.
#pragma once

#include <string_view>

#include "core/fact.h"
#include "frontend/frontend.h"

namespace mpsaudit {

// Facts of one Python source text. Positions are relative to `source`.
// `timeout_ms` bounds the parse (0: none); past it the file gets a
// "parse-timeout" diagnostic and no facts.
FileFacts extract_python_source(std::string_view source, const std::string &path, unsigned timeout_ms = 0);
// Facts of one notebook: code cells through the Python front end, shell and
// magic lines as `shell` facts, positions mapped to cell/line and file line.
FileFacts extract_notebook_source(std::string_view json_text, const std::string &path, unsigned timeout_ms = 0);

void register_python_frontends(ExtractorTable &table);

// Reads the markdown cells of notebooks when a prose front end is built in
// (set once by the registry; null: markdown cells are skipped).
using MarkdownExtractor = FileFacts (*)(std::string_view markdown, const std::string &path);
void set_notebook_markdown_extractor(MarkdownExtractor extractor);

} // namespace mpsaudit
