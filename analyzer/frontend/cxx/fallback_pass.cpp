#include "frontend/cxx/fallback_pass.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "core/text.h"
#include "frontend/cxx/fact_access.h"
#include "frontend/cxx/vocabulary.h"

namespace mpsaudit {
namespace {

using cxx::attribute_or;
using cxx::last_component;

std::vector<std::string> split_list(const std::string &list) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start < list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::size_t end = comma == std::string::npos ? list.size() : comma;
    if (end > start)
      items.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

std::uint32_t line_attribute(const Fact &fact, std::string_view key, std::uint32_t fallback) {
  const std::string value = attribute_or(fact, key);
  if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos)
    return fallback;
  return static_cast<std::uint32_t>(std::stoul(value));
}

// A function or kernel definition: its lines and what it calls.
struct Site {
  std::size_t file = 0;
  std::string name;
  std::uint32_t line = 0, end_line = 0;
  std::vector<std::string> calls;
};

enum class Need : std::uint8_t { Unknown, WithFallback, WithoutFallback };

// Names of every function reachable from `roots` through calls and launches.
std::set<std::string> reach(const std::vector<std::string> &roots,
                            const std::multimap<std::string, const Site *> &by_name) {
  std::set<std::string> seen(roots.begin(), roots.end());
  std::vector<std::string> pending(seen.begin(), seen.end());
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    const auto [begin, end] = by_name.equal_range(name);
    for (auto it = begin; it != end; ++it)
      for (const std::string &callee : it->second->calls)
        if (seen.insert(callee).second)
          pending.push_back(callee);
  }
  return seen;
}

// ---- build sources: which files setup.py or CMake build only with CUDA ----

struct BuildSource {
  std::string pattern;
  bool optional = false;
  bool runs_without = false; // a JIT build behind a fallback: the program goes on without it
};

struct BuildFile {
  std::string directory; // "" at the root
  std::vector<BuildSource> sources;
};

std::string directory_of(const std::string &path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

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
    const std::string directory = directory_of(normal);
    if (!glob_match(base_name(normal), base_name(relative)))
      return false;
    return directory.empty() || directory.find_first_of("*?[") != std::string::npos ||
           ("/" + directory_of(relative) + "/").find("/" + directory + "/") != std::string::npos;
  }
  if (relative == normal)
    return true;
  return relative.size() > normal.size() &&
         relative.compare(relative.size() - normal.size(), normal.size(), normal) == 0 &&
         relative[relative.size() - normal.size() - 1] == '/';
}

class OptionalBuilds {
public:
  explicit OptionalBuilds(const std::vector<ProjectFile> &files) {
    std::map<std::string, BuildFile> by_path;
    for (const auto &file : files)
      for (const Fact &fact : file.facts.facts)
        if (fact.kind == fact_kind::BuildSource) {
          BuildFile &build = by_path[file.path];
          build.directory = directory_of(file.path);
          build.sources.push_back({fact.name, attribute_or(fact, "optional") == "true",
                                   attribute_or(fact, "runs_without") == "true"});
        }
    for (auto &[path, build] : by_path)
      builds_.push_back(std::move(build));
    // Deepest directory first: a file belongs to its nearest build.
    std::stable_sort(builds_.begin(), builds_.end(), [](const BuildFile &a, const BuildFile &b) {
      return a.directory.size() > b.directory.size();
    });
  }

  // Whether the nearest build that names `path` only builds it with CUDA.
  bool only_with_cuda(const std::string &path) const {
    return every_naming_source(path, [](const BuildSource &source) { return source.optional; });
  }

  // Whether every build of `path` is a JIT build the program goes on without
  // (python_frontend.cpp, record_jit_build_sources).
  bool program_runs_without(const std::string &path) const {
    return every_naming_source(path, [](const BuildSource &source) { return source.runs_without; });
  }

private:
  // Whether the nearest build that names `path` does so only through sources
  // that satisfy `holds`; false when none names it.
  template <typename Holds> bool every_naming_source(const std::string &path, Holds holds) const {
    for (std::size_t i = 0; i < builds_.size();) {
      const std::string &directory = builds_[i].directory;
      bool named = false, optional = true;
      for (; i < builds_.size() && builds_[i].directory == directory; ++i) {
        if (!directory.empty() && path.compare(0, directory.size() + 1, directory + "/") != 0)
          continue;
        const std::string relative = directory.empty() ? path : path.substr(directory.size() + 1);
        for (const BuildSource &source : builds_[i].sources)
          if (names_file(source.pattern, relative)) {
            named = true;
            optional = optional && holds(source);
          }
      }
      if (named)
        return optional;
    }
    return false;
  }

  std::vector<BuildFile> builds_;
};

// ---- roots -----------------------------------------------------------------

struct Roots {
  std::vector<std::string> with_fallback, without_fallback;
};

Roots find_roots(const std::vector<ProjectFile> &files) {
  Roots roots;
  for (const auto &file : files) {
    if (!is_cxx_code(file.kind))
      continue;
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind == cxx::kind::DeviceDispatch) {
        auto &into =
            attribute_or(fact, "cpu_fallback") == "true" ? roots.with_fallback : roots.without_fallback;
        for (auto &name : split_list(attribute_or(fact, "cuda_functions")))
          into.push_back(std::move(name));
      } else if (fact.kind == cxx::kind::OpRegistration && attribute_or(fact, "backend") == "CUDA") {
        const std::string function = last_component(attribute_or(fact, "function"));
        if (function.empty() || function == "<lambda>")
          continue;
        const std::string fallbacks = attribute_or(fact, "fallbacks");
        if (attribute_or(fact, "critical_path") == "true")
          roots.without_fallback.push_back(function);
        else if (fallbacks.find("cpu") != std::string::npos || fallbacks.find("mps") != std::string::npos ||
                 fallbacks.find("composite") != std::string::npos)
          roots.with_fallback.push_back(function); // a kernel for another dispatch key runs the op
      }
    }
  }
  return roots;
}

