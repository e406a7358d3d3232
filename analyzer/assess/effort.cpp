#include "assess/effort.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include <toml++/toml.h>

#include "core/text.h"
#include "fix/fix.h"

namespace mpsaudit {
namespace {

std::string number_text(double value) {
  char buffer[32];
  if (std::fabs(value - std::round(value)) < 0.05)
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  else
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

std::string directory_of(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
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
      if (fact.kind != "op-registration")
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

std::string format_hours(const HourRange &range) {
  const double high = range.high;
  if (high <= 0)
    return "0 h";
  double divisor = 1;
  const char *unit = "h";
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

std::string fix_credit_sentence(const FixCredit &fix) {
  auto findings = [](int count) { return std::to_string(count) + (count == 1 ? " finding" : " findings"); };
  std::string text = fix.safe_sites > 0 ? "mpsaudit fix --apply removes " + format_hours(fix.safe) +
                                              " of it (" + findings(fix.safe_sites) + ")"
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
       "shared/HAZARDS.md section 8 (TRIVIAL: once per repo)"},
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
  section_number("model", "hours_per_day", model.hours_per_day);
  for (const char *section : {"trivial", "small", "medium", "large", "kernel"})
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

bool is_open_finding(const Finding &finding) {
  return !finding.suppressed && finding.guard == Guard::None &&
         finding.severity >= static_cast<int>(Severity::Warning);
}

EffortEstimate estimate_effort(const ScanResult &scan, const std::vector<FileRole> &roles,
                               const EffortModel &model, const std::vector<bool> &excluded,
                               std::string_view fix_target_torch) {
  EffortEstimate estimate;
  std::map<std::string, Role> role_of;
  for (const FileRole &role : roles)
    role_of[role.path] = role.role;

  // Files whose kernels the kernel model prices: their medium and large
  // findings are part of that price, not extra.
  std::set<std::string> kernel_files;
  for (const auto &file : scan.project_files)
    for (const Fact &fact : file.facts.facts)
      if (fact.kind == "cuda-kernel")
        kernel_files.insert(file.path);

  std::map<std::string, EffortItem> items; // by key
  std::map<std::string, std::unordered_map<std::string, std::size_t>> share_index; // key -> path -> files[]
  std::set<std::string> open_families;
  // Per family: open findings, and how many of them fix edits (safe; safe or
  // unsafe). A one-off is credited when fix edits every finding that
  // triggers it: the device variable fix introduces is the device helper.
  struct FamilyFixes {
    int open = 0, safe = 0, fixable = 0;
  };
  std::map<std::string, FamilyFixes> family_fixes;
  std::map<std::string, std::vector<std::size_t>> covered_by_kernels; // path -> findings
  for (std::size_t index = 0; index < scan.findings.size(); ++index) {
    const Finding &finding = scan.findings[index];
    if (index < excluded.size() && excluded[index])
      continue;
    if (finding.suppressed) {
      ++estimate.suppressed_findings;
      continue;
    }
    if (finding.guard != Guard::None) {
      ++estimate.guarded_findings;
      continue;
    }
    if (finding.severity < static_cast<int>(Severity::Warning)) {
      ++estimate.advisory_findings;
      continue;
    }
    ++estimate.open_findings;
    const Rule *rule = finding.rule;
    const Effort effort = rule ? rule->effort : Effort::Small;
    const std::string family = rule ? rule->family : "other";
    open_families.insert(family);
    const std::optional<FixSafety> fix = fix_available(finding, fix_target_torch);
    FamilyFixes &family_fix = family_fixes[family];
    ++family_fix.open;
    family_fix.safe += fix == FixSafety::Safe;
    family_fix.fixable += fix.has_value();
    if (kernel_files.count(finding.path) && effort_rank(effort) >= effort_rank(Effort::Medium) &&
        effort != Effort::Blocker) {
      covered_by_kernels[finding.path].push_back(index);
      continue;
    }
    std::string key = finding.rule_id;
    if (effort == Effort::Medium)
      key += ":" + component_of(finding.name);
    else if (effort == Effort::Large)
      key += ":" + finding.path;
    else if (effort == Effort::Blocker)
      key += ":" + finding.path + ":" + std::to_string(finding.span.line);
    EffortItem &item = items[key];
    if (item.key.empty()) {
      item.key = key;
      item.rule_id = finding.rule_id;
      item.title = rule ? rule->summary : finding.rule_id;
      if (effort == Effort::Medium || effort == Effort::Large)
        item.title += " (" + (effort == Effort::Large ? finding.path : component_of(finding.name)) + ")";
      item.family = family;
      item.effort = effort;
      item.kind = "finding";
      item.replacement = rule ? rule->replacement : "";
      item.estimable = effort != Effort::Blocker;
    }
    ++item.sites;
    item.finding_indices.push_back(index);
    // The item's share of this file; an index, not a search of item.files,
    // which grows with the tree (a rule with findings in 30k files).
    const auto [slot, added] = share_index[key].try_emplace(finding.path, item.files.size());
    if (added)
      item.files.push_back({finding.path, 0, {}, {}});
    FileShare *share = &item.files[slot->second];
    ++share->sites;
    if (fix)
      ++(*fix == FixSafety::Safe ? share->fix.safe_sites : share->fix.unsafe_sites);
  }

  // Price the finding items.
  std::map<std::string, double> trivial_low_by_file, trivial_high_by_file;
  for (auto &[key, item] : items) {
    if (item.effort == Effort::Trivial)
      for (auto &share : item.files) {
        share.hours = model.trivial_per_site.scaled(share.sites);
        trivial_low_by_file[share.path] += share.hours.low;
        trivial_high_by_file[share.path] += share.hours.high;
      }
  }
  for (auto &[key, item] : items) {
    int total_sites = 0;
    for (const auto &share : item.files)
      total_sites += share.sites;
    switch (item.effort) {
    case Effort::Trivial: {
      bool capped = false;
      for (auto &share : item.files) {
        // The per-file cap covers all mechanical edits of a file together;
        // each item keeps its proportional part of the capped sum.
        const double low_sum = trivial_low_by_file[share.path];
        const double high_sum = trivial_high_by_file[share.path];
        if (low_sum > model.trivial_file_cap) {
          share.hours.low *= model.trivial_file_cap / low_sum;
          capped = true;
        }
        if (high_sum > model.trivial_file_cap) {
          share.hours.high *= model.trivial_file_cap / high_sum;
          capped = true;
        }
        item.hours += share.hours;
      }
      item.basis =
          std::to_string(total_sites) + (total_sites == 1 ? " site" : " sites") + " in " +
          std::to_string(item.files.size()) + (item.files.size() == 1 ? " file" : " files") + " x " +
          format_hours(model.trivial_per_site) +
          (capped ? ", capped at " + number_text(model.trivial_file_cap) + " h of mechanical edits per file"
                  : "");
      break;
    }
    case Effort::Small:
    case Effort::Medium:
    case Effort::Large: {
      const HourRange per_fix = item.effort == Effort::Small    ? model.small_per_fix
                                : item.effort == Effort::Medium ? model.medium_per_fix
                                                                : model.large_per_fix;
      item.hours = per_fix;
      for (auto &share : item.files)
        share.hours = per_fix.scaled(static_cast<double>(share.sites) / total_sites);
      item.basis = std::string(item.effort == Effort::Small    ? "once per hazard class per repository"
                               : item.effort == Effort::Medium ? "once per component"
                                                               : "once per file (one kernel family)") +
                   " (" + std::to_string(total_sites) + (total_sites == 1 ? " site)" : " sites)");
      break;
    }
    case Effort::Blocker:
      item.basis = "no MPS path: not estimated";
      ++estimate.not_estimated;
      break;
    }
    credit_fixes(item);
  }

  // CUDA kernels from the C++ front end.
  const KernelFallbacks fallbacks = kernel_fallbacks(scan.project_files);
  for (const auto &file : scan.project_files) {
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind != "cuda-kernel")
        continue;
      EffortItem item;
      item.key = "kernel:" + file.path + ":" + fact.name;
      item.title =
          "Port CUDA kernel " + fact.name + " (" + file.path + ":" + std::to_string(fact.span.line) + ")";
      item.family = "kernels";
      item.effort = Effort::Large;
      item.kind = "kernel";
      item.sites = 1;
      item.replacement =
          "Re-express in torch ops, or Metal via torch.mps.compile_shader (2.7+) or a .mm extension";
      const std::uint64_t lines = attribute_count(fact, "device_lines");
      const bool tensor_core =
          attribute_count(fact, "tensor_core") > 0 || attribute_count(fact, "inline_ptx") > 0;
      HourRange port = tensor_core ? model.kernel_tensor_core : model.kernel_base;
      std::string basis = (tensor_core ? "tensor-core/PTX kernel " : "kernel ") + format_hours(port);
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
      // Guard::CpuFallback: the C++ front end traced the kernel to an op with
      // a CPU path (a device dispatch, a CPU registration, an optional build).
      const bool has_fallback =
          fact.guard == Guard::CpuFallback ||
          (fallbacks.file_has_fallback.count(file.path) ? !fallbacks.file_has_critical.count(file.path)
                                                        : fallbacks.project_all_fallback);
      if (has_fallback) {
        item.hours = model.kernel_with_fallback;
        item.deferred = port;
        item.basis = "has a CPU/Python fallback: route to it now (" +
                     format_hours(model.kernel_with_fallback) + "); port deferred (" + basis + ")";
        estimate.deferred += port;
      } else {
        item.hours = port;
        item.basis = basis;
      }
      item.files.push_back({file.path, 1, item.hours, {}});
      auto covered = covered_by_kernels.find(file.path);
      if (covered != covered_by_kernels.end()) {
        item.finding_indices = std::move(covered->second);
        covered_by_kernels.erase(covered);
      }
      items.emplace(item.key, std::move(item));
    }
  }

  // One-off costs.
  for (const OneOffCost &cost : model.one_offs) {
    const bool triggered =
        std::any_of(cost.when_families.begin(), cost.when_families.end(),
                    [&](const std::string &family) { return open_families.count(family) > 0; });
    if (!triggered)
      continue;
    EffortItem item;
    item.key = "one-off:" + cost.id;
    item.title = cost.title;
    item.family = "one-off";
    item.effort = Effort::Trivial; // first in the plan: the mechanical edits build on it
    item.kind = "one-off";
    item.hours = cost.hours;
    item.basis = "once per repository (" + cost.source + ")";
    bool all_safe = true, all_fixable = true;
    for (const std::string &family : cost.when_families)
      if (const auto found = family_fixes.find(family); found != family_fixes.end()) {
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
    items.emplace(item.key, std::move(item));
  }

  for (auto &entry : items)
    estimate.items.push_back(std::move(entry.second));
  // Mechanical work first: the order of the action plan.
  auto kind_rank = [](const EffortItem &item) { return item.kind == "one-off" ? 0 : 1; };
  std::stable_sort(estimate.items.begin(), estimate.items.end(),
                   [&](const EffortItem &a, const EffortItem &b) {
                     if (effort_rank(a.effort) != effort_rank(b.effort))
                       return effort_rank(a.effort) < effort_rank(b.effort);
                     if (kind_rank(a) != kind_rank(b))
                       return kind_rank(a) < kind_rank(b);
                     if (a.hours.high != b.hours.high)
                       return a.hours.high > b.hours.high;
                     return a.key < b.key;
                   });

  // Roll-ups.
  std::map<std::string, RollUp> by_category, by_file, by_directory, by_role;
  auto add = [](std::map<std::string, RollUp> &table, const std::string &name, const HourRange &hours,
                int count, const FixCredit &fix) {
    RollUp &entry = table[name];
    entry.name = name;
    entry.hours += hours;
    entry.findings += count;
    entry.fix += fix;
  };
  for (const EffortItem &item : estimate.items) {
    estimate.total += item.hours;
    estimate.fix += item.fix;
    const int open_count = item.kind == "finding" ? item.sites : 0;
    add(by_category, item.family, item.hours, open_count, item.fix);
    if (item.files.empty()) {
      // One-offs belong to the repository as a whole.
      add(by_file, "(repository)", item.hours, 0, item.fix);
      add(by_directory, "(repository)", item.hours, 0, item.fix);
      add(by_role, "tooling", item.hours, 0, item.fix);
      continue;
    }
    for (const FileShare &share : item.files) {
      const int count = item.kind == "finding" ? share.sites : 0;
      add(by_file, share.path, share.hours, count, share.fix);
      add(by_directory, directory_of(share.path), share.hours, count, share.fix);
      const auto role = role_of.find(share.path);
      add(by_role, std::string(to_string(role == role_of.end() ? Role::Tooling : role->second)), share.hours,
          count, share.fix);
    }
  }
  auto sorted = [](std::map<std::string, RollUp> &table) {
    std::vector<RollUp> rows;
    for (auto &entry : table)
      rows.push_back(std::move(entry.second));
    std::stable_sort(rows.begin(), rows.end(), [](const RollUp &a, const RollUp &b) {
      if (a.hours.high != b.hours.high)
        return a.hours.high > b.hours.high;
      return a.name < b.name;
    });
    return rows;
  };
  estimate.by_category = sorted(by_category);
  estimate.by_file = sorted(by_file);
  estimate.by_directory = sorted(by_directory);
  estimate.by_role = sorted(by_role);
  return estimate;
}

} // namespace mpsaudit
