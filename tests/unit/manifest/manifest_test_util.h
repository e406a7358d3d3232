// Helpers shared by the manifest front-end tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "core/project_pass.h"
#include "frontend/python/python_frontend.h"

namespace mpsaudit::test {

inline std::vector<const Fact *> facts_of(const FileFacts &facts, std::string_view kind,
                                          std::string_view name = {}) {
  std::vector<const Fact *> out;
  for (const Fact &fact : facts.facts)
    if (fact.kind == kind && (name.empty() || fact.name == name))
      out.push_back(&fact);
  return out;
}

inline const Fact *fact_of(const FileFacts &facts, std::string_view kind, std::string_view name) {
  const auto found = facts_of(facts, kind, name);
  return found.empty() ? nullptr : found.front();
}

inline std::string attribute_or_empty(const Fact &fact, std::string_view key) {
  const std::string *value = fact.attribute(key);
  return value ? *value : std::string{};
}

// A Python file of a project, extracted by the Python front end (for the
// project passes' tests).
inline ProjectFile python(const std::string &path, const std::string &text) {
  return ProjectFile{path, FileKind::Python, extract_python_source(text, path)};
}

inline const Diagnostic *diagnostic_with_code(const FileFacts &facts, std::string_view code) {
  for (const auto &diagnostic : facts.diagnostics)
    if (diagnostic.code == code)
      return &diagnostic;
  return nullptr;
}

} // namespace mpsaudit::test
