#include "assess/entry_points.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

#include "assess/assess_policy.h"
#include "assess/roles.h"
#include "core/fact_kinds.h"
#include "core/text.h"

namespace mpsaudit {
namespace {

struct PurposeName {
  EntryPurpose purpose;
  std::string_view name;
};
constexpr std::array<PurposeName, 9> kPurposeNames{{
    {EntryPurpose::Training, "training"},
    {EntryPurpose::Inference, "inference"},
    {EntryPurpose::Evaluation, "evaluation"},
    {EntryPurpose::Export, "export"},
    {EntryPurpose::Benchmark, "benchmark"},
    {EntryPurpose::DataPrep, "data-prep"},
    {EntryPurpose::Tooling, "tooling"},
    {EntryPurpose::Library, "library"},
    {EntryPurpose::Test, "test"},
}};

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      word += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty())
    words.push_back(std::move(word));
  return words;
}

// The purpose the first word the policy knows names; words match whole.
std::optional<EntryPurpose> purpose_of_words(const std::vector<std::string> &words,
                                             const AssessPolicy &policy) {
  for (const std::string &word : words)
    for (const auto &[hint, purpose] : policy.purpose_words)
      if (word == hint)
        return purpose;
  return std::nullopt;
}

std::string_view file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view stem(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? name : name.substr(0, dot);
}

} // namespace

std::string_view to_string(EntryPurpose purpose) {
  return kPurposeNames[static_cast<std::size_t>(purpose)].name;
}

std::optional<EntryPurpose> entry_purpose_from_string(std::string_view text) {
  for (const PurposeName &entry : kPurposeNames)
    if (entry.name == text)
      return entry.purpose;
  return std::nullopt;
}

bool runs_on_a_mac(MacStatus status) {
  return status == MacStatus::RunsAsIs || status == MacStatus::RunsAfterFixes ||
         status == MacStatus::OptionalCudaPath;
}

std::string_view to_string(EntryScope scope) {
  switch (scope) {
  case EntryScope::Main:
    return "main";
  case EntryScope::Test:
    return "test";
  case EntryScope::Example:
    return "example";
  case EntryScope::Container:
    return "container";
  case EntryScope::SubProject:
    return "sub-project";
  }
  return "main";
}

PurposeGuess guess_purpose(const ProjectFile &file, const AssessPolicy &policy) {
  // The file's own name, then its directories, deepest first.
  const std::string_view name = file_name(file.path);
  if (name == "hubconf.py")
    return {EntryPurpose::Inference, "hubconf.py: loads models through torch.hub"};
  // A code generator is tooling whatever its name says (generate_kernels.py).
  if (const std::string line = policy.generated_source_line(file.facts.facts); !line.empty())
    return {EntryPurpose::Tooling, "content: writes C/C++/CUDA source (`" + line + "`): a code generator"};
  if (auto purpose = purpose_of_words(words_of(stem(name)), policy))
    return {*purpose, "name: " + std::string(name)};
  std::string_view directory = file.path.size() > name.size()
                                   ? std::string_view(file.path).substr(0, file.path.size() - name.size() - 1)
                                   : std::string_view{};
  while (!directory.empty()) {
    const auto slash = directory.rfind('/');
    const std::string_view component =
        slash == std::string_view::npos ? directory : directory.substr(slash + 1);
    if (auto purpose = purpose_of_words(words_of(component), policy))
      return {*purpose, "directory: " + std::string(component) + "/"};
    directory = slash == std::string_view::npos ? std::string_view{} : directory.substr(0, slash);
  }
  bool optimizer = false, backward = false, steps = false, no_grad = false;
  std::string description, training_flag;
  for (const Fact &fact : file.facts.facts) {
    if (const auto signal = role_signal(fact)) {
      optimizer = optimizer || *signal == RoleSignal::Optimizer;
      backward = backward || *signal == RoleSignal::Backward;
      steps = steps || *signal == RoleSignal::OptimizerStep;
      no_grad = no_grad || *signal == RoleSignal::NoGrad;
    }
    if (fact.kind != fact_kind::Call)
      continue;
    if (fact.name == "argparse.ArgumentParser" && description.empty())
      if (const Argument *argument = fact.keyword_argument("description"); argument && argument->is_string)
        description = argument->value;
    if (ends_with(fact.name, ".add_argument") && training_flag.empty())
      if (const Argument *flag = fact.positional_argument(0); flag && flag->is_string)
        for (const std::string &known : policy.training_flags)
          if (flag->value == known)
            training_flag = flag->value;
  }
  if (!description.empty())
    if (auto purpose = purpose_of_words(words_of(description), policy))
      return {*purpose, "argparse description: \"" + description.substr(0, 80) + "\""};
  if (optimizer || backward)
    return {EntryPurpose::Training, std::string("content: ") +
                                        (backward ? "calls backward()" : "constructs an optimizer") +
                                        (steps ? " and steps an optimizer" : "")};
  if (no_grad)
    return {EntryPurpose::Inference, "content: runs under no_grad / eval() without optimizer steps"};
  if (!training_flag.empty())
    return {EntryPurpose::Training, "flags: " + training_flag};
  return {EntryPurpose::Tooling, "no purpose evidence in its name, description or content"};
}

