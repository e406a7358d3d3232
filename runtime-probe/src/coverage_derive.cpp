// The derivation of a coverage table from native_functions.yaml: the only
// part that needs yaml-cpp, linked into the generator and the tests, not into
// the probe (which reads the committed tables).
#include "coverage_table.h"

#include <set>

#include <yaml-cpp/yaml.h>

#include "text_util.h"

namespace mpsaudit::probe {

namespace {

// Splits "name.overload(args) -> ret" into its parts; false when malformed.
// Alias annotations such as `Tensor(a -> *)` hold parentheses and arrows, so
// the argument list ends at the parenthesis that matches the first one.
bool parse_func_signature(std::string_view func, std::string &name, std::string &overload,
                          std::string &arguments) {
  std::size_t open = func.find('(');
  if (open == std::string_view::npos)
    return false;
  int depth = 0;
  std::size_t close = std::string_view::npos;
  for (std::size_t i = open; i < func.size(); ++i) {
    if (func[i] == '(')
      ++depth;
    else if (func[i] == ')' && --depth == 0) {
      close = i;
      break;
    }
  }
  if (close == std::string_view::npos || func.find("->", close) == std::string_view::npos)
    return false;
  std::string_view full = trim(func.substr(0, open));
  std::size_t dot = full.find('.');
  name = std::string(full.substr(0, dot));
  overload = dot == std::string_view::npos ? std::string() : std::string(full.substr(dot + 1));
  arguments = std::string(func.substr(open + 1, close - open - 1));
  return !name.empty();
}

// True when an argument other than `self` is written to (`Tensor(a!) out`).
bool writes_non_self_argument(std::string_view arguments) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= arguments.size(); ++i) {
    char c = i < arguments.size() ? arguments[i] : ',';
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (c == ',' && depth == 0) {
      std::string_view argument = trim(arguments.substr(start, i - start));
      start = i + 1;
      if (argument.find('!') == std::string_view::npos)
        continue;
      std::size_t space = argument.rfind(' ');
      std::string_view argument_name =
          space == std::string_view::npos ? argument : argument.substr(space + 1);
      std::size_t equals = argument_name.find('=');
      if (equals != std::string_view::npos)
        argument_name = argument_name.substr(0, equals);
      if (argument_name != "self")
        return true;
    }
  }
  return false;
}

struct YamlEntry {
  OperatorCoverage coverage;
  std::set<std::string> dispatch_keys; // every key named in `dispatch:`
  bool has_dispatch = false;
  bool has_ufunc = false;
  bool core_tag = false; // `tags:` names "core"
  std::vector<std::string> autogen;
  std::uint32_t line = 0;
};

} // namespace

