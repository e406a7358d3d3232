// The Python front end (tree-sitter) and the notebook front end built on it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "frontend/frontend.h"

namespace mpsaudit {

// Facts of one Python source text. Positions are relative to `source`.
// `timeout_ms` bounds the parse (0: none); past it the file gets a
// "parse-timeout" diagnostic and no facts.
FileFacts extract_python_source(std::string_view source, const std::string &path, unsigned timeout_ms = 0);
// Facts of one notebook: code cells through the Python front end, shell and
// magic lines as `shell` facts, positions mapped to cell/line and file line.
FileFacts extract_notebook_source(std::string_view json_text, const std::string &path,
                                  unsigned timeout_ms = 0);

// The parse alone: the syntax diagnostics and mode extract_python_source
// gives `source`, and no facts. For files the Python prefilter rules out
// (scan/python_prefilter.h): a file that no rule, pass or assessment can
// read anything of still reports its syntax errors.
FileFacts extract_python_syntax_only(std::string_view source, const std::string &path,
                                     unsigned timeout_ms = 0);

// What a Python file must contain for this front end to emit facts of one
// kind. Facts named after names in the source (calls, imports, attributes,
// definitions, settings) are matched by the rules' names: `by_name`. The
// others need one of `words` (lower case) in the file.
struct PythonKindTriggers {
  bool by_name = false;
  std::vector<std::string_view> words;
};
// nullopt: the Python front end never emits `kind`.
std::optional<PythonKindTriggers> python_kind_triggers(std::string_view kind);

void register_python_frontends(ExtractorTable &table);

// Reads the markdown cells of notebooks when a prose front end is built in
// (set once by the registry; null: markdown cells are skipped).
using MarkdownExtractor = FileFacts (*)(std::string_view markdown, const std::string &path);
void set_notebook_markdown_extractor(MarkdownExtractor extractor);

} // namespace mpsaudit
