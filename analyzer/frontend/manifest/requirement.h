// PEP 508 requirement strings, environment markers and index URLs: the parts
// every manifest reader shares (requirements files, pyproject, setup.py,
// setup.cfg, the pip section of conda environments, `pip install` in shell).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/fact.h"

namespace mpsaudit::manifest {

struct Requirement {
  std::string name;            // as written
  std::size_t name_offset = 0; // byte offset of the name within the parsed text
  std::string extras;          // comma-separated, as written
  std::string specifier;       // ">=2.0,<3" or "==2.1.0+cu118" (whitespace removed)
  std::string version;         // the pinned version of == / ===, else empty
  std::string local_version;   // the part after '+', e.g. cu118
  std::string marker;          // the environment marker after ';'
  std::string url;             // `name @ url`, or the direct/VCS URL
};

// Parses one requirement. Returns nullopt and sets `error` when the text is
// not a requirement (for instance a bare local path without a name).
std::optional<Requirement> parse_requirement(std::string_view text, std::string &error);

// Evaluates a PEP 508 marker for an Apple-Silicon Mac (sys_platform darwin,
// platform_machine arm64). Variables it cannot know (python_version, extra)
// make a comparison unknown.
enum class MarkerOutcome : std::uint8_t { True, False, Unknown };
MarkerOutcome evaluate_marker_on_mac(std::string_view marker);

// The CUDA flavour an index or wheel URL serves: "cu118" for a path segment
// or local tag like /whl/cu118 or +cu118, "cuda" for jax_cuda_releases-like
// names, "nvidia" for NVIDIA's own package index; empty when none.
std::string cuda_tag_of(std::string_view url);

// A fact located on one line; columns are 1-based bytes.
Fact make_fact(std::string_view kind, std::string name, std::uint32_t line, std::uint32_t column,
               std::uint32_t length);

// The `dependency` fact for a parsed requirement, with its attributes and a
// platform guard when the marker excludes the Mac. `source` names the reader.
Fact dependency_fact(const Requirement &requirement, std::string_view raw_text, std::string_view source,
                     std::uint32_t line, std::uint32_t column);

// Adds a diagnostic at `line` of `path`.
void add_diagnostic(FileFacts &facts, DiagnosticLevel level, const std::string &path, std::uint32_t line,
                    std::string code, std::string message);

} // namespace mpsaudit::manifest
