// Component roles: what part of a research project a file is. The decision
// weighs a finding by the role of its file (a blocker in the model is worse
// than one in a multi-GPU launcher), and reports roll effort up by role.
//
// A file's role comes from its content first (nn.Module classes, optimizer
// steps, DataLoader use, no_grad/eval) and its path second (models/, train.py,
// tests/); the user can override both with globs (DecisionThresholds in
// decision.h carries the overrides; the config file fills them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/interned_string.h"
#include "core/project_pass.h"
#include "core/role.h"

namespace mpsaudit {

struct AssessPolicy; // assess/assess_policy.h: the path words and weights

// A user override: files whose path matches `glob` get `role`.
struct RoleOverride {
  std::string glob;
  Role role = Role::Tooling;
};

// One per file of the tree, so its texts are interned: the path is the one
// the file's findings hold, and the reasons repeat from file to file.
struct FileRole {
  InternedString path;
  Role role = Role::Tooling;
  // Why: "3 nn.Module classes", "path: models/", "override: src/net/**".
  std::vector<InternedString> reasons;
};

// What one fact says about its file's role: the content evidence that
// classify_roles() counts, once per kind of signal and file. The scan keeps
// only facts with a signal for the roles (assessment_retention), so this one
// function decides both what is read and what is kept.
enum class RoleSignal : std::uint8_t {
  NnModule,      // class-def of an nn.Module subclass
  Forward,       // def forward
  Optimizer,     // torch.optim.* constructed (not an lr_scheduler)
  Backward,      // .backward(), torch.autograd.backward
  OptimizerStep, // .step(), .zero_grad()
  DataLoader,    // DataLoader, DistributedSampler
  Dataset,       // imports torch.utils.data.Dataset / IterableDataset
  NoGrad,        // torch.no_grad, torch.inference_mode, .eval()
  Argparse,      // argparse.*
  MainGuard,     // if __name__ == "__main__"
};
inline constexpr std::size_t kRoleSignalCount = 10;
std::optional<RoleSignal> role_signal(const Fact &fact);

// Classifies every file by the policy's path words and weights; the result
// is in the order of `files`.
std::vector<FileRole> classify_roles(const std::vector<ProjectFile> &files,
                                     const std::vector<RoleOverride> &overrides, const AssessPolicy &policy);

// The roles keyed by path, for lookups.
std::map<std::string, Role> role_by_path(const std::vector<FileRole> &roles);

// Where tests and docs/examples live by place (the same test classify_roles
// applies): the policy's test directories (`tests/`), `test_*.py`,
// `conftest.py`; its docs directories (`docs/`, `examples/`, `notebooks/`).
// Entry-point discovery scopes its entries with them.
bool is_test_file(std::string_view path, const AssessPolicy &policy);
bool is_docs_file(std::string_view path, const AssessPolicy &policy);

// Glob on '/'-separated paths: `*` within a component, `**` across them, `?`.
bool path_glob_match(std::string_view glob, std::string_view path);

} // namespace mpsaudit
