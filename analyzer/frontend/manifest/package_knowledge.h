// The package knowledge base, rules/packages.toml: CUDA-only and CUDA-tied
// distributions with their Apple-Silicon status, and the import names of
// distributions (faiss-gpu provides faiss, opencv-python provides cv2). It is
// compiled into the analyzer (see CMakeLists.txt) and read by the dependency
// project pass; the dependency rules in rules/dependencies.toml name the same
// packages, and tests/unit/manifest checks that the two agree.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "core/fact.h"

namespace mpsaudit::manifest {

struct PackageEntry {
  std::string name;                 // PEP 503 normalised; may be a glob (nvidia-*-cu12)
  std::string ecosystem = "pypi";   // pypi | conda
  std::vector<std::string> imports; // top-level modules it provides; empty: none (a tool, a runtime)
  bool has_imports_key = false;     // false: imports unknown, derive from the name
  std::string status;               // none | partial | cpu-only | mps | n/a (pure mapping entries)
  std::string mac_since;            // version from which Mac support holds, if any
  std::string alternative;
  std::string effort;
  std::string rule; // the dependency rule that reports it
  std::vector<std::string> sources;
};

struct PackageKnowledge {
  std::vector<PackageEntry> packages;
  // The entry for a normalised distribution name (globs allowed in entries).
  const PackageEntry *find(std::string_view distribution) const;
  // Top-level modules `distribution` provides: from the knowledge base, else
  // the name with '-' turned into '_'.
  std::vector<std::string> imports_of(std::string_view distribution) const;
};

// Parses packages.toml text; problems are appended to `diagnostics`.
PackageKnowledge parse_package_knowledge(std::string_view toml_text, const std::string &origin,
                                         std::vector<Diagnostic> &diagnostics);
// The compiled-in rules/packages.toml.
std::string_view embedded_packages_toml();
const PackageKnowledge &package_knowledge();

// The top-level modules of the packages that never run on a Mac (status
// "none"): triton, flash_attn, ...
std::set<std::string> modules_without_mac_support();

// Adds what the knowledge base says about a `dependency` fact's package as
// attributes mac_status, mac_since, alternative (for rule messages).
void annotate_dependency(Fact &fact);

// '*' matches any run, '?' one character (the rule engine's glob dialect).
bool package_glob_match(std::string_view pattern, std::string_view text);

} // namespace mpsaudit::manifest
