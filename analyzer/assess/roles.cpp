#include "assess/roles.h"

#include <array>
#include <string>

#include "assess/assess_policy.h"
#include "core/fact_kinds.h"
#include "core/text.h"

namespace mpsaudit {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start)
      parts.push_back(path.substr(start, end - start));
    if (slash == std::string_view::npos)
      break;
    start = slash + 1;
  }
  return parts;
}

std::string stem_of(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  return to_lower(dot == std::string_view::npos || dot == 0 ? name : name.substr(0, dot));
}

bool is_test_path(const std::vector<std::string_view> &parts, const AssessPolicy &policy) {
  for (std::size_t i = 0; i + 1 < parts.size(); ++i)
    if (is_one_of(to_lower(parts[i]), policy.test_directories))
      return true;
  if (parts.empty())
    return false;
  const std::string stem = stem_of(parts.back());
  return starts_with(stem, "test_") || ends_with(stem, "_test") || stem == "conftest";
}

bool is_docs_path(const std::vector<std::string_view> &parts, const AssessPolicy &policy) {
  for (std::size_t i = 0; i + 1 < parts.size(); ++i)
    if (is_one_of(to_lower(parts[i]), policy.docs_directories))
      return true;
  return false;
}

// Role evidence accumulated for one file: content counts and path hints.
struct Evidence {
  std::array<int, kRoleCount> score{};
  std::array<std::vector<std::string>, kRoleCount> reasons;
  void add(Role role, int weight, std::string reason) {
    score[static_cast<int>(role)] += weight;
    reasons[static_cast<int>(role)].push_back(std::move(reason));
  }
  // On a tie the place wins: a file in eval/ that also runs under no_grad is
  // evaluation, as its author filed it.
  bool has_path_reason(int role) const {
    for (const std::string &reason : reasons[role])
      if (starts_with(reason, "path: "))
        return true;
    return false;
  }
};

} // namespace

std::optional<RoleSignal> role_signal(const Fact &fact) {
  if (fact.kind == fact_kind::ClassDef) {
    const std::string *nn_module = fact.attribute("nn_module");
    if (nn_module && *nn_module == "true")
      return RoleSignal::NnModule;
  } else if (fact.kind == fact_kind::FunctionDef) {
    if (fact.name == "forward")
      return RoleSignal::Forward;
  } else if (fact.kind == fact_kind::Call) {
    const std::string &name = fact.name;
    if (starts_with(name, "torch.optim.") && name.find("lr_scheduler") == std::string::npos)
      return RoleSignal::Optimizer;
    // Method calls keep their receiver's name (`loss.backward`), or "?"
    // when the receiver is an expression (`model(x).sum().backward`).
    if (ends_with(name, ".backward") || name == "torch.autograd.backward")
      return RoleSignal::Backward;
    if (ends_with(name, ".step") || ends_with(name, ".zero_grad"))
      return RoleSignal::OptimizerStep;
    if (ends_with(name, "DataLoader") || ends_with(name, ".DistributedSampler"))
      return RoleSignal::DataLoader;
    if (name == "torch.no_grad" || name == "torch.inference_mode" || ends_with(name, ".eval"))
      return RoleSignal::NoGrad;
    if (starts_with(name, "argparse."))
      return RoleSignal::Argparse;
  } else if (fact.kind == fact_kind::Import) {
    if (fact.name == "torch.utils.data.Dataset" || fact.name == "torch.utils.data.IterableDataset")
      return RoleSignal::Dataset;
  } else if (fact.kind == fact_kind::MainGuard) {
    return RoleSignal::MainGuard; // `if __name__ == "__main__":`, when the front end reports it
  }
  return std::nullopt;
}

namespace {

// Content evidence from Python facts. Each kind of evidence counts once per
// file with a weight, so a file is not a "model" because of one stray class.
void content_evidence(const ProjectFile &file, const RoleWeights &weight, Evidence &evidence) {
  std::array<int, kRoleSignalCount> count{};
  for (const Fact &fact : file.facts.facts)
    if (const std::optional<RoleSignal> signal = role_signal(fact))
      ++count[static_cast<std::size_t>(*signal)];
  auto of = [&count](RoleSignal signal) { return count[static_cast<std::size_t>(signal)]; };
  const int modules = of(RoleSignal::NnModule), forwards = of(RoleSignal::Forward),
            optimizers = of(RoleSignal::Optimizer), backward = of(RoleSignal::Backward),
            steps = of(RoleSignal::OptimizerStep), loaders = of(RoleSignal::DataLoader),
            datasets = of(RoleSignal::Dataset), no_grad = of(RoleSignal::NoGrad),
            argparse = of(RoleSignal::Argparse), main_guard = of(RoleSignal::MainGuard);
  // A script is an entry point: the classes it defines serve what it runs
  // (a probe head in an evaluation script), so they do not make it the model.
  const bool script = main_guard > 0;
  if (modules && !script)
    evidence.add(Role::Model, weight.nn_module_classes,
                 counted(static_cast<std::size_t>(modules), "nn.Module class", "nn.Module classes"));
  if (forwards && modules && !script)
    evidence.add(Role::Model, weight.defines_forward, "defines forward()");
  if (optimizers)
    evidence.add(Role::Training, weight.optimizer, "constructs a torch.optim optimizer");
  if (backward)
    evidence.add(Role::Training, weight.backward, "calls backward()");
  if (steps && (optimizers || backward))
    evidence.add(Role::Training, weight.optimizer_step, "steps an optimizer");
  if (loaders)
    evidence.add(Role::Data, weight.data_loader, "uses DataLoader");
  if (datasets)
    evidence.add(Role::Data, weight.dataset, "defines a torch Dataset");
  if (no_grad && !optimizers && !backward)
    evidence.add(Role::Inference, weight.no_grad, "runs under no_grad / eval()");
  if ((main_guard || argparse) && (!modules || script) && !optimizers && !loaders && !no_grad)
    evidence.add(Role::Tooling, weight.script, main_guard ? "a __main__ script" : "a command-line script");
}

void path_evidence(const std::vector<std::string_view> &parts, const AssessPolicy &policy,
                   Evidence &evidence) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool is_file = i + 1 == parts.size();
    const std::string word = is_file ? stem_of(parts[i]) : to_lower(parts[i]);
    for (const auto &[hint, role] : policy.path_hints) {
      const bool hit = word == hint || (is_file && word.size() > hint.size() && starts_with(word, hint) &&
                                        (word[hint.size()] == '_' || word[hint.size()] == '-'));
      if (hit) {
        evidence.add(role, policy.weights.path_hint, "path: " + std::string(parts[i]));
        break;
      }
    }
  }
}