CoverageTable derive_table(std::string_view yaml_text, const std::string &version, const std::string &path,
                           const DerivationData &data, std::vector<TableProblem> &problems) {
  CoverageTable table;
  table.version = version;
  table.input_fingerprint = fingerprint(yaml_text);

  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception &error) {
    problems.push_back({path, static_cast<std::uint32_t>(error.mark.line + 1), error.msg});
    return table;
  }
  if (!root.IsSequence()) {
    problems.push_back({path, 1, "expected a list of `- func:` entries"});
    return table;
  }

  std::set<std::string> vendor_only;
  if (auto it = data.vendor_only.find(version); it != data.vendor_only.end())
    vendor_only.insert(it->second.begin(), it->second.end());
  std::set<std::string> forced_cpu;
  if (auto it = data.forced_cpu.find(version); it != data.forced_cpu.end())
    forced_cpu.insert(it->second.begin(), it->second.end());

  std::vector<YamlEntry> entries;
  for (const YAML::Node &node : root) {
    auto line = static_cast<std::uint32_t>(node.Mark().line + 1);
    try {
      if (!node.IsMap() || !node["func"]) {
        problems.push_back({path, line, "entry without `func:`"});
        continue;
      }
      YamlEntry entry;
      entry.line = line;
      std::string arguments;
      if (!parse_func_signature(node["func"].as<std::string>(), entry.coverage.name, entry.coverage.overload,
                                arguments)) {
        problems.push_back({path, line, "cannot parse `func:` signature"});
        continue;
      }
      if (vendor_only.count(entry.coverage.name))
        continue;
      OperatorCoverage &op = entry.coverage;
      op.has_out_argument = writes_non_self_argument(arguments);
      op.in_place = op.name.size() > 1 && op.name.back() == '_' && op.name.compare(0, 2, "__") != 0;
      std::string variants = node["variants"] ? node["variants"].as<std::string>() : "function";
      for (const std::string &variant : split(variants, ',')) {
        std::string_view v = trim(variant);
        op.function_variant |= v == "function";
        op.method_variant |= v == "method";
      }
      if (node["python_module"])
        op.python_module = node["python_module"].as<std::string>();
      op.structured = node["structured"] && node["structured"].as<bool>();
      op.manual_registration =
          node["manual_kernel_registration"] && node["manual_kernel_registration"].as<bool>();
      if (node["structured_delegate"])
        op.delegate = node["structured_delegate"].as<std::string>();
      entry.has_ufunc = static_cast<bool>(node["ufunc_inner_loop"]);
      if (const YAML::Node tags = node["tags"]) {
        std::vector<std::string> names;
        if (tags.IsSequence())
          for (const auto &tag : tags)
            names.push_back(tag.as<std::string>());
        else
          names = split(tags.as<std::string>(), ',');
        for (const std::string &tag : names)
          entry.core_tag |= trim(tag) == "core";
      }
      if (const YAML::Node dispatch = node["dispatch"]) {
        entry.has_dispatch = true;
        for (const auto &pair : dispatch)
          for (const std::string &key : split(pair.first.as<std::string>(), ','))
            entry.dispatch_keys.insert(std::string(trim(key)));
      }
      if (node["autogen"])
        for (const std::string &name : split(node["autogen"].as<std::string>(), ','))
          if (!trim(name).empty())
            entry.autogen.emplace_back(trim(name));
      entries.push_back(std::move(entry));
    } catch (const YAML::Exception &error) {
      problems.push_back({path, line, "malformed entry: " + error.msg});
    }
  }

  // Own kernels first, so that delegates can be resolved against them.
  std::map<std::string, const YamlEntry *> by_full_name;
  for (YamlEntry &entry : entries) {
    OperatorCoverage &op = entry.coverage;
    auto direct = [&](const char *key) {
      return entry.dispatch_keys.count(key) ? KernelSource::Direct : KernelSource::None;
    };
    op.cpu = direct("CPU");
    op.cuda = direct("CUDA");
    op.mps = direct("MPS");
    // torchgen generates CPU and CUDA kernels from a ufunc inner loop, never MPS.
    if (entry.has_ufunc) {
      if (op.cpu == KernelSource::None)
        op.cpu = KernelSource::Ufunc;
      if (op.cuda == KernelSource::None)
        op.cuda = KernelSource::Ufunc;
    }
    if (entry.dispatch_keys.count("CompositeImplicitAutograd"))
      op.composite = Composite::Implicit;
    else if (entry.dispatch_keys.count("CompositeExplicitAutogradNonFunctional"))
      op.composite = Composite::ExplicitNonFunctional;
    else if (entry.dispatch_keys.count("CompositeExplicitAutograd"))
      op.composite = Composite::Explicit;
    else if (!entry.has_dispatch && !op.structured && op.delegate.empty())
      op.composite = Composite::Implicit; // torchgen's default (torchgen/model.py)
    by_full_name[op.full_name()] = &entry;
  }

  for (YamlEntry &entry : entries) {
    OperatorCoverage &op = entry.coverage;
    if (op.delegate.empty())
      continue;
    auto target = by_full_name.find(op.delegate);
    if (target == by_full_name.end()) {
      problems.push_back({path, entry.line, "structured_delegate " + op.delegate + " not found"});
      continue;
    }
    const OperatorCoverage &out = target->second->coverage;
    auto inherit = [](KernelSource own, KernelSource from_delegate) {
      return own == KernelSource::None && from_delegate != KernelSource::None ? KernelSource::Delegate : own;
    };
    op.cpu = inherit(op.cpu, out.cpu);
    op.cuda = inherit(op.cuda, out.cuda);
    op.mps = inherit(op.mps, out.mps);
  }

  std::set<std::string> declared;
  for (const YamlEntry &entry : entries)
    declared.insert(entry.coverage.full_name());
  for (const YamlEntry &entry : entries) {
    table.operators.push_back(entry.coverage);
    // torchgen defines autogen'd variants of a CompositeImplicitAutograd op
    // only for core ATen ops (`tags: core`): the 1.13 and 2.11 dispatchers lack
    // every other such name and have these (docs, "Cross-checks").
    if (entry.coverage.composite == Composite::Implicit && !entry.core_tag)
      continue;
    for (const std::string &generated : entry.autogen) {
      if (declared.count(generated))
        continue;
      OperatorCoverage op;
      std::size_t dot = generated.find('.');
      op.name = generated.substr(0, dot);
      op.overload = dot == std::string::npos ? std::string() : generated.substr(dot + 1);
      op.composite = Composite::Autogen;
      op.delegate = entry.coverage.full_name();
      op.has_out_argument = op.overload.find("out") != std::string::npos;
      op.function_variant = false; // autogen ops have no Python binding of their own
      table.operators.push_back(std::move(op));
    }
  }

  for (OperatorCoverage &op : table.operators) {
    bool dense_kernel = op.cpu != KernelSource::None || op.cuda != KernelSource::None;
    if (forced_cpu.count(op.full_name()))
      op.mps_status = MpsStatus::ForcedCpu;
    else if (op.mps != KernelSource::None)
      op.mps_status = MpsStatus::Native;
    else if (op.composite == Composite::Implicit)
      op.mps_status = MpsStatus::CompositeImplicit;
    else if (op.composite != Composite::None)
      op.mps_status = MpsStatus::CompositeExplicit;
    else if (dense_kernel)
      op.mps_status = MpsStatus::Missing;
    else
      op.mps_status = MpsStatus::NotDense;
  }
  table.rebuild_index();
  return table;
}

} // namespace mpsaudit::probe
