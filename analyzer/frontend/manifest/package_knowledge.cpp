#include "frontend/manifest/package_knowledge.h"

#include <toml++/toml.h>

#include "core/text.h"

namespace mpsaudit::manifest {

bool package_glob_match(std::string_view pattern, std::string_view text) {
  return glob_match(pattern, text);
}

const PackageEntry *PackageKnowledge::find(std::string_view distribution) const {
  // An exact entry wins over a glob entry.
  for (const auto &entry : packages)
    if (entry.name == distribution)
      return &entry;
  for (const auto &entry : packages)
    if (entry.name.find_first_of("*?") != std::string::npos && package_glob_match(entry.name, distribution))
      return &entry;
  return nullptr;
}

std::vector<std::string> PackageKnowledge::imports_of(std::string_view distribution) const {
  if (const PackageEntry *entry = find(distribution); entry && entry->has_imports_key)
    return entry->imports;
  std::string module(distribution);
  for (char &c : module)
    if (c == '-')
      c = '_';
  return {module};
}

PackageKnowledge parse_package_knowledge(std::string_view toml_text, const std::string &origin,
                                         std::vector<Diagnostic> &diagnostics) {
  PackageKnowledge knowledge;
  toml::table root;
  try {
    root = toml::parse(toml_text, origin);
  } catch (const toml::parse_error &error) {
    diagnostics.push_back({DiagnosticLevel::Error, origin,
                           static_cast<std::uint32_t>(error.source().begin.line), "parse-error",
                           "invalid TOML: " + std::string(error.description())});
    return knowledge;
  }
  const auto *list = root["package"].as_array();
  if (!list)
    return knowledge;
  for (const auto &node : *list) {
    const auto *table = node.as_table();
    if (!table)
      continue;
    PackageEntry entry;
    entry.name = (*table)["name"].value_or(std::string{});
    if (entry.name.empty()) {
      diagnostics.push_back({DiagnosticLevel::Error, origin,
                             static_cast<std::uint32_t>(table->source().begin.line), "missing-key",
                             "[[package]] without a name"});
      continue;
    }
    if (normalize_package_name(entry.name) != entry.name && entry.name.find('*') == std::string::npos)
      diagnostics.push_back({DiagnosticLevel::Error, origin,
                             static_cast<std::uint32_t>(table->source().begin.line), "unnormalised-name",
                             "package name '" + entry.name + "' is not PEP 503 normalised"});
    entry.ecosystem = (*table)["ecosystem"].value_or(std::string("pypi"));
    if (const auto *imports = (*table)["imports"].as_array()) {
      entry.has_imports_key = true;
      for (const auto &module : *imports)
        if (const auto *text = module.as_string())
          entry.imports.push_back(text->get());
    }
    entry.status = (*table)["status"].value_or(std::string{});
    entry.mac_since = (*table)["mac_since"].value_or(std::string{});
    entry.alternative = (*table)["alternative"].value_or(std::string{});
    entry.effort = (*table)["effort"].value_or(std::string{});
    entry.rule = (*table)["rule"].value_or(std::string{});
    if (const auto *sources = (*table)["sources"].as_array())
      for (const auto &source : *sources)
        if (const auto *text = source.as_string())
          entry.sources.push_back(text->get());
    knowledge.packages.push_back(std::move(entry));
  }
  return knowledge;
}

const PackageKnowledge &package_knowledge() {
  static const PackageKnowledge knowledge = [] {
    std::vector<Diagnostic> ignored; // the unit tests hold the data file to account
    return parse_package_knowledge(embedded_packages_toml(), "rules/packages.toml", ignored);
  }();
  return knowledge;
}

void annotate_dependency(Fact &fact) {
  const PackageEntry *entry = package_knowledge().find(fact.name);
  if (!entry || entry->status.empty() || entry->status == "n/a")
    return;
  fact.set_attribute("mac_status", entry->status);
  if (!entry->mac_since.empty())
    fact.set_attribute("mac_since", entry->mac_since);
  if (!entry->alternative.empty())
    fact.set_attribute("alternative", entry->alternative);
}

std::set<std::string> modules_without_mac_support() {
  std::set<std::string> modules;
  for (const auto &entry : package_knowledge().packages)
    if (entry.status == "none")
      for (const auto &module : entry.imports)
        modules.insert(module);
  return modules;
}

} // namespace mpsaudit::manifest
