#include "frontend/manifest/option_default_pass.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/text.h"
#include "frontend/manifest/extension_import_pass.h"
#include "frontend/manifest/local_import_pass.h"
#include "frontend/manifest/package_knowledge.h"
#include "frontend/manifest/python_imports.h"

namespace mpsaudit {
namespace {

// What code behind an option needs, and where.
struct Gate {
  std::string option;  // the test as written: "self.fused_add_norm"
  std::string needs;   // "triton"
  std::string gate_at; // the gated line: "pkg/model.py:12"
  std::string why_missing;
};

// The last name of a dotted name (`self.cfg.fused` -> fused).
std::string_view last_name(std::string_view dotted) {
  return dotted.substr(dotted.rfind('.') + 1);
}

// The last name of a plain name or attribute chain; empty for anything else
// (`a and b`, `not x`).
std::string option_name(std::string_view test) {
  test = trim(test);
  for (std::size_t start = 0; start <= test.size();) {
    const std::size_t next = std::min(test.find('.', start), test.size());
    if (!is_ascii_identifier(test.substr(start, next - start)))
      return {};
    start = next + 1;
  }
  return std::string(last_name(test));
}

// A default that belongs to the model's or the run's configuration.
bool is_configuration_default(const Fact &fact) {
  if (fact.kind == fact_kind::ConfigValue)
    return true;
  if (fact.kind != fact_kind::ParameterDefault)
    return false;
  return fact.attribute("class_field") || ends_with(fact.scope, ".__init__");
}

bool defaults_to_true(const Fact &fact) {
  const std::string *value = fact.attribute("value");
  return value && *value == "True";
}

// Gates by option name, in scan order (the first per name is kept).
std::map<std::string, Gate> collect_gates(const std::vector<ProjectFile> &files) {
  const std::set<std::string> unsupported = manifest::modules_without_mac_support();
  std::map<std::string, Gate> gates;
  for (const ProjectFile &file : files) {
    if (!is_python_code(file.kind) || is_test_module(file.path))
      continue;
    for (const Fact &fact : file.facts.facts) {
      const std::string *option = fact.attribute("option");
      if (!option)
        continue;
      const std::string name = option_name(*option);
      if (name.empty() || gates.count(name))
        continue;
      const std::string where = file.path + ":" + std::to_string(fact.span.line);
      if (fact.kind == kLocalCudaOnlyImportFact) {
        gates.emplace(name, Gate{*option, *fact.attribute("value"), where, *fact.attribute("why_missing")});
      } else if (fact.kind == kCudaExtensionImportFact) {
        gates.emplace(name, Gate{*option, fact.name, where, "a CUDA extension that only nvcc builds"});
      } else if (fact.kind == fact_kind::Import && !fact.attribute("relative")) {
        const std::string top = fact.name.substr(0, fact.name.find('.'));
        if (unsupported.count(top))
          gates.emplace(name, Gate{*option, top, where, "a package with no Mac build"});
      }
    }
  }
  return gates;
}

} // namespace

void find_cuda_option_defaults(std::vector<ProjectFile> &files) {
  const std::map<std::string, Gate> gates = collect_gates(files);
  if (gates.empty())
    return;
  for (ProjectFile &file : files) {
    if (!is_python_code(file.kind) || is_test_module(file.path))
      continue;
    std::vector<Fact> added;
    for (const Fact &fact : file.facts.facts) {
      if (!is_configuration_default(fact) || !defaults_to_true(fact))
        continue;
      const auto gate = gates.find(std::string(last_name(fact.name)));
      if (gate == gates.end())
        continue;
      Fact note = fact_at(fact, std::string(kCudaOptionDefaultFact), fact.name);
      note.set_attribute("value", "True");
      note.set_attribute("option", gate->second.option);
      note.set_attribute("needs", gate->second.needs);
      note.set_attribute("gate_at", gate->second.gate_at);
      note.set_attribute("why_missing", gate->second.why_missing);
      added.push_back(std::move(note));
    }
    append_facts(file, std::move(added));
  }
}

FactRetention option_default_retention(const Fact &fact) {
  if (fact.kind == fact_kind::Import)
    return fact.attribute("option") ? FactRetention::Keep : FactRetention::Drop;
  if (fact.kind == fact_kind::ParameterDefault || fact.kind == fact_kind::ConfigValue)
    return is_configuration_default(fact) && defaults_to_true(fact) ? FactRetention::Keep
                                                                    : FactRetention::Drop;
  return fact.kind == kLocalCudaOnlyImportFact || fact.kind == kCudaExtensionImportFact ? FactRetention::Keep
                                                                                        : FactRetention::Drop;
}

} // namespace mpsaudit
