// Helpers shared by the C++/CUDA front end's tests: extract a file from a
// string, find its facts and read their attributes.
#pragma once

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/project_pass.h"
#include "frontend/cxx/cxx_frontend.h"

namespace mpsaudit::test {

inline SourceFile source(const std::string &path, const std::string &text) {
  SourceFile file;
  file.path = path;
  file.kind = classify_path(path);
  file.text = text;
  return file;
}

inline FileFacts extract(const std::string &path, const std::string &text,
                         CxxParseMode mode = CxxParseMode::Auto, const ExtractOptions &options = {}) {
  return extract_cxx_file(source(path, text), options, mode);
}

// One C/C++/CUDA file of a project, extracted on the lexical path.
inline ProjectFile cxx_file(const std::string &path, const std::string &text) {
  ProjectFile file;
  file.path = path;
  file.kind = classify_path(path);
  file.facts = extract(path, text, CxxParseMode::Lexical);
  return file;
}

inline std::vector<const Fact *> facts_of(const FileFacts &facts, const std::string &kind) {
  std::vector<const Fact *> found;
  for (const auto &fact : facts.facts)
    if (fact.kind == kind)
      found.push_back(&fact);
  return found;
}

inline const Fact *find_fact(const FileFacts &facts, const std::string &kind, const std::string &name) {
  for (const auto &fact : facts.facts)
    if (fact.kind == kind && fact.name == name)
      return &fact;
  return nullptr;
}

// The op-registration fact `name` of `file`.
inline const Fact &registration(const ProjectFile &file, const std::string &name) {
  for (const auto &fact : file.facts.facts)
    if (fact.kind == "op-registration" && fact.name == name)
      return fact;
  FAIL("no registration " << name << " in " << file.path);
  throw;
}

inline std::string attribute(const Fact &fact, const std::string &key) {
  const std::string *value = fact.attribute(key);
  return value ? *value : "<absent>";
}

inline std::string attribute(const Fact *fact, const std::string &key) {
  REQUIRE(fact != nullptr);
  return attribute(*fact, key);
}

} // namespace mpsaudit::test
