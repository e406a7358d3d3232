// The assessment's vocabulary and weights as data (rules/assess.toml): the
// path words that hint at a file's role and what each kind of content
// evidence weighs, the words that name a script's purpose and the flags only
// training takes, and the Macs' memory tiers. The build embeds the source
// tree's file as the default (bundled_assess_policy); a session reads the
// rules directory's own, with problems named by file and line, as it reads
// rules/effort.toml.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/diagnostic.h"
#include "core/fact.h"
#include "core/role.h"

namespace mpsaudit {

enum class EntryPurpose : std::uint8_t; // assess/entry_points.h

// What each kind of content evidence adds to a file's role, once per file
// (assess/roles.cpp, content_evidence).
struct RoleWeights {
  int nn_module_classes = 0;
  int defines_forward = 0;
  int optimizer = 0;
  int backward = 0;
  int optimizer_step = 0;
  int data_loader = 0;
  int dataset = 0;
  int no_grad = 0;
  int script = 0;
  int path_hint = 0;
};

struct AssessPolicy {
  std::vector<std::pair<std::string, Role>> path_hints; // word -> role
  std::vector<std::string> test_directories;
  std::vector<std::string> docs_directories;
  RoleWeights weights;
  std::vector<std::pair<std::string, EntryPurpose>> purpose_words; // word -> purpose
  std::vector<std::string> training_flags;
  std::vector<std::string> code_generator_lines;     // a written line that makes a script a code generator
  std::vector<std::string> launchers;                // globs on a shell command's name
  std::vector<std::string> container_directories;    // lower case
  std::vector<std::string> not_the_op;               // words of an op's name that are not the op
  std::vector<std::string> kernel_variant_words;     // tokens naming a variant of one kernel
  std::vector<std::string> kernel_numbered_prefixes; // ... and prefixes of numbered ones (hdim64)
  std::vector<int> mac_memory_tiers_gb;              // ascending
  std::string origin;                                // the file it came from

  int largest_mac_gb() const { return mac_memory_tiers_gb.empty() ? 0 : mac_memory_tiers_gb.back(); }
  // Whether a shell command (a fact's name: `python3`, `torchrun`) runs the
  // script its arguments name.
  bool is_launcher(std::string_view command) const;
  // Whether a call writes generated C/C++/CUDA source (`f.write("#include
  // ...")`, `path.write_text("#pragma once ...")`): its written line, or "".
  std::string generated_source_line(const Fact &call) const;
  // The first such line a file writes: "" unless it is a code generator.
  std::string generated_source_line(const std::vector<Fact> &facts) const;
};

// Reads a policy from TOML text; every list and weight is required, and a
// problem is appended to `diagnostics` naming `origin` and the line.
AssessPolicy parse_assess_policy(std::string_view text, const std::string &origin,
                                 std::vector<Diagnostic> &diagnostics);
// Reads the file at `path` the same way.
AssessPolicy load_assess_policy(const std::string &path, std::vector<Diagnostic> &diagnostics);
// rules/assess.toml as this binary was built with it.
const AssessPolicy &bundled_assess_policy();

} // namespace mpsaudit
