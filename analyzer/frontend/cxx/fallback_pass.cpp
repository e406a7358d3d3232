#include "frontend/cxx/fallback_pass.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "core/text.h"
#include "frontend/cxx/build_sources.h"
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

// ---- roots -----------------------------------------------------------------

struct Roots {
  std::vector<std::string> with_fallback, without_fallback;
};

// A pybind11 binding of CUDA code that a Mac never calls: Python imports its
// extension behind a fallback (registration_pass.cpp, guarded_import_for),
// or the bound function dispatches on the device itself. (A Python function
// named after the op is a weaker sign, and a CPU binding of the same name
// elsewhere is no way round it: pybind11 has no dispatcher.)
bool binding_has_fallback(const Fact &fact) {
  if (fact.kind != cxx::kind::OpRegistration || attribute_or(fact, "backend") != "CUDA" ||
      attribute_or(fact, "via") != "pybind11")
    return false;
  const std::string python_at = attribute_or(fact, "python_fallback_at");
  return attribute_or(fact, "device_dispatch") == "true" ||
         (!python_at.empty() && !starts_with(python_at, "def "));
}

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
        if (binding_has_fallback(fact))
          roots.with_fallback.push_back(function); // Python goes on without the extension
        else if (attribute_or(fact, "critical_path") == "true")
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

  const BuildSources builds(files);
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
    for (Fact &fact : file.facts.facts)
      if (fact.guard == Guard::None && binding_has_fallback(fact))
        fact.guard = Guard::CpuFallback;
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
