#include "assess/effort.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include <toml++/toml.h>

#include "assess/assess_policy.h"
#include "assess/entry_points.h"
#include "assess/roles.h"
#include "core/fact_kinds.h"
#include "core/text.h"
#include "fix/fix.h"

namespace mpsaudit {
namespace {

constexpr const char *kAcceptanceKey = "one-off:mac-acceptance";

std::string number_text(double value) {
  // The same hours summed in another order differ in their last bits
  // (6.6499999 against 6.65) and would round apart: snapped to a millionth
  // first, every report prints them alike.
  value = std::round(value * 1e6) / 1e6;
  char buffer[32];
  if (std::fabs(value - std::round(value)) < 0.05)
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  else
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

// The library or extension a medium/large finding is about: the first
// component of its name ("bitsandbytes.nn.Linear4bit" -> "bitsandbytes").
std::string component_of(const std::string &name) {
  const std::size_t dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

std::uint64_t attribute_count(const Fact &fact, const char *key) {
  const std::string *value = fact.attribute(key);
  if (!value || value->empty() || value->size() > 9)
    return 0;
  if (*value == "true")
    return 1;
  if (!std::all_of(value->begin(), value->end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  return std::stoull(*value);
}

int effort_rank(Effort effort) {
  return static_cast<int>(effort);
}

// The fix credit of one priced item (docs/effort-model.md, "Fix credit"). A
// mechanical (trivial) item is priced per site, so fix removes the share of
// the sites it edits. A small or larger item is one piece of understanding
// per hazard class or component; fix removes it only when it edits every
// site, since otherwise someone still has to work through the class.
void credit_fixes(EffortItem &item) {
  int sites = 0, safe_sites = 0, fixable_sites = 0;
  for (const FileShare &share : item.files) {
    sites += share.sites;
    safe_sites += share.fix.safe_sites;
    fixable_sites += share.fix.safe_sites + share.fix.unsafe_sites;
  }
  item.fix = {};
  if (!item.estimable || sites == 0)
    return;
  for (FileShare &share : item.files) {
    if (item.effort == Effort::Trivial) {
      const double per_site = 1.0 / share.sites;
      share.fix.safe = share.hours.scaled(share.fix.safe_sites * per_site);
      share.fix.with_unsafe = share.hours.scaled((share.fix.safe_sites + share.fix.unsafe_sites) * per_site);
    } else {
      share.fix.safe = safe_sites == sites ? share.hours : HourRange{};
      share.fix.with_unsafe = fixable_sites == sites ? share.hours : HourRange{};
    }
    item.fix += share.fix;
  }
  if (fixable_sites > 0)
    item.basis += "; mpsaudit fix edits " + std::to_string(safe_sites) + " of them" +
                  (fixable_sites > safe_sites
                       ? ", " + std::to_string(fixable_sites - safe_sites) + " more with --unsafe"
                       : std::string());
}

// Per-file fallback knowledge from op registrations (C++ front end's project
// pass): an op with a CPU, MPS, composite or Python implementation.
struct KernelFallbacks {
  std::map<std::string, bool> file_has_fallback; // path -> any registration with a fallback
  std::map<std::string, bool> file_has_critical; // path -> any registration without
  bool project_all_fallback = false;
};

KernelFallbacks kernel_fallbacks(const std::vector<ProjectFile> &files) {
  KernelFallbacks result;
  int with = 0, without = 0;
  for (const auto &file : files)
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind != fact_kind::OpRegistration)
        continue;
      const std::string *backend = fact.attribute("backend");
      const std::string *fallbacks = fact.attribute("fallbacks");
      const std::string *device_dispatch = fact.attribute("device_dispatch");
      if (!backend || *backend != "CUDA" || !fallbacks)
        continue;
      // A binding of a function that dispatches on the device says nothing
      // about kernels: the cpu-fallback pass guarded those it reaches.
      if (device_dispatch && *device_dispatch == "true")
        continue;
      if (*fallbacks == "none") {
        result.file_has_critical[file.path] = true;
        ++without;
      } else {
        result.file_has_fallback[file.path] = true;
        ++with;
      }
    }
  result.project_all_fallback = with > 0 && without == 0;
  return result;
}

bool is_cxx_source(FileKind kind) {
  return kind == FileKind::Cxx || kind == FileKind::Cuda;
}

// The C++/CUDA sources whose findings the kernel families' ports cover:
// every one, once the project has a kernel the model prices.
std::set<std::string> kernel_covered_sources(const std::vector<ProjectFile> &files) {
  const bool has_kernels = std::any_of(files.begin(), files.end(), [](const ProjectFile &file) {
    return std::any_of(file.facts.facts.begin(), file.facts.facts.end(),
                       [](const Fact &fact) { return fact.kind == fact_kind::CudaKernel; });
  });
  std::set<std::string> sources;
  if (has_kernels)
    for (const auto &file : files)
      if (is_cxx_source(file.kind))
        sources.insert(file.path);
  return sources;
}

// The package a dependency or library finding is about, when it is priced
// as a package (once per repository): dependency findings beyond a
// mechanical line edit, and library swaps (small or medium). Large library
// findings are kernel families written in Python, one per file.
std::string package_of(const Finding &finding, const std::string &family, Effort effort) {
  if (effort == Effort::Trivial || effort == Effort::Blocker || finding.name.empty())
    return "";
  if (family == "dependencies" || (family == "library" && effort != Effort::Large))
    return package_key(component_of(finding.name));
  return "";
}

std::string file_name_of(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A large item's subject: its file, except that explicit instantiation
// files of one C++/CUDA template ("fwd_hdim64_fp16_sm80.cu") are one family.
std::string large_item_subject(const std::string &path, const AssessPolicy &policy) {
  const std::string name = file_name_of(path);
  const std::size_t dot = name.rfind('.');
  const std::string extension = dot == std::string::npos ? "" : name.substr(dot);
  static const std::set<std::string> cxx_extensions{".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp"};
  if (!cxx_extensions.count(extension))
    return path;
  const std::string directory = parent_directory(path);
  return (directory == "." ? "" : directory + "/") + kernel_family_name(name.substr(0, dot), policy) + "*" +
         extension;
}

HourRange range_from(const toml::node *node, HourRange fallback, const std::string &where,
                     const std::string &path, std::vector<Diagnostic> &diagnostics) {
  if (!node)
    return fallback;
  const auto *array = node->as_array();
  if (!array || array->size() != 2 || !(*array)[0].is_number() || !(*array)[1].is_number()) {
    diagnostics.push_back({DiagnosticLevel::Error, path, node->source().begin.line, "effort-model",
                           where + " must be [low, high] in hours"});
    return fallback;
  }
  HourRange range{(*array)[0].value<double>().value_or(0), (*array)[1].value<double>().value_or(0)};
  if (range.low < 0 || range.high < range.low) {
    diagnostics.push_back({DiagnosticLevel::Error, path, node->source().begin.line, "effort-model",
                           where + " must satisfy 0 <= low <= high"});
    return fallback;
  }
  return range;
}

} // namespace

std::string kernel_family_name(std::string_view name, const AssessPolicy &policy) {
  auto is_variant = [&](const std::string &token) {
    if (token.empty() || is_one_of(token, policy.kernel_variant_words))
      return true;
    std::size_t digits = token.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(token[digits - 1])))
      --digits;
    if (digits == token.size())
      return false; // no trailing number: a word of the name
    return is_one_of(std::string_view(token).substr(0, digits), policy.kernel_numbered_prefixes);
  };
  std::string lowered;
  for (char c : name)
    lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string kept;
  std::size_t start = 0;
  while (start <= lowered.size()) {
    const std::size_t end = std::min(lowered.find('_', start), lowered.size());
    const std::string token = lowered.substr(start, end - start);
    if (!is_variant(token))
      kept += (kept.empty() ? "" : "_") + token;
    start = end + 1;
  }
  return kept.empty() ? std::string(name) : kept;
}

std::string package_key(std::string_view name) {
  std::string key;
  for (char c : name)
    key += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const char *suffix : {"-full", "-gpu", "-cuda", "-cu"}) {
      const std::size_t at = key.rfind(suffix);
      if (at == std::string::npos || at == 0)
        continue;
      // "-cu118", "-cuda12", "-cuda12x", "-gpu", "-full": a build flavour of one package.
      std::size_t rest = at + std::strlen(suffix);
      while (rest < key.size() && (std::isdigit(static_cast<unsigned char>(key[rest])) || key[rest] == 'x'))
        ++rest;
      const bool numbered = rest > at + std::strlen(suffix);
      const bool bare = std::strcmp(suffix, "-full") == 0 || std::strcmp(suffix, "-gpu") == 0;
      if (rest == key.size() && (numbered || bare)) {
        key.erase(at);
        stripped = true;
      }
    }
  }
  return key;
}

