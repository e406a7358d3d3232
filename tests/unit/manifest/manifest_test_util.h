// Helpers shared by the manifest front-end tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

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

// The first fact of `kind` named `name`; REQUIREs that there is one.
inline const Fact &required_fact(const FileFacts &facts, std::string_view kind, std::string_view name) {
  const Fact *fact = fact_of(facts, kind, name);
  INFO("a " << kind << " fact named " << name);
  REQUIRE(fact);
  return *fact;
}

inline std::string attribute_or_empty(const Fact &fact, std::string_view key) {
  const std::string *value = fact.attribute(key);
  return value ? *value : std::string{};
}

// CHECKs where `fact` starts: its line, then its column.
inline void check_position(const Fact &fact, std::uint32_t line, std::uint32_t column) {
  CHECK(fact.span.line == line);
  CHECK(fact.span.column == column);
}

// CHECKs the attributes of `fact`, one assertion a key; a failing one names
// its key.
inline void check_attributes(const Fact &fact,
                             const std::vector<std::pair<std::string, std::string>> &expected) {
  for (const auto &[key, value] : expected) {
    INFO("attribute " << key);
    CHECK(attribute_or_empty(fact, key) == value);
  }
}

// "line:name:field:..." for every fact of `kind` in `file`, in order: the
// facts a project pass added, as one list a test compares whole. A field is
// an attribute's value, or for the key "guard" the fact's guard.
inline std::vector<std::string> fact_summaries(const ProjectFile &file, std::string_view kind,
                                               const std::vector<std::string> &fields) {
  std::vector<std::string> summaries;
  for (const Fact &fact : file.facts.facts) {
    if (fact.kind != kind)
      continue;
    std::string summary = std::to_string(fact.span.line) + ":" + fact.name;
    for (const std::string &field : fields)
      summary +=
          ":" + (field == "guard" ? std::string(to_string(fact.guard)) : attribute_or_empty(fact, field));
    summaries.push_back(summary);
  }
  return summaries;
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
