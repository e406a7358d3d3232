// The Python front end (tree-sitter) and the notebook front end built on it.
#pragma once

#include <string_view>

#include "core/fact.h"
#include "frontend/frontend.h"

namespace mpsaudit {

// Facts of one Python source text. Positions are relative to `source`.
FileFacts extract_python_source(std::string_view source, const std::string &path);
// Facts of one notebook: code cells through the Python front end, shell and
// magic lines as `shell` facts, positions mapped to cell/line and file line.
FileFacts extract_notebook_source(std::string_view json_text, const std::string &path);

void register_python_frontends(ExtractorTable &table);

} // namespace mpsaudit