namespace {

// What a shell fact launches: a script path or a module, relative to the
// repository (tried from the launching file's directory, then the root).
std::optional<std::size_t> launched_file(const Fact &fact, const ProjectFile &launcher,
                                         std::size_t launcher_index, const ModuleIndex &index,
                                         const AssessPolicy &policy) {
  if (!policy.is_launcher(fact.name))
    return std::nullopt;
  if (const std::string *module = fact.attribute("module"))
    return index.resolve(*module, launcher_index);
  const std::string *args = fact.attribute("args");
  if (!args)
    return std::nullopt;
  std::string word;
  std::vector<std::string> words;
  for (const char c : *args + " ")
    if (c == ' ' || c == '\t' || c == '"' || c == '\'') {
      if (!word.empty())
        words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (words[k] == "-m" && k + 1 < words.size())
      return index.resolve(words[k + 1], launcher_index);
    if (!ends_with(words[k], ".py"))
      continue;
    std::string_view path = words[k];
    while (starts_with(path, "./"))
      path.remove_prefix(2);
    const auto slash = launcher.path.rfind('/');
    if (slash != std::string::npos)
      if (auto file = index.file_of_path(launcher.path.substr(0, slash + 1) + std::string(path)))
        return file;
    return index.file_of_path(path);
  }
  return std::nullopt;
}

struct Found {
  std::vector<std::string> by;
  bool outside_container = false; // found by anything but a Dockerfile
};

} // namespace