std::string format_hours(const HourRange &range) {
  const double high = range.high;
  if (high <= 0)
    return "0 h";
  double divisor = 1;
  const char *unit = "h";
  if (high >= 480) {
    // Whole months: a precise-looking week count would claim more than a
    // range this long is known to.
    const double low_months = std::max(1.0, std::floor(range.low / 160 + 0.5));
    const double high_months = std::max(low_months, std::floor(high / 160 + 0.5));
    return number_text(low_months) + (high_months > low_months ? "–" + number_text(high_months) : "") +
           " person-months";
  }
  if (high >= 160) {
    divisor = 40;
    unit = "wk";
  } else if (high >= 16) {
    divisor = 8;
    unit = "d";
  }
  const std::string low_text = number_text(range.low / divisor);
  const std::string high_text = number_text(range.high / divisor);
  if (low_text == high_text)
    return low_text + " " + unit;
  return low_text + "–" + high_text + " " + unit;
}

std::string fix_credit_sentence(const FixCredit &fix, std::string_view of_what) {
  auto findings = [](int count) { return std::to_string(count) + (count == 1 ? " finding" : " findings"); };
  std::string text = fix.safe_sites > 0 ? "mpsaudit fix --apply removes " + format_hours(fix.safe) + " of " +
                                              std::string(of_what) + " (" + findings(fix.safe_sites) + ")"
                                        : std::string("mpsaudit fix has no safe fix here");
  if (fix.unsafe_sites > 0)
    text += "; --unsafe edits " + std::to_string(fix.unsafe_sites) + " more after review (" +
            format_hours(fix.with_unsafe) + " in all)";
  return text + ".";
}

EffortModel default_effort_model() {
  EffortModel model;
  model.one_offs = {
      {"device-helper",
       "Add one device/dtype helper (cuda, mps, cpu) and route device choices through it",
       {1, 2},
       {"device", "torch-cuda", "dtype"},
       {},
       "docs/knowledge/effort.md#device-and-dtype-helper (once per repository)"},
  };
  return model;
}

EffortModel load_effort_model(const std::string &path, std::vector<Diagnostic> &diagnostics) {
  EffortModel model = default_effort_model();
  toml::table document;
  try {
    document = toml::parse_file(path);
  } catch (const toml::parse_error &error) {
    diagnostics.push_back({DiagnosticLevel::Error, path, error.source().begin.line, "effort-model",
                           std::string(error.description())});
    return model;
  }
  model.origin = path;
  model.sources.clear();
  auto section_range = [&](const char *section, const char *key, HourRange &target) {
    const auto *table = document.get_as<toml::table>(section);
    if (!table)
      return;
    target = range_from(table->get(key), target, std::string(section) + "." + key, path, diagnostics);
  };
  auto section_number = [&](const char *section, const char *key, double &target) {
    if (const auto *table = document.get_as<toml::table>(section))
      if (const auto *node = table->get(key)) {
        if (node->is_number() && node->value<double>().value_or(-1) > 0)
          target = node->value<double>().value_or(target);
        else
          diagnostics.push_back({DiagnosticLevel::Error, path, node->source().begin.line, "effort-model",
                                 std::string(section) + "." + key + " must be a positive number"});
      }
  };
  section_range("trivial", "per_site", model.trivial_per_site);
  section_number("trivial", "per_file_cap", model.trivial_file_cap);
  section_range("small", "per_fix", model.small_per_fix);
  section_range("medium", "per_fix", model.medium_per_fix);
  section_range("large", "per_fix", model.large_per_fix);
  section_range("kernel", "base", model.kernel_base);
  section_range("kernel", "tensor_core", model.kernel_tensor_core);
  section_number("kernel", "base_lines", model.kernel_base_lines);
  section_range("kernel", "per_100_lines", model.kernel_per_100_lines);
  section_range("kernel", "shared_memory", model.kernel_shared_memory);
  section_range("kernel", "warp_intrinsics", model.kernel_warp_intrinsics);
  section_range("kernel", "atomics", model.kernel_atomics);
  section_range("kernel", "double", model.kernel_double);
  section_range("kernel", "host_glue", model.kernel_host_glue);
  section_range("kernel", "with_fallback", model.kernel_with_fallback);
  section_range("kernel", "per_variant", model.kernel_per_variant);
  section_range("acceptance", "base", model.acceptance_base);
  section_range("acceptance", "per_entry_point", model.acceptance_per_entry);
  double entry_cap = model.acceptance_entry_cap;
  section_number("acceptance", "entry_point_cap", entry_cap);
  model.acceptance_entry_cap = static_cast<int>(entry_cap);
  section_range("keep_linux", "pin", model.keep_pin);
  section_range("keep_linux", "guard_per_component", model.keep_guard_per_component);
  double guard_max = model.keep_guard_max_components;
  section_number("keep_linux", "guard_max_components", guard_max);
  model.keep_guard_max_components = static_cast<int>(guard_max);
  for (const char *section : {"trivial", "small", "medium", "large", "kernel", "acceptance", "keep_linux"})
    if (const auto *table = document.get_as<toml::table>(section))
      if (auto source = table->get_as<std::string>("source"))
        model.sources.emplace_back(section, source->get());
  if (const auto *one_offs = document.get_as<toml::array>("one_off")) {
    model.one_offs.clear();
    for (const auto &node : *one_offs) {
      const auto *table = node.as_table();
      if (!table) {
        diagnostics.push_back({DiagnosticLevel::Error, path, node.source().begin.line, "effort-model",
                               "[[one_off]] entries must be tables"});
        continue;
      }
      OneOffCost cost;
      cost.id = table->get_as<std::string>("id") ? table->get_as<std::string>("id")->get() : "";
      cost.title = table->get_as<std::string>("title") ? table->get_as<std::string>("title")->get() : "";
      cost.source = table->get_as<std::string>("source") ? table->get_as<std::string>("source")->get() : "";
      cost.hours = range_from(table->get("hours"), {}, "one_off.hours", path, diagnostics);
      if (const auto *families = table->get_as<toml::array>("when_families"))
        for (const auto &family : *families)
          if (auto text = family.value<std::string>())
            cost.when_families.push_back(*text);
      if (const auto *families = table->get_as<toml::array>("absorbs_families"))
        for (const auto &family : *families)
          if (auto text = family.value<std::string>())
            cost.absorbs_families.push_back(*text);
      if (cost.id.empty() || cost.title.empty() || cost.when_families.empty()) {
        diagnostics.push_back({DiagnosticLevel::Error, path, table->source().begin.line, "effort-model",
                               "[[one_off]] needs id, title, hours and when_families"});
        continue;
      }
      model.one_offs.push_back(std::move(cost));
    }
  }
  return model;
}

