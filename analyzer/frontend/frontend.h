// The front-end registry: one extractor per file kind.
//
// A front end turns one loaded file into facts (core/fact.h). It must never
// throw on bad input and never execute anything: problems become diagnostics
// in FileFacts::diagnostics, and whatever could be understood is still
// returned. Front ends are registered by kind in frontend/registry.cpp: each front end library
// exposes `void register_<name>_frontends(ExtractorTable &)`.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <utility>

#include "core/fact.h"
#include "core/source.h"

namespace mpsaudit {

struct ExtractOptions {
  // Directory holding compile_commands.json for C++/CUDA files (-p), or empty.
  std::string compile_commands_dir;
  // Root of the scan, for front ends that resolve includes (requirements -r).
  std::string root;
};

using Extractor = std::function<FileFacts(const SourceFile &, const ExtractOptions &)>;

// Front ends register their extractors here, one per file kind.
class ExtractorTable {
public:
  void add(FileKind kind, Extractor extractor) { extractors_[static_cast<std::size_t>(kind)] = std::move(extractor); }
  const Extractor *find(FileKind kind) const {
    const auto &slot = extractors_[static_cast<std::size_t>(kind)];
    return slot ? &slot : nullptr;
  }

private:
  std::array<Extractor, static_cast<std::size_t>(FileKind::Unknown) + 1> extractors_{};
};

// Returns the extractor for `kind`, or nullptr when no front end reads it.
const Extractor *find_extractor(FileKind kind);

} // namespace mpsaudit