std::vector<EntryPoint> discover_entry_points(const std::vector<ProjectFile> &files, const ModuleIndex &index,
                                              const std::vector<std::vector<std::uint32_t>> &graph,
                                              const AssessPolicy &policy) {
  std::map<std::size_t, Found> found;
  const auto add = [&](std::size_t file, std::string how, bool container) {
    Found &entry = found[file];
    if (std::find(entry.by.begin(), entry.by.end(), how) == entry.by.end() && entry.by.size() < 4)
      entry.by.push_back(std::move(how));
    entry.outside_container = entry.outside_container || !container;
  };
  std::vector<bool> imported(files.size(), false);
  for (const auto &edges : graph)
    for (const std::uint32_t target : edges)
      imported[target] = true;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const ProjectFile &file = files[i];
    if (file.kind == FileKind::Notebook)
      add(i, "notebook", false);
    if (file_name(file.path) == "hubconf.py")
      add(i, "hubconf.py (torch.hub)", false);
    bool argparse = false;
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind == fact_kind::MainGuard && file.kind == FileKind::Python)
        add(i, "__main__ guard", false);
      else if (fact.kind == fact_kind::Call && starts_with(fact.name, "argparse."))
        argparse = true;
      else if (fact.kind == fact_kind::EntryPoint) {
        const std::string module = fact.name.substr(0, fact.name.find(':'));
        const std::string *script = fact.attribute("script");
        if (auto target = index.resolve(module, i))
          add(*target, "command `" + (script ? *script : module) + "` (" + file.path + ")", false);
      } else if (fact.kind == fact_kind::Shell) {
        if (auto target = launched_file(fact, file, i, index, policy))
          if (files[*target].kind == FileKind::Python)
            add(*target, file.path + ":" + std::to_string(fact.span.line), file.kind == FileKind::Dockerfile);
      }
    }
    // A command-line script that nothing imports is run by hand (said only
    // when nothing else found it).
    if (argparse && !imported[i] && file.kind == FileKind::Python && !found.count(i))
      add(i, "command-line script nothing imports", false);
  }

  const std::vector<std::string> roots = sub_project_roots(files);
  std::vector<EntryPoint> entries;
  bool any_main = false;
  for (auto &[file, how] : found) {
    EntryPoint entry;
    entry.path = files[file].path;
    entry.found_by = std::move(how.by);
    if (is_test_file(entry.path, policy))
      entry.scope = EntryScope::Test;
    else if (is_docs_file(entry.path, policy))
      entry.scope = EntryScope::Example;
    else if (!sub_project_of(entry.path, roots).empty())
      entry.scope = EntryScope::SubProject;
    else if (!how.outside_container)
      entry.scope = EntryScope::Container;
    if (entry.scope == EntryScope::Test) {
      entry.purpose = EntryPurpose::Test;
      entry.purpose_source = "path: test file";
    } else {
      PurposeGuess guess = guess_purpose(files[file], policy);
      entry.purpose = guess.purpose;
      entry.purpose_source = std::move(guess.source);
    }
    any_main = any_main || entry.scope == EntryScope::Main;
    entries.push_back(std::move(entry));
  }
  // A library with no scripts: its top-level packages are what users run.
  if (!any_main)
    for (std::size_t i = 0; i < files.size(); ++i) {
      const std::string &path = files[i].path;
      if (file_name(path) != "__init__.py" || is_test_file(path, policy) || is_docs_file(path, policy) ||
          !sub_project_of(path, roots).empty() || !index.parent_packages(i).empty())
        continue;
      EntryPoint entry;
      entry.path = path;
      entry.purpose = EntryPurpose::Library;
      entry.purpose_source = "package __init__: the library's public API";
      entry.found_by.push_back("top-level package");
      entries.push_back(std::move(entry));
    }
  // Main entries first; among them scripts that only other scripts import
  // (train.py, which a hyper-parameter search imports) before modules with a
  // self-test __main__ that the library imports, then by purpose (training,
  // inference, evaluation, export, benchmark, ...), then the shallower path
  // (the repository's own tools/train.py before projects/x/train.py), then
  // by path. Reachability traces them in this order and names them first.
  std::vector<bool> imported_by_library(files.size(), false);
  for (std::size_t source = 0; source < graph.size(); ++source)
    if (!found.count(source))
      for (const std::uint32_t target : graph[source])
        imported_by_library[target] = true;
  const auto rank = [&](const EntryPoint &entry) {
    const auto file = index.file_of_path(entry.path);
    const bool is_imported = file && imported_by_library[*file];
    const auto depth = std::count(entry.path.begin(), entry.path.end(), '/');
    return std::make_tuple(static_cast<int>(entry.scope), is_imported, static_cast<int>(entry.purpose),
                           depth);
  };
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const EntryPoint &a, const EntryPoint &b) { return rank(a) < rank(b); });
  return entries;
}

std::vector<EntryPoint> discover_entry_points(const std::vector<ProjectFile> &files,
                                              const AssessPolicy &policy) {
  const ModuleIndex index(files);
  return discover_entry_points(files, index, build_module_graph(files, index), policy);
}

std::vector<std::string> scripts_to_accept(const std::vector<EntryPoint> &entries) {
  // Data preparation and tools run as they do on Linux: no MPS run to
  // accept. A library's top-level packages are not scripts.
  const auto runs_on_the_device = [](EntryPurpose purpose) { return purpose <= EntryPurpose::Benchmark; };
  std::vector<const EntryPoint *> mains;
  for (const EntryPoint &entry : entries)
    if (entry.scope == EntryScope::Main && runs_on_the_device(entry.purpose))
      mains.push_back(&entry);
  // By purpose, then the shallower path: the repository's own train.py
  // before a logger's hyper-parameter search that imports it.
  const auto rank = [](const EntryPoint *entry) {
    return std::make_pair(static_cast<int>(entry->purpose),
                          std::count(entry->path.begin(), entry->path.end(), '/'));
  };
  std::stable_sort(mains.begin(), mains.end(),
                   [&](const EntryPoint *a, const EntryPoint *b) { return rank(a) < rank(b); });
  std::vector<std::string> scripts;
  for (const EntryPoint *entry : mains)
    scripts.push_back(entry->path);
  return scripts;
}

} // namespace mpsaudit