namespace {

// One kernel's port from its device code (docs/effort-model.md, "CUDA kernels").
HourRange kernel_port(const Fact &fact, const EffortModel &model, std::string &basis) {
  const std::uint64_t lines = attribute_count(fact, "device_lines");
  const bool tensor_core =
      attribute_count(fact, "tensor_core") > 0 || attribute_count(fact, "inline_ptx") > 0;
  HourRange port = tensor_core ? model.kernel_tensor_core : model.kernel_base;
  basis = (tensor_core ? "tensor-core/PTX kernel " : "kernel ") + format_hours(port);
  if (static_cast<double>(lines) > model.kernel_base_lines) {
    const double extra = (static_cast<double>(lines) - model.kernel_base_lines) / 100.0;
    port += model.kernel_per_100_lines.scaled(extra);
    basis += ", " + std::to_string(lines) + " device lines";
  }
  auto surcharge = [&](const char *key, const HourRange &range, const char *label) {
    if (attribute_count(fact, key) > 0) {
      port += range;
      basis += std::string(", ") + label;
    }
  };
  surcharge("shared_memory", model.kernel_shared_memory, "shared memory");
  surcharge("warp_intrinsics", model.kernel_warp_intrinsics, "warp intrinsics");
  surcharge("atomics", model.kernel_atomics, "atomics");
  surcharge("has_double", model.kernel_double, "double precision");
  if (attribute_count(fact, "launches") > 0) {
    port += model.kernel_host_glue;
    basis += ", host glue";
  }
  return port;
}

struct KernelMember {
  const ProjectFile *file = nullptr;
  const Fact *fact = nullptr;
  HourRange port;
  std::string basis;
  bool tensor_core = false;
  bool has_fallback = false;
};

std::string last_name_part(const std::string &name) {
  const std::size_t colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

void price_kernel_families(const ScanResult &scan, const EffortModel &model, const AssessPolicy &policy,
                           std::map<std::string, EffortItem> &items,
                           std::map<std::string, std::vector<std::size_t>> &covered_by_kernels,
                           EffortEstimate &estimate) {
  const std::vector<ProjectFile> &files = scan.project_files;
  const KernelFallbacks fallbacks = kernel_fallbacks(files);
  std::map<std::string, std::vector<KernelMember>> families; // family name -> members
  for (const auto &file : files)
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind != fact_kind::CudaKernel)
        continue;
      KernelMember member{&file, &fact, {}, {}, false, false};
      member.port = kernel_port(fact, model, member.basis);
      member.tensor_core =
          attribute_count(fact, "tensor_core") > 0 || attribute_count(fact, "inline_ptx") > 0;
      // Guard::CpuFallback: the C++ front end traced the kernel to an op with
      // a CPU path (a device dispatch, a CPU registration, an optional build).
      member.has_fallback =
          fact.guard == Guard::CpuFallback ||
          (fallbacks.file_has_fallback.count(file.path) ? !fallbacks.file_has_critical.count(file.path)
                                                        : fallbacks.project_all_fallback);
      families[kernel_family_name(last_name_part(fact.name), policy)].push_back(member);
    }
  std::map<std::string, std::string> family_of_directory; // for covered findings outside kernel files
  for (auto &[name, members] : families) {
    // The family's port: its most expensive member, plus a small amount for
    // every further variant (another dtype or file of the same kernel).
    const auto largest = std::max_element(members.begin(), members.end(), [](const auto &a, const auto &b) {
      return a.port.high < b.port.high;
    });
    const int variants = static_cast<int>(members.size()) - 1;
    HourRange port = largest->port;
    port += model.kernel_per_variant.scaled(variants);
    std::string basis = largest->basis;
    if (variants > 0)
      basis += "; " + counted(static_cast<std::size_t>(variants), "more variant") + " x " +
               format_hours(model.kernel_per_variant);
    const bool has_fallback =
        std::all_of(members.begin(), members.end(), [](const KernelMember &m) { return m.has_fallback; });
    EffortItem item;
    item.key = "kernel:" + name;
    const KernelMember &first = members.front();
    item.title =
        "Port CUDA kernel " +
        (members.size() == 1 ? last_name_part(first.fact->name)
                             : "family " + name + " (" + std::to_string(members.size()) + " kernels)") +
        " (" + path_for_display(scan, first.file->path) + ":" + std::to_string(first.fact->span.line) + ")";
    item.family = "kernels";
    item.effort = Effort::Large;
    item.kind = EffortItemKind::Kernel;
    item.sites = static_cast<int>(members.size());
    item.replacement =
        "Re-express in torch ops, or Metal via torch.mps.compile_shader (2.7+) or a .mm extension";
    if (has_fallback) {
      item.hours = model.kernel_with_fallback;
      item.deferred = port;
      item.basis = "has a CPU/Python fallback: route to it now (" + format_hours(model.kernel_with_fallback) +
                   "); port deferred (" + basis + ")";
      estimate.deferred += port;
    } else {
      item.hours = port;
      item.basis = basis;
    }
    std::map<std::string, int> kernels_in_file;
    for (const KernelMember &member : members)
      ++kernels_in_file[member.file->path];
    for (const auto &[path, count] : kernels_in_file) {
      item.files.push_back({path, count, item.hours.scaled(static_cast<double>(count) / members.size()), {}});
      auto covered = covered_by_kernels.find(path);
      if (covered != covered_by_kernels.end()) {
        item.finding_indices.insert(item.finding_indices.end(), covered->second.begin(),
                                    covered->second.end());
        covered_by_kernels.erase(covered);
      }
      family_of_directory.emplace(parent_directory(path), item.key);
    }
    estimate.kernel_families.push_back(
        {name, static_cast<int>(members.size()),
         std::any_of(members.begin(), members.end(), [](const KernelMember &m) { return m.tensor_core; }),
         item.hours});
    if (has_fallback)
      estimate.kernel_families.back().hours = port;
    items.emplace(item.key, std::move(item));
  }
  // Findings in the other C++/CUDA sources (host glue, bindings, headers):
  // the family of the same directory takes them, else the largest family.
  std::stable_sort(estimate.kernel_families.begin(), estimate.kernel_families.end(),
                   [](const KernelFamily &a, const KernelFamily &b) { return a.hours.high > b.hours.high; });
  for (auto &[path, indices] : covered_by_kernels) {
    const auto by_directory = family_of_directory.find(parent_directory(path));
    const std::string key = by_directory != family_of_directory.end() ? by_directory->second
                            : estimate.kernel_families.empty()
                                ? std::string()
                                : "kernel:" + estimate.kernel_families.front().name;
    if (auto item = items.find(key); item != items.end())
      item->second.finding_indices.insert(item->second.finding_indices.end(), indices.begin(), indices.end());
  }
  covered_by_kernels.clear();
}

