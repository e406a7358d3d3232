// Project passes: analyses that need more than one file (a CUDA op registered
// here and its CPU registration there; a dependency declared in
// requirements.txt and imported in code). They run after every file's facts
// are extracted and before rules are evaluated, and may add facts to any
// file. A front end's pass is listed in frontend/registry.cpp
// (frontend_project_passes in frontend/frontend.h).
#pragma once

#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/source.h"

namespace mpsaudit {

// What a scan keeps of a fact after its rules have run, for the passes and
// the assessment (ordered: a later value keeps more).
enum class FactRetention : std::uint8_t {
  Drop,
  // Kind and name once in a file, at its first place: for readers that ask
  // only whether a file does something at all (calls backward(), steps an
  // optimizer), not where or under which guard.
  Presence,
  // Kind, name, span, scope and guard, once per (kind, name, scope, guard)
  // in a file: for readers that ask whether a file calls or imports
  // something, not how often or with what arguments.
  NameOnly,
  Keep, // the whole fact
};

struct ProjectFile {
  std::string path;
  FileKind kind = FileKind::Unknown;
  FileFacts facts; // the front end's facts; a pass may add to or annotate them
};

// Adds the facts a pass made while it read `file`'s own (collected apart,
// since adding to the vector being read would invalidate the loop).
inline void append_facts(ProjectFile &file, std::vector<Fact> &&added) {
  file.facts.facts.insert(file.facts.facts.end(), std::make_move_iterator(added.begin()),
                          std::make_move_iterator(added.end()));
}

// A pass says which fact kinds it reads and which it adds or annotates. The
// scan uses this to evaluate every other fact while its file is still in
// memory and to drop facts nobody needs, which keeps memory flat on large
// trees; rules on the kinds a pass writes wait until the pass has run.
struct ProjectPass {
  std::string name;
  std::vector<std::string> reads;
  std::vector<std::string> writes;
  std::function<void(std::vector<ProjectFile> &files)> run;
  // What the pass needs of each fact of the kinds it reads; null: all of
  // it. The scan keeps only that, so a pass that reads a few calls does not
  // keep every call of a large tree.
  std::function<FactRetention(const Fact &fact)> retention;
  // Words (any case) a Python file must contain for this pass to read or
  // write anything of it; empty when it reads no Python facts. The Python
  // prefilter (scan/python_prefilter.h) extracts only files that contain a
  // word some rule, pass or the assessment needs.
  std::vector<std::string> python_triggers;
  // What `retention` reads besides the fact (the operator-coverage tables),
  // named so that the result cache, which keeps what retention leaves, knows
  // when its entries no longer hold; null when retention reads the fact alone.
  std::function<std::string()> retention_inputs = nullptr;
};

} // namespace mpsaudit