// The smallest site around `line` among `sorted` (by start line). Function
// bodies do not nest, so a few sites before `line` are all that can hold it
// (a kernel is both a cxx-function and a cuda-kernel site).
const Site *innermost_site(const std::vector<const Site *> &sorted, std::uint32_t line) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), line,
                             [](std::uint32_t l, const Site *site) { return l < site->line; });
  const Site *innermost = nullptr;
  for (int steps = 0; it != sorted.begin() && steps < 8; ++steps) {
    const Site *site = *--it;
    if (line <= site->end_line &&
        (!innermost || site->end_line - site->line < innermost->end_line - innermost->line))
      innermost = site;
  }
  return innermost;
}

// A file only a JIT build behind a fallback compiles: the program goes on
// without anything in it, op registrations included, so none of it is needed
// without a fallback, whatever its ops' registrations say.
void guard_whole_file(ProjectFile &file, const std::vector<std::string> &guarded_kinds) {
  for (Fact &fact : file.facts.facts)
    if (fact.guard == Guard::None &&
        (fact.kind == fact_kind::OpRegistration ||
         std::find(guarded_kinds.begin(), guarded_kinds.end(), fact.kind) != guarded_kinds.end()))
      fact.guard = Guard::CpuFallback;
}

} // namespace

const std::vector<std::string> &cpu_fallback_guarded_kinds() {
  namespace kind = cxx::kind;
  // Not `include`: no rule reads it; a CUDA header's findings come from the
  // aten-cuda, cuda-library, tensor-core and cooperative-groups facts on its line.
  static const std::vector<std::string> kinds{
      std::string(kind::CudaKernel),    std::string(kind::DeviceFunction),
      std::string(kind::KernelLaunch),  std::string(kind::CudaApi),
      std::string(kind::CudaLibrary),   std::string(kind::InlinePtx),
      std::string(kind::WarpIntrinsic), std::string(kind::Atomic),
      std::string(kind::TensorCore),    std::string(kind::CooperativeGroups),
      std::string(kind::Texture),       std::string(kind::AtenCuda)};
  return kinds;
}

FactRetention cpu_fallback_retention(const Fact &) {
  return FactRetention::Keep;
}

void resolve_cpu_fallbacks(std::vector<ProjectFile> &files) {
  std::vector<Site> sites;
  for (std::size_t index = 0; index < files.size(); ++index) {
    if (!is_cxx_code(files[index].kind))
      continue;
    for (const Fact &fact : files[index].facts.facts)
      if (fact.kind == cxx::kind::CxxFunction || fact.kind == cxx::kind::CudaKernel ||
          fact.kind == cxx::kind::DeviceFunction)
        sites.push_back({index, fact.name, fact.span.line,
                         line_attribute(fact, "body_end_line", fact.span.line),
                         split_list(attribute_or(fact, "calls"))});
  }
  std::multimap<std::string, const Site *> by_name;
  for (const Site &site : sites)
    by_name.emplace(site.name, &site);

  const Roots roots = find_roots(files);
  const std::set<std::string> needed_without = reach(roots.without_fallback, by_name);
  const std::set<std::string> needed_with = reach(roots.with_fallback, by_name);
  const auto need_of = [&](const Site &site) {
    if (needed_without.count(site.name))
      return Need::WithoutFallback;
    return needed_with.count(site.name) ? Need::WithFallback : Need::Unknown;
  };

  const OptionalBuilds builds(files);
  const auto &guarded_kinds = cpu_fallback_guarded_kinds();
  std::map<std::size_t, std::vector<const Site *>> sites_by_file;
  for (const Site &site : sites)
    sites_by_file[site.file].push_back(&site);
  for (auto &[file, list] : sites_by_file)
    std::sort(list.begin(), list.end(), [](const Site *a, const Site *b) {
      return std::tie(a->line, a->end_line) < std::tie(b->line, b->end_line);
    });

  for (std::size_t index = 0; index < files.size(); ++index) {
    ProjectFile &file = files[index];
    if (!is_cxx_code(file.kind))
      continue;
    const auto &file_sites = sites_by_file[index];
    if (builds.program_runs_without(file.path)) {
      guard_whole_file(file, guarded_kinds);
      continue;
    }
    const bool optional_build = builds.only_with_cuda(file.path);
    const bool any_without = std::any_of(file_sites.begin(), file_sites.end(),
                                         [&](const Site *s) { return need_of(*s) == Need::WithoutFallback; });
    const bool any_with = std::any_of(file_sites.begin(), file_sites.end(),
                                      [&](const Site *s) { return need_of(*s) == Need::WithFallback; });
    if (!optional_build && !any_with)
      continue; // nothing here has a CPU path
    for (Fact &fact : file.facts.facts) {
      if (fact.guard != Guard::None ||
          std::find(guarded_kinds.begin(), guarded_kinds.end(), fact.kind) == guarded_kinds.end())
        continue;
      const Site *innermost = innermost_site(file_sites, fact.span.line);
      bool guarded = false;
      if (innermost) {
        const Need need = need_of(*innermost);
        guarded = need == Need::WithFallback || (need == Need::Unknown && optional_build);
      } else {
        guarded = !any_without && (optional_build || any_with);
      }
      if (guarded)
        fact.guard = Guard::CpuFallback;
    }
  }
}

} // namespace mpsaudit