HourRange acceptance_hours(const EffortModel &model, int entry_points) {
  const int further = std::min(std::max(entry_points - 1, 0), model.acceptance_entry_cap);
  HourRange hours = model.acceptance_base;
  hours += model.acceptance_per_entry.scaled(further);
  return hours;
}

EffortItem acceptance_item(const EffortModel &model, int entry_points) {
  EffortItem item;
  item.key = kAcceptanceKey;
  item.title = "Acceptance on the Mac: record `mpsaudit env`, compare one real input on CPU and MPS, "
               "load a checkpoint";
  item.family = "one-off";
  item.effort = Effort::Trivial;
  item.kind = EffortItemKind::OneOff;
  item.hours = acceptance_hours(model, entry_points);
  item.basis =
      "once per repository: " + format_hours(model.acceptance_base) +
      (entry_points > 1 ? " + " + format_hours(model.acceptance_per_entry) + " for each of " +
                              std::to_string(std::min(entry_points - 1, model.acceptance_entry_cap)) +
                              " further entry point" + (entry_points > 2 ? "s" : "")
                        : std::string());
  return item;
}

} // namespace

bool is_open_finding(const Finding &finding) {
  return !finding.suppressed && finding.guard == Guard::None &&
         finding.severity >= static_cast<int>(Severity::Warning);
}

