// rules/fixes.toml: which findings `mpsaudit fix` can fix, and how safely.
#include <cctype>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "core/confined_file.h"
#include "fix/fix.h"
#include "fix/fix_kind.h"
#include "rules/engine.h"
#include "rules/rule.h"
#include "rules/toml_reader.h"

namespace mpsaudit {

std::string_view to_string(FixSafety safety) {
  return safety == FixSafety::Safe ? "safe" : "unsafe";
}

std::optional<FixSafety> fix_safety_from_string(std::string_view text) {
  if (text == "safe")
    return FixSafety::Safe;
  if (text == "unsafe")
    return FixSafety::Unsafe;
  return std::nullopt;
}

FixSafety worse(FixSafety a, FixSafety b) {
  return a == FixSafety::Unsafe || b == FixSafety::Unsafe ? FixSafety::Unsafe : FixSafety::Safe;
}

int compare_releases(std::string_view a, std::string_view b) {
  auto next_part = [](std::string_view &text, bool &numeric) {
    long value = 0;
    std::size_t i = 0;
    numeric = !text.empty() && std::isdigit(static_cast<unsigned char>(text[0]));
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      value = value * 10 + (text[i++] - '0');
    if (i < text.size() && text[i] == '.')
      ++i;
    else if (i < text.size())
      text = {}; // "2.6.0rc1": stop at the first non-numeric part
    text.remove_prefix(std::min(i, text.size()));
    return value;
  };
  for (int part = 0; part < 4; ++part) {
    bool numeric_a = false, numeric_b = false;
    const long x = next_part(a, numeric_a), y = next_part(b, numeric_b);
    if (x != y)
      return x < y ? -1 : 1;
    if (!numeric_a && !numeric_b)
      break;
  }
  return 0;
}

bool fix_edits_file_kind(FileKind kind) {
  // Notebooks are JSON with code in cells; rewriting them keeps outputs and
  // metadata consistent only through a notebook writer, which fix lacks.
  return kind == FileKind::Python || kind == FileKind::Requirements;
}

namespace {

bool valid_rule_id(std::string_view id) {
  if (id.size() != 6 || id.substr(0, 3) != "MPS")
    return false;
  for (char c : id.substr(3))
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

// The [[release]] table: from which PyTorch release an API or an MPS
// capability exists, with sources. Fix kinds and [[fix]] entries name them.
void load_releases(const toml::table &document, TomlFileReader &reader,
                   std::vector<ReleaseFeature> &releases) {
  const auto *entries = document.get_as<toml::array>("release");
  if (!entries)
    return;
  for (const auto &element : *entries) {
    const auto *table = element.as_table();
    if (!table) {
      reader.error(&element, "[[release]] entries must be tables");
      continue;
    }
    reader.check_keys(*table, {"feature", "min_torch", "summary", "sources"}, "[[release]]");
    ReleaseFeature feature;
    feature.name = reader.string_at(*table, "feature", "[[release]]", true);
    feature.min_torch = reader.string_at(*table, "min_torch", "[[release]]", true);
    feature.summary = reader.string_at(*table, "summary", "[[release]]", true);
    feature.sources = reader.strings_at(*table, "sources", "[[release]]");
    if (feature.sources.empty())
      reader.error(table, "[[release]] '" + feature.name + "' needs sources");
    if (!feature.min_torch.empty() && !std::isdigit(static_cast<unsigned char>(feature.min_torch[0])))
      reader.error(table->get("min_torch"), "min_torch must be a release such as 2.5");
    else if (!feature.name.empty() && !feature.min_torch.empty() && !feature.summary.empty() &&
             !feature.sources.empty())
      releases.push_back(std::move(feature));
  }
}

// A [[fix]] entry is offered from the newest release among its own
// min_torch and the releases of the features it writes.
bool raise_to_required_release(FixDefinition &definition, const std::vector<ReleaseFeature> &releases,
                               TomlFileReader &reader, const toml::table &table) {
  bool good = true;
  for (const auto &name : definition.requires_features) {
    const auto feature = std::find_if(releases.begin(), releases.end(),
                                      [&](const ReleaseFeature &entry) { return entry.name == name; });
    if (feature == releases.end()) {
      reader.error(table.get("requires"), "no [[release]] feature '" + name + "' (define it before the fix)");
      good = false;
    } else if (definition.min_torch.empty() ||
               compare_releases(feature->min_torch, definition.min_torch) > 0) {
      definition.min_torch = feature->min_torch;
      definition.min_torch_why = feature->summary;
    }
  }
  return good;
}

} // namespace

std::string release_gate_reason(std::string_view min_torch, std::string_view why,
                                std::string_view target_torch) {
  return "needs PyTorch " + std::string(min_torch) + (why.empty() ? "" : " (" + std::string(why) + ")") +
         "; the target is " + std::string(target_torch) + " (--target-torch)";
}

std::string manifest_torch_release(const ScanResult &result) {
  for (const ProjectFile &file : result.project_files)
    for (const Fact &fact : file.facts.facts)
      if (fact.kind == fact_kind::Dependency && fact.name == "torch")
        if (const std::string *version = fact.attribute("version");
            version && !version->empty() && std::isdigit(static_cast<unsigned char>(version->front())))
          return version->substr(0, version->find('+')); // "2.1.0+cu118": the release is 2.1.0
  return {};
}

const ReleaseFeature *FixCatalog::release(std::string_view feature) const {
  for (const auto &entry : releases_)
    if (entry.name == feature)
      return &entry;
  return nullptr;
}

void FixCatalog::load_text(std::string_view toml_text, const std::string &origin,
                           std::vector<Diagnostic> &diagnostics) {
  TomlFileReader reader(origin, "invalid-fix", diagnostics);
  const std::optional<toml::table> document_or_error = reader.parse(toml_text);
  if (!document_or_error)
    return;
  const toml::table &document = *document_or_error;
  for (const auto &[key, node] : document)
    if (key.str() != "fix" && key.str() != "release")
      reader.error(&node, "unknown key '" + std::string(key.str()) +
                              "' at the top level (only [[fix]] and [[release]])");
  load_releases(document, reader, releases_);
  const auto *entries = document.get_as<toml::array>("fix");
  if (!entries)
    return;
  for (const auto &element : *entries) {
    const auto *table = element.as_table();
    if (!table) {
      reader.error(&element, "[[fix]] entries must be tables");
      continue;
    }
    for (const auto &[key, node] : *table) {
      static const std::set<std::string, std::less<>> allowed{"rule",      "kind",     "safety", "names",
                                                              "min_torch", "requires", "summary"};
      if (!allowed.count(key.str()))
        reader.error(&node, "unknown key '" + std::string(key.str()) + "' in [[fix]]");
    }
    FixDefinition definition;
    bool good = true;
    definition.rule_id = reader.string_at(*table, "rule", "[[fix]]", true);
    definition.kind = reader.string_at(*table, "kind", "[[fix]]", true);
    const std::string safety = reader.string_at(*table, "safety", "[[fix]]", true);
    definition.names = reader.strings_at(*table, "names", "[[fix]]");
    definition.min_torch = reader.string_at(*table, "min_torch", "[[fix]]", false);
    definition.requires_features = reader.strings_at(*table, "requires", "[[fix]]");
    good = raise_to_required_release(definition, releases_, reader, *table) && good;
    definition.summary = reader.string_at(*table, "summary", "[[fix]]", true);
    definition.origin = origin + ":" + std::to_string(table->source().begin.line);
    good = good && !definition.rule_id.empty() && !definition.kind.empty() && !safety.empty() &&
           !definition.summary.empty();
    if (!definition.rule_id.empty() && !valid_rule_id(definition.rule_id)) {
      reader.error(table, "'" + definition.rule_id + "' is not a rule ID (MPS and three digits)");
      good = false;
    }
    if (const auto parsed = fix_safety_from_string(safety)) {
      definition.safety = *parsed;
    } else if (!safety.empty()) {
      reader.error(table->get("safety"), "safety must be \"safe\" or \"unsafe\", not '" + safety + "'");
      good = false;
    }
    if (!definition.kind.empty() && !fix_registry().find(definition.kind)) {
      reader.error(table->get("kind"),
                   "no fix kind '" + definition.kind + "' (see analyzer/fix/registry.cpp)");
      good = false;
    }
    if (good)
      definitions_.push_back(std::move(definition));
  }
}

FixCatalog FixCatalog::load_file(const std::string &path, std::vector<Diagnostic> &diagnostics) {
  FixCatalog catalog;
  const std::optional<std::string> text = read_whole_file(path);
  if (!text) {
    diagnostics.push_back({DiagnosticLevel::Error, path, 0, "unreadable", "cannot read the fixes file"});
    return catalog;
  }
  catalog.load_text(*text, path, diagnostics);
  return catalog;
}

const FixDefinition *FixCatalog::find(const Finding &finding, std::string_view target_torch) const {
  return find_definition(finding, target_torch, true);
}

const FixDefinition *FixCatalog::find_any_release(const Finding &finding) const {
  return find_definition(finding, {}, false);
}

const FixDefinition *FixCatalog::find_definition(const Finding &finding, std::string_view target_torch,
                                                 bool check_release) const {
  for (const auto &definition : definitions_) {
    if (definition.rule_id != finding.rule_id)
      continue;
    if (check_release && !definition.min_torch.empty() &&
        compare_releases(target_torch, definition.min_torch) < 0)
      continue;
    if (!definition.names.empty()) {
      bool named = false;
      for (const auto &pattern : definition.names)
        named = named || glob_match(pattern, finding.name);
      if (!named)
        continue;
    }
    const FixKindEntry *kind = fix_registry().find(definition.kind);
    if (!kind || std::find(kind->file_kinds.begin(), kind->file_kinds.end(), finding.file_kind) ==
                     kind->file_kinds.end())
      continue;
    return &definition;
  }
  return nullptr;
}

std::optional<FixSafety> fix_available(const Finding &finding, const FixCatalog &catalog,
                                       std::string_view target_torch) {
  // What fix leaves alone on purpose: code already behind a guard, findings
  // a reviewer suppressed, and files it does not edit.
  if (finding.guard != Guard::None || finding.suppressed || !fix_edits_file_kind(finding.file_kind))
    return std::nullopt;
  if (const FixDefinition *definition = catalog.find(finding, target_torch))
    return definition->safety;
  return std::nullopt;
}

} // namespace mpsaudit