Role kind_default(FileKind kind) {
  switch (kind) {
  case FileKind::Cxx:
  case FileKind::Cuda:
  case FileKind::Metal:
  case FileKind::Checkpoint:
  case FileKind::ModelConfig:
    return Role::Model; // kernels the model calls, its weights and configuration
  case FileKind::Prose:
    return Role::Docs;
  default:
    return Role::Tooling; // manifests, build files, shell, plain scripts
  }
}

} // namespace

bool is_test_file(std::string_view path, const AssessPolicy &policy) {
  return is_test_path(split_path(path), policy);
}
bool is_docs_file(std::string_view path, const AssessPolicy &policy) {
  return is_docs_path(split_path(path), policy);
}

bool path_glob_match(std::string_view glob, std::string_view path) {
  // Iterative matcher with backtracking to the last star; `**` may cross '/'.
  std::size_t g = 0, p = 0, star_g = std::string_view::npos, star_p = 0;
  bool star_crosses = false;
  while (p < path.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star_crosses = g + 1 < glob.size() && glob[g + 1] == '*';
      g += star_crosses ? 2 : 1;
      if (star_crosses && g < glob.size() && glob[g] == '/')
        ++g; // "**/" also matches no directory at all
      star_g = g;
      star_p = p;
    } else if (g < glob.size() && (glob[g] == path[p] || (glob[g] == '?' && path[p] != '/'))) {
      ++g;
      ++p;
    } else if (star_g != std::string_view::npos && (star_crosses || path[star_p] != '/')) {
      g = star_g;
      p = ++star_p;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*')
    ++g;
  return g == glob.size();
}

std::map<std::string, Role> role_by_path(const std::vector<FileRole> &roles) {
  std::map<std::string, Role> role_of;
  for (const FileRole &role : roles)
    role_of[role.path] = role.role;
  return role_of;
}

std::vector<FileRole> classify_roles(const std::vector<ProjectFile> &files,
                                     const std::vector<RoleOverride> &overrides, const AssessPolicy &policy) {
  std::vector<FileRole> roles;
  roles.reserve(files.size());
  for (const ProjectFile &file : files) {
    FileRole result;
    result.path = file.path;
    bool overridden = false;
    for (const RoleOverride &entry : overrides)
      if (path_glob_match(entry.glob, file.path)) {
        result.role = entry.role;
        result.reasons.push_back("override: " + entry.glob);
        overridden = true;
        break;
      }
    if (!overridden) {
      const auto parts = split_path(file.path);
      // Tests and docs are decided by place: a test that builds a model is
      // still a test, and an example notebook is still an example.
      if (is_test_path(parts, policy)) {
        result.role = Role::Tests;
        result.reasons.push_back("path: test file");
      } else if (is_docs_path(parts, policy) || file.kind == FileKind::Prose) {
        result.role = Role::Docs;
        result.reasons.push_back(file.kind == FileKind::Prose ? "documentation" : "path: docs/examples");
      } else {
        Evidence evidence;
        if (file.kind == FileKind::Python || file.kind == FileKind::Notebook)
          content_evidence(file, policy.weights, evidence);
        path_evidence(parts, policy, evidence);
        int best = -1;
        for (int role = 0; role < kRoleCount; ++role)
          if (evidence.score[role] > 0 &&
              (best < 0 || evidence.score[role] > evidence.score[best] ||
               (evidence.score[role] == evidence.score[best] && evidence.has_path_reason(role) &&
                !evidence.has_path_reason(best))))
            best = role;
        if (best >= 0) {
          result.role = static_cast<Role>(best);
          result.reasons.assign(evidence.reasons[best].begin(), evidence.reasons[best].end());
        } else {
          result.role = kind_default(file.kind);
          result.reasons.push_back(file.kind == FileKind::Python || file.kind == FileKind::Notebook
                                       ? "no model, training or data code"
                                       : std::string(to_string(file.kind)) + " file");
        }
      }
    }
    roles.push_back(std::move(result));
  }
  return roles;
}

} // namespace mpsaudit