namespace {

// A package's replacement is work in the code that uses it; the manifests
// that name it follow with a one-line edit. The sites of each file outside
// the dependencies family, by path.
std::map<std::string, int> code_sites_by_path(const EffortItem &item, const std::vector<Finding> &findings) {
  std::map<std::string, int> sites;
  for (const std::size_t index : item.finding_indices) {
    const Finding &finding = findings[index];
    if (finding.rule && finding.rule->family != "dependencies")
      ++sites[finding.path];
  }
  return sites;
}

// Shares the item's hours among its files by sites: by `code_sites` where
// it names any (a package's code uses), else by all of them.
void spread_over_files(EffortItem &item, int total_sites, const std::map<std::string, int> &code_sites) {
  int code_total = 0;
  for (const auto &[path, sites] : code_sites)
    code_total += sites;
  for (FileShare &share : item.files) {
    const auto code = code_sites.find(share.path);
    const double weight = code_total > 0
                              ? (code == code_sites.end() ? 0.0 : double(code->second) / code_total)
                              : static_cast<double>(share.sites) / total_sites;
    share.hours = item.hours.scaled(weight);
  }
}

// Per family: open findings, and how many of them fix edits (safe; safe or
// unsafe). A one-off is credited when fix edits every finding that
// triggers it: the device variable fix introduces is the device helper.
struct FamilyFixes {
  int open = 0, safe = 0, fixable = 0;
};

// The open findings, sorted into the work that prices them.
struct OpenWork {
  std::map<std::string, EffortItem> items; // by key
  std::set<std::string> open_families;
  std::map<std::string, FamilyFixes> family_fixes;
  std::map<std::string, std::vector<std::size_t>> absorbed;           // one-off id -> findings
  std::map<std::string, std::vector<std::size_t>> covered_by_kernels; // path -> findings
};

// Counts a finding that is no open work (suppressed, guarded, advisory) in
// the estimate's tallies; an excluded one is not counted at all. True when
// the finding is open work.
bool count_open(const Finding &finding, bool excluded, EffortEstimate &estimate) {
  if (excluded)
    return false;
  if (finding.suppressed) {
    ++estimate.suppressed_findings;
    return false;
  }
  if (finding.guard != Guard::None) {
    ++estimate.guarded_findings;
    return false;
  }
  if (finding.severity < static_cast<int>(Severity::Warning)) {
    ++estimate.advisory_findings;
    return false;
  }
  ++estimate.open_findings;
  return true;
}

// The item a finding belongs to, and what the item is about (for its title:
// a path in it reads from the current directory).
struct ItemKey {
  std::string key;
  std::string subject;
};

ItemKey item_key_of(const ScanResult &scan, const Finding &finding, const std::string &package, Effort effort,
                    const AssessPolicy &policy) {
  ItemKey item{finding.rule_id, {}};
  if (!package.empty()) {
    item.key = "package:" + package; // one package is one piece of work, however many files name it
    item.subject = package;
  } else if (effort == Effort::Medium) {
    item.subject = component_of(finding.name);
    item.key += ":" + item.subject;
  } else if (effort == Effort::Large) {
    const std::string subject = large_item_subject(finding.path, policy);
    item.key += ":" + subject;
    item.subject = path_for_display(scan, subject);
  } else if (effort == Effort::Blocker) {
    item.key += ":" + finding.path + ":" + std::to_string(finding.span.line);
  }
  return item;
}

// What an item is, taken from the finding that opens it.
void start_item(EffortItem &item, const ItemKey &key, const Finding &finding, const std::string &family,
                Effort effort) {
  const Rule *rule = finding.rule;
  item.key = key.key;
  item.rule_id = finding.rule_id;
  item.title = rule ? rule->summary : finding.rule_id.str();
  if (!key.subject.empty())
    item.title += " (" + key.subject + ")";
  item.family = family;
  item.effort = effort;
  item.kind = EffortItemKind::Finding;
  item.replacement = rule ? rule->replacement : "";
  item.estimable = effort != Effort::Blocker;
}

// Where an item's share of a file is. The findings come sorted by path: in
// one run, or two where the assessment appends a baseline's known findings
// (session.cpp). Within a run a file's sites follow one another, so while
// all of an item's shares come from one run the last share is the only one
// that can be the file's. An index by path is built only for an item that
// meets a later run: an index for every item held a node per share, about
// 40 bytes each of a large tree's 165,000 shares.
struct ShareSlots {
  std::size_t first_run = 0;                               // the run of the item's first site
  std::unordered_map<InternedString, std::size_t> by_path; // into item.files; built on demand
};

// Counts one site in the item's share of `path`; `run` numbers the sorted
// run of findings this one belongs to.
void add_site(EffortItem &item, ShareSlots &slots, std::size_t run, const InternedString &path,
              std::optional<FixSafety> fix) {
  if (item.files.empty())
    slots.first_run = run;
  FileShare *share = nullptr;
  if (!item.files.empty() && item.files.back().path == path) {
    share = &item.files.back();
  } else if (run == slots.first_run) {
    share = &item.files.emplace_back(FileShare{path, 0, {}, {}});
  } else {
    if (slots.by_path.empty())
      for (std::size_t i = 0; i < item.files.size(); ++i)
        slots.by_path.emplace(item.files[i].path, i);
    const auto [slot, added] = slots.by_path.try_emplace(path, item.files.size());
    if (added)
      item.files.push_back({path, 0, {}, {}});
    share = &item.files[slot->second];
  }
  ++share->sites;
  if (fix)
    ++(*fix == FixSafety::Safe ? share->fix.safe_sites : share->fix.unsafe_sites);
}

// Sorts the open findings into items; the ones that the kernel model or a
// one-off covers are set aside for those.
OpenWork group_open_findings(const ScanResult &scan, const EffortModel &model, const AssessPolicy &policy,
                             const std::vector<bool> &excluded, std::string_view fix_target_torch,
                             const FixCatalog *fixes, EffortEstimate &estimate) {
  // Where the kernel model prices the project's CUDA kernels, the findings
  // in its C++/CUDA sources (headers, host glue, bindings) are part of the
  // kernel families' ports, not extra.
  const std::set<std::string> kernel_sources = kernel_covered_sources(scan.project_files);
  // Families whose open findings a one-off does (a CUDA-only build line).
  std::map<std::string, std::string> absorbed_by; // family -> one-off id
  for (const OneOffCost &cost : model.one_offs)
    for (const std::string &family : cost.absorbs_families)
      absorbed_by.emplace(family, cost.id);

  OpenWork work;
  std::map<std::string, ShareSlots> share_slots; // by item key
  std::size_t run = 0;                           // sorted runs of findings so far, less one
  for (std::size_t index = 0; index < scan.findings.size(); ++index) {
    const Finding &finding = scan.findings[index];
    if (index > 0 && finding.path.str() < scan.findings[index - 1].path.str())
      ++run;
    if (!count_open(finding, index < excluded.size() && excluded[index], estimate))
      continue;
    const Effort effort = finding.rule ? finding.rule->effort : Effort::Small;
    const std::string family = finding.rule ? finding.rule->family : "other";
    work.open_families.insert(family);
    std::optional<FixSafety> fix;
    if (fixes)
      fix = fix_available(finding, *fixes,
                          fix_target_torch.empty() ? kDefaultFixTargetTorch : fix_target_torch);
    FamilyFixes &family_fix = work.family_fixes[family];
    ++family_fix.open;
    family_fix.safe += fix == FixSafety::Safe;
    family_fix.fixable += fix.has_value();
    if (effort != Effort::Blocker && kernel_sources.count(finding.path)) {
      work.covered_by_kernels[finding.path].push_back(index);
      continue;
    }
    if (const auto one_off = absorbed_by.find(family);
        one_off != absorbed_by.end() && effort != Effort::Blocker) {
      work.absorbed[one_off->second].push_back(index);
      continue;
    }
    const std::string package = package_of(finding, family, effort);
    const ItemKey key = item_key_of(scan, finding, package, effort, policy);
    EffortItem &item = work.items[key.key];
    // A package item takes the largest class any of its findings has.
    if (item.key.empty() || (!package.empty() && effort_rank(effort) > effort_rank(item.effort)))
      start_item(item, key, finding, family, effort);
    ++item.sites;
    item.finding_indices.push_back(index);
    add_site(item, share_slots[key.key], run, finding.path, fix);
  }
  // Held to the end of the assessment, twice with the what-if estimate: no
  // growth slack.
  share_slots.clear();
  for (auto &entry : work.items) {
    entry.second.files.shrink_to_fit();
    entry.second.finding_indices.shrink_to_fit();
  }
  return work;
}

int total_sites_of(const EffortItem &item) {
  int total = 0;
  for (const auto &share : item.files)
    total += share.sites;
  return total;
}

// Prices each trivial item's files per site, and returns the hours of each
// file's mechanical edits, all trivial items together.
std::map<std::string, HourRange> price_trivial_sites(std::map<std::string, EffortItem> &items,
                                                     const EffortModel &model) {
  std::map<std::string, HourRange> trivial_by_file;
  for (auto &[key, item] : items) {
    if (item.effort == Effort::Trivial)
      for (auto &share : item.files) {
        share.hours = model.trivial_per_site.scaled(share.sites);
        trivial_by_file[share.path] += share.hours;
      }
  }
  return trivial_by_file;
}

void price_trivial_item(EffortItem &item, int total_sites, const EffortModel &model,
                        const std::map<std::string, HourRange> &trivial_by_file) {
  bool capped = false;
  for (auto &share : item.files) {
    // The per-file cap covers all mechanical edits of a file together;
    // each item keeps its proportional part of the capped sum.
    const HourRange &sum = trivial_by_file.at(share.path);
    if (sum.low > model.trivial_file_cap) {
      share.hours.low *= model.trivial_file_cap / sum.low;
      capped = true;
    }
    if (sum.high > model.trivial_file_cap) {
      share.hours.high *= model.trivial_file_cap / sum.high;
      capped = true;
    }
    item.hours += share.hours;
  }
  item.basis =
      counted(static_cast<std::size_t>(total_sites), "site") + " in " + counted(item.files.size(), "file") +
      " x " + format_hours(model.trivial_per_site) +
      (capped ? ", capped at " + number_text(model.trivial_file_cap) + " h of mechanical edits per file"
              : "");
}

// A small, medium or large item: once per hazard class, component, kernel
// family or package, shared among its files.
void price_per_fix_item(EffortItem &item, int total_sites, const EffortModel &model,
                        const std::vector<Finding> &findings) {
  const HourRange per_fix = item.effort == Effort::Small    ? model.small_per_fix
                            : item.effort == Effort::Medium ? model.medium_per_fix
                                                            : model.large_per_fix;
  const bool package = starts_with(item.key, "package:");
  // Explicit instantiation files of one family: each further file is a variant.
  const int variants = item.effort == Effort::Large && !package ? static_cast<int>(item.files.size()) - 1 : 0;
  item.hours = per_fix;
  item.hours += model.kernel_per_variant.scaled(variants);
  spread_over_files(item, total_sites,
                    package ? code_sites_by_path(item, findings) : std::map<std::string, int>{});
  item.basis = std::string(package                         ? "once per package per repository"
                           : item.effort == Effort::Small  ? "once per hazard class per repository"
                           : item.effort == Effort::Medium ? "once per component"
                                                           : "once per kernel family") +
               " (" + std::to_string(total_sites) + (total_sites == 1 ? " site" : " sites") +
               (package && item.files.size() > 1 ? " in " + std::to_string(item.files.size()) + " files"
                                                 : std::string()) +
               (variants > 0 ? ", " + counted(static_cast<std::size_t>(variants), "more variant file") +
                                   " x " + format_hours(model.kernel_per_variant)
                             : std::string()) +
               ")";
}

void price_finding_items(std::map<std::string, EffortItem> &items, const EffortModel &model,
                         const std::vector<Finding> &findings, EffortEstimate &estimate) {
  const std::map<std::string, HourRange> trivial_by_file = price_trivial_sites(items, model);
  for (auto &[key, item] : items) {
    const int total_sites = total_sites_of(item);
    switch (item.effort) {
    case Effort::Trivial:
      price_trivial_item(item, total_sites, model, trivial_by_file);
      break;
    case Effort::Small:
    case Effort::Medium:
    case Effort::Large:
      price_per_fix_item(item, total_sites, model, findings);
      break;
    case Effort::Blocker:
      item.basis = "no MPS path: not estimated";
      ++estimate.not_estimated;
      break;
    }
    credit_fixes(item);
  }
}

// A one-off cost that an open family triggers, with the findings it does.
EffortItem one_off_item(const OneOffCost &cost, const OpenWork &work) {
  EffortItem item;
  item.key = "one-off:" + cost.id;
  item.title = cost.title;
  item.family = "one-off";
  item.effort = Effort::Trivial; // first in the plan: the mechanical edits build on it
  item.kind = EffortItemKind::OneOff;
  item.hours = cost.hours;
  item.basis = "once per repository (" + cost.source + ")";
  if (const auto done = work.absorbed.find(cost.id); done != work.absorbed.end()) {
    item.finding_indices = done->second;
    item.sites = static_cast<int>(done->second.size());
    item.basis += "; covers " + counted(static_cast<std::size_t>(item.sites), "finding");
  }
  bool all_safe = true, all_fixable = true;
  for (const std::string &family : cost.when_families)
    if (const auto found = work.family_fixes.find(family); found != work.family_fixes.end()) {
      all_safe = all_safe && found->second.safe == found->second.open;
      all_fixable = all_fixable && found->second.fixable == found->second.open;
    }
  if (all_safe)
    item.fix.safe = item.hours;
  if (all_fixable)
    item.fix.with_unsafe = item.hours;
  if (all_fixable)
    item.basis += all_safe ? "; mpsaudit fix does it with the findings it edits"
                           : "; mpsaudit fix --unsafe does it with the findings it edits";
  return item;
}

void add_one_off_items(const EffortModel &model, OpenWork &work) {
  for (const OneOffCost &cost : model.one_offs) {
    const bool triggered =
        std::any_of(cost.when_families.begin(), cost.when_families.end(),
                    [&](const std::string &family) { return work.open_families.count(family) > 0; });
    if (!triggered)
      continue;
    EffortItem item = one_off_item(cost, work);
    work.items.emplace(item.key, std::move(item));
  }
}

// Mechanical work first: the order of the action plan.
std::vector<EffortItem> action_plan(std::map<std::string, EffortItem> &items) {
  std::vector<EffortItem> plan;
  for (auto &entry : items)
    plan.push_back(std::move(entry.second));
  auto kind_rank = [](const EffortItem &item) { return item.kind == EffortItemKind::OneOff ? 0 : 1; };
  std::stable_sort(plan.begin(), plan.end(), [&](const EffortItem &a, const EffortItem &b) {
    // Acceptance closes the plan: it checks what the other steps did.
    if ((a.key == kAcceptanceKey) != (b.key == kAcceptanceKey))
      return b.key == kAcceptanceKey;
    if (effort_rank(a.effort) != effort_rank(b.effort))
      return effort_rank(a.effort) < effort_rank(b.effort);
    if (kind_rank(a) != kind_rank(b))
      return kind_rank(a) < kind_rank(b);
    if (a.hours.high != b.hours.high)
      return a.hours.high > b.hours.high;
    return a.key < b.key;
  });
  return plan;
}

// One roll-up's running totals, keyed by the row's name.
struct RollUpTotals {
  HourRange hours;
  int findings = 0;
  FixCredit fix;
};
using RollUpTable = std::map<std::string, RollUpTotals, std::less<>>;

void add_to_roll_up(RollUpTable &table, std::string_view name, const HourRange &hours, int count,
                    const FixCredit &fix) {
  auto entry = table.find(name);
  if (entry == table.end())
    entry = table.emplace(std::string(name), RollUpTotals{}).first;
  entry->second.hours += hours;
  entry->second.findings += count;
  entry->second.fix += fix;
}

// The rows of a roll-up, the most hours first. Each entry of `table` is
// freed as its row is made: a tree-wide roll-up by file has a row for
// every file with a finding.
std::vector<RollUp> sorted_rows(RollUpTable &&table) {
  std::vector<RollUp> rows;
  rows.reserve(table.size());
  while (!table.empty()) {
    auto entry = table.extract(table.begin());
    rows.push_back(
        {std::move(entry.key()), entry.mapped().hours, entry.mapped().findings, entry.mapped().fix});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RollUp &a, const RollUp &b) {
    if (a.hours.high != b.hours.high)
      return a.hours.high > b.hours.high;
    return a.name < b.name;
  });
  return rows;
}

