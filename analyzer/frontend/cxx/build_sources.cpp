#include "frontend/cxx/build_sources.h"

#include <algorithm>
#include <map>

#include "core/text.h"
#include "frontend/cxx/fact_access.h"
#include "frontend/cxx/vocabulary.h"

namespace mpsaudit {
namespace {

using cxx::attribute_or;

std::string base_name(const std::string &path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "./csrc/a.cu", "${CMAKE_CURRENT_SOURCE_DIR}/csrc/a.cu" -> "csrc/a.cu"
std::string normalised_pattern(std::string pattern) {
  while (pattern.rfind("./", 0) == 0)
    pattern.erase(0, 2);
  while (pattern.rfind("${", 0) == 0) {
    const auto slash = pattern.find("}/");
    if (slash == std::string::npos)
      break;
    pattern.erase(0, slash + 2);
  }
  return pattern;
}

// Whether a source pattern of a build file in `directory` names `path`.
bool names_file(const std::string &pattern, const std::string &relative) {
  const std::string normal = normalised_pattern(pattern);
  if (normal.empty())
    return false;
  if (normal.find_first_of("*?[") != std::string::npos) {
    // A glob: its last component against the file name; a plain directory
    // part must appear in the path ("csrc/*.cu"), a wildcard one matches any.
    const std::string directory = parent_directory(normal, "");
    if (!glob_match(base_name(normal), base_name(relative)))
      return false;
    return directory.empty() || directory.find_first_of("*?[") != std::string::npos ||
           ("/" + parent_directory(relative, "") + "/").find("/" + directory + "/") != std::string::npos;
  }
  if (relative == normal)
    return true;
  return relative.size() > normal.size() &&
         relative.compare(relative.size() - normal.size(), normal.size(), normal) == 0 &&
         relative[relative.size() - normal.size() - 1] == '/';
}

} // namespace

BuildSources::BuildSources(const std::vector<ProjectFile> &files) {
  std::map<std::string, BuildFile> by_path;
  for (const auto &file : files)
    for (const Fact &fact : file.facts.facts)
      if (fact.kind == fact_kind::BuildSource) {
        BuildFile &build = by_path[file.path];
        build.directory = parent_directory(file.path, "");
        build.sources.push_back({fact.name, attribute_or(fact, "optional") == "true",
                                 attribute_or(fact, "runs_without") == "true",
                                 attribute_or(fact, "extension")});
      }
  for (auto &[path, build] : by_path)
    builds_.push_back(std::move(build));
  // Deepest directory first: a file belongs to its nearest build.
  std::stable_sort(builds_.begin(), builds_.end(), [](const BuildFile &a, const BuildFile &b) {
    return a.directory.size() > b.directory.size();
  });
}

std::vector<const BuildSources::Source *> BuildSources::naming_sources(const std::string &path) const {
  std::vector<const Source *> naming;
  for (std::size_t i = 0; i < builds_.size();) {
    const std::string &directory = builds_[i].directory;
    for (; i < builds_.size() && builds_[i].directory == directory; ++i) {
      if (!directory.empty() && path.compare(0, directory.size() + 1, directory + "/") != 0)
        continue;
      const std::string relative = directory.empty() ? path : path.substr(directory.size() + 1);
      for (const Source &source : builds_[i].sources)
        if (names_file(source.pattern, relative))
          naming.push_back(&source);
    }
    if (!naming.empty())
      return naming;
  }
  return naming;
}

bool BuildSources::only_with_cuda(const std::string &path) const {
  const auto naming = naming_sources(path);
  return !naming.empty() &&
         std::all_of(naming.begin(), naming.end(), [](const Source *source) { return source->optional; });
}

bool BuildSources::program_runs_without(const std::string &path) const {
  const auto naming = naming_sources(path);
  return !naming.empty() &&
         std::all_of(naming.begin(), naming.end(), [](const Source *source) { return source->runs_without; });
}

std::vector<std::string> BuildSources::extension_modules(const std::string &path) const {
  std::vector<std::string> modules;
  for (const Source *source : naming_sources(path))
    if (!source->extension.empty() &&
        std::find(modules.begin(), modules.end(), source->extension) == modules.end())
      modules.push_back(source->extension);
  return modules;
}

} // namespace mpsaudit
