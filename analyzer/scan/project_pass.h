// Project passes: analyses that need more than one file (a CUDA op registered
// here and its CPU registration there; a dependency declared in
// requirements.txt and imported in code). They run after every file's facts
// are extracted and before rules are evaluated, and may add facts to any
// file. Register a pass in scan/project_pass.cpp.
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

using ProjectPass = std::function<void(std::vector<ProjectFile> &files)>;

const std::vector<ProjectPass> &project_passes();

} // namespace mpsaudit