// One roll-up of the items' shares: `row_of` names a file's row; an item
// without files (a one-off) goes to `repository_row`.
template <typename RowOf>
std::vector<RollUp> roll_up_shares(const std::vector<EffortItem> &items, std::string_view repository_row,
                                   RowOf row_of) {
  RollUpTable table;
  for (const EffortItem &item : items) {
    if (item.files.empty()) {
      add_to_roll_up(table, repository_row, item.hours, 0, item.fix);
      continue;
    }
    for (const FileShare &share : item.files)
      add_to_roll_up(table, row_of(share.path), share.hours,
                     item.kind == EffortItemKind::Finding ? share.sites : 0, share.fix);
  }
  return sorted_rows(std::move(table));
}

// The totals and the roll-up by category.
void roll_up_totals(EffortEstimate &estimate) {
  RollUpTable by_category;
  for (const EffortItem &item : estimate.items) {
    estimate.total += item.hours;
    estimate.fix += item.fix;
    add_to_roll_up(by_category, item.family, item.hours,
                   item.kind == EffortItemKind::Finding ? item.sites : 0, item.fix);
  }
  estimate.by_category = sorted_rows(std::move(by_category));
}

} // namespace

// One roll-up at a time, so that one table is alive at once.
void roll_up_by_place(EffortEstimate &estimate, const std::map<std::string, Role> &role_of) {
  estimate.by_file = roll_up_shares(estimate.items, "(repository)",
                                    [](const InternedString &path) -> std::string_view { return path; });
  estimate.by_directory = roll_up_shares(estimate.items, "(repository)", [](const InternedString &path) {
    return parent_directory(path.str());
  });
  estimate.by_role = roll_up_shares(estimate.items, "tooling", [&](const InternedString &path) {
    const auto role = role_of.find(path);
    return to_string(role == role_of.end() ? Role::Tooling : role->second);
  });
}

