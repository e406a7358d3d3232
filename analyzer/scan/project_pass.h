// Project passes: analyses that need more than one file (a CUDA op registered
// here and its CPU registration there; a dependency declared in
// requirements.txt and imported in code). They run after every file's facts
// are extracted and before rules are evaluated, and may add facts to any
// file. A front end's pass is listed in frontend/registry.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/source.h"

namespace mpsaudit {

struct ProjectFile {
  std::string path;
  FileKind kind = FileKind::Unknown;
  FileFacts facts; // the front end's facts; a pass may add to or annotate them
};

// A pass says which fact kinds it reads and which it adds or annotates. The
// scan uses this to evaluate every other fact while its file is still in
// memory and to drop facts nobody needs, which keeps memory flat on large
// trees; rules on the kinds a pass writes wait until the pass has run.
struct ProjectPass {
  std::string name;
  std::vector<std::string> reads;
  std::vector<std::string> writes;
  std::function<void(std::vector<ProjectFile> &files)> run;
  // Narrows `reads` to the facts of those kinds the pass looks at; null:
  // all of them. The scan keeps only these, so a pass that reads a few
  // calls does not keep every call of a large tree.
  std::function<bool(const Fact &fact)> needs;
};

const std::vector<ProjectPass> &project_passes();

} // namespace mpsaudit