EffortEstimate estimate_effort(const ScanResult &scan, const std::vector<FileRole> &roles,
                               const EffortModel &model, const std::vector<bool> &excluded,
                               std::string_view fix_target_torch, const FixCatalog *fixes,
                               EstimateDetail detail, const AssessPolicy &policy,
                               const std::vector<std::string> *entry_points) {
  EffortEstimate estimate;
  const std::map<std::string, Role> role_of = role_by_path(roles);

  OpenWork work = group_open_findings(scan, model, policy, excluded, fix_target_torch, fixes, estimate);
  price_finding_items(work.items, model, scan.findings, estimate);
  // CUDA kernels from the C++ front end, one item per kernel family.
  price_kernel_families(scan, model, policy, work.items, work.covered_by_kernels, estimate);
  add_one_off_items(model, work);
  // Acceptance on the Mac: part of every port, never an extra.
  estimate.entry_points =
      entry_points ? *entry_points : scripts_to_accept(discover_entry_points(scan.project_files, policy));
  const bool any_work = std::any_of(work.items.begin(), work.items.end(),
                                    [](const auto &entry) { return entry.second.estimable; });
  if (any_work) {
    EffortItem item = acceptance_item(model, static_cast<int>(estimate.entry_points.size()));
    work.items.emplace(item.key, std::move(item));
  }
  estimate.items = action_plan(work.items);
  roll_up_totals(estimate);
  if (detail == EstimateDetail::Full)
    roll_up_by_place(estimate, role_of);

  estimate.native_port = estimate.total;
  estimate.native_port += estimate.deferred;
  return estimate;
}

namespace {

// "a.py, b.py and 3 more", each path after `path_prefix`
// (ScanResult::display_prefix: it reads from the current directory).
std::string list_of(const std::vector<std::string> &names, std::size_t limit,
                    const std::string &path_prefix) {
  std::string text;
  const std::size_t shown = std::min(names.size(), limit);
  for (std::size_t i = 0; i < shown; ++i)
    text += (i == 0 ? "" : i + 1 == shown && names.size() <= limit ? " and " : ", ") + path_prefix + names[i];
  if (names.size() > limit)
    text += " and " + std::to_string(names.size() - limit) + " more";
  return text;
}

bool on_linux_only(Role role) {
  return role == Role::Training;
}

// Documentation and examples keep what they demonstrate: a tutorial of a
// CUDA-only library is not part of the port. Their mechanical edits are.
bool left_to_docs(const EffortItem &item, const FileShare &share,
                  const std::map<std::string, Role> &role_of) {
  if (item.effort == Effort::Trivial)
    return false;
  const auto role = role_of.find(share.path);
  return role != role_of.end() && role->second == Role::Docs;
}

// ADAPT: everything the Mac needs now, without the docs' showcases.
RecommendedPlan price_port(const EffortEstimate &estimate, const std::map<std::string, Role> &role_of,
                           const PlanScope &scope) {
  RecommendedPlan plan;
  plan.path = RecommendedPath::Port;
  HourRange &hours = plan.hours;
  FixCredit &fix = plan.fix;
  for (const EffortItem &item : estimate.items) {
    if (!item.estimable)
      continue;
    if (item.files.empty()) {
      hours += item.hours;
      fix += item.fix;
      continue;
    }
    for (const FileShare &share : item.files)
      if (!left_to_docs(item, share, role_of) && !scope.off_path.count(share.path)) {
        hours += share.hours;
        fix += share.fix;
      }
  }
  plan.goal = estimate.entry_points.empty()
                  ? "port the repository to MPS"
                  : "run " + list_of(estimate.entry_points, 3, scope.path_prefix) + " on MPS";
  plan.basis =
      "the port of everything the Mac needs now (documentation's showcases of CUDA-only libraries stay as "
      "they "
      "are), with acceptance on the Mac" +
      std::string(estimate.deferred.high > 0 ? "; kernels with a fallback are routed to it, their ports wait"
                                             : "");
  return plan;
}

// The Mac entry points a DUAL goal names: inference and evaluation first,
// then model, data and tests; tooling (download and conversion scripts) is
// not what a lab runs on the Mac, so it is never named.
std::vector<std::string> mac_work_entries(const std::vector<std::string> &mac_entries,
                                          const std::map<std::string, Role> &role_of) {
  const auto rank = [&](const std::string &path) {
    const auto role = role_of.find(path);
    if (role == role_of.end())
      return 2;
    switch (role->second) {
    case Role::Inference:
    case Role::Evaluation:
      return 0;
    case Role::Model:
      return 1;
    case Role::Tooling:
    case Role::Docs:
      return 9;
    default:
      return 2;
    }
  };
  std::vector<std::string> named;
  for (const std::string &path : mac_entries)
    if (rank(path) < 9)
      named.push_back(path);
  std::stable_sort(named.begin(), named.end(),
                   [&](const std::string &a, const std::string &b) { return rank(a) < rank(b); });
  return named;
}

// DUAL: the items the Mac entry points need. Training code and multi-GPU
// machinery stay on Linux; everything else (model, inference, evaluation,
// data, tests, tooling, one-offs) is on the Mac path.
RecommendedPlan price_mac_entry_points(const EffortEstimate &estimate,
                                       const std::map<std::string, Role> &role_of, const EffortModel &model,
                                       const PlanScope &scope) {
  RecommendedPlan plan;
  plan.path = RecommendedPath::MacEntryPoints;
  HourRange &hours = plan.hours;
  FixCredit &fix = plan.fix;
  std::vector<std::string> mac_entries;
  for (const std::string &path : estimate.entry_points) {
    const auto role = role_of.find(path);
    if ((role == role_of.end() || !on_linux_only(role->second)) && !scope.off_path.count(path))
      mac_entries.push_back(path);
  }
  for (std::size_t index = 0; index < estimate.items.size(); ++index) {
    const EffortItem &item = estimate.items[index];
    if (!item.estimable || (index < scope.linux_only_items.size() && scope.linux_only_items[index]))
      continue;
    if (item.key == kAcceptanceKey) {
      hours += acceptance_hours(model, static_cast<int>(mac_entries.size()));
      continue;
    }
    if (item.files.empty()) { // a one-off: the Mac path needs it too
      hours += item.hours;
      fix += item.fix;
      continue;
    }
    for (const FileShare &share : item.files) {
      const auto role = role_of.find(share.path);
      if ((role != role_of.end() && on_linux_only(role->second)) || left_to_docs(item, share, role_of) ||
          scope.off_path.count(share.path))
        continue;
      hours += share.hours;
      fix += share.fix;
    }
  }
  const std::vector<std::string> named = mac_work_entries(mac_entries, role_of);
  plan.goal = named.empty()
                  ? "run inference, evaluation and tests on MPS while training stays on Linux"
                  : "run " + list_of(named, 3, scope.path_prefix) + " on MPS while training stays on Linux";
  plan.basis = "the open work outside training code and multi-GPU machinery, plus acceptance on "
               "the Mac for " +
               std::to_string(std::max<std::size_t>(mac_entries.size(), 1)) + " entry point" +
               (mac_entries.size() > 1 ? "s" : "");
  return plan;
}

// KEEP_LINUX_GPU: pin the environment; guard the imports of CUDA-only
// components so that the package installs and imports elsewhere, where
// there are few enough of them for that to be cheap.
RecommendedPlan price_keep_linux(const EffortEstimate &estimate, const EffortModel &model) {
  RecommendedPlan plan;
  plan.path = RecommendedPath::KeepLinux;
  int components = 0;
  for (const EffortItem &item : estimate.items)
    if (item.kind == EffortItemKind::Kernel || starts_with(item.key, "package:") ||
        (item.kind == EffortItemKind::Finding && item.family == "library" && item.effort != Effort::Trivial))
      ++components;
  const int guarded = std::min(components, model.keep_guard_max_components);
  plan.hours = model.keep_pin;
  plan.hours += model.keep_guard_per_component.scaled(guarded);
  plan.goal = "pin and document the Linux GPU environment";
  plan.basis = "pin and document the Linux environment (" + format_hours(model.keep_pin) + ")" +
               (guarded > 0 ? " and guard the imports of " + std::to_string(guarded) + " of " +
                                  counted(static_cast<std::size_t>(components), "CUDA-only component") +
                                  " (" + format_hours(model.keep_guard_per_component) + " each)"
                            : std::string());
  plan.steps = {{"Pin and document the Linux GPU environment", model.keep_pin,
                 "Record the driver, CUDA, PyTorch and package versions (a lock file or a container "
                 "image) and the commands that train and evaluate."}};
  if (guarded > 0)
    plan.steps.push_back(
        {"Guard the imports of " + counted(static_cast<std::size_t>(guarded), "CUDA-only component"),
         model.keep_guard_per_component.scaled(guarded),
         "Import each inside try/except ImportError or behind an option, so that the package imports, and "
         "its "
         "CPU paths run, where CUDA is missing."});
  return plan;
}

} // namespace

std::string_view to_string(RecommendedPath path) {
  switch (path) {
  case RecommendedPath::Port:
    return "port";
  case RecommendedPath::MacEntryPoints:
    return "mac-entry-points";
  case RecommendedPath::KeepLinux:
    return "keep-linux";
  }
  return "port";
}

RecommendedPlan plan_for(RecommendedPath path, const EffortEstimate &estimate,
                         const std::vector<FileRole> &roles, const EffortModel &model,
                         const PlanScope &scope) {
  const std::map<std::string, Role> role_of = role_by_path(roles);
  switch (path) {
  case RecommendedPath::Port:
    break;
  case RecommendedPath::MacEntryPoints:
    return price_mac_entry_points(estimate, role_of, model, scope);
  case RecommendedPath::KeepLinux:
    return price_keep_linux(estimate, model);
  }
  return price_port(estimate, role_of, scope);
}

std::string native_port_text(const EffortEstimate &estimate, RecommendedPath path) {
  std::string text = format_hours(estimate.native_port) + " to port everything natively" +
                     (path == RecommendedPath::KeepLinux ? " anyway, instead of keeping Linux GPUs" : "");
  const auto &families = estimate.kernel_families;
  if (families.empty())
    return text;
  const auto tensor_core = std::count_if(families.begin(), families.end(),
                                         [](const KernelFamily &family) { return family.tensor_core; });
  std::vector<std::string> largest;
  for (std::size_t i = 0; i < families.size() && i < 3; ++i)
    largest.push_back(families[i].name);
  text += " (" + std::to_string(families.size()) + " kernel famil" + (families.size() == 1 ? "y" : "ies");
  if (tensor_core > 0)
    text += ", of which " + std::to_string(tensor_core) + " use" + (tensor_core == 1 ? "s" : "") +
            " tensor cores or PTX";
  text += "; largest: " + list_of(largest, 3, "") + ")";
  return text;
}

} // namespace mpsaudit
