#include "python_api.h"

#include <fstream>
#include <sstream>

namespace mpsaudit::probe {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : text) {
    if (c == separator) {
      if (!current.empty())
        parts.push_back(current);
      current.clear();
    } else if (c != ' ') {
      current += c;
    }
  }
  if (!current.empty())
    parts.push_back(current);
  return parts;
}

// Any overload of `name` satisfying `accept`.
template <typename Accept>
bool has_overload(const CoverageTable &table, std::string_view name, Accept accept) {
  for (const OperatorCoverage *op : table.overloads(name))
    if (accept(*op))
      return true;
  return false;
}

} // namespace

PythonApiMap PythonApiMap::load(const std::string &path, std::vector<TableProblem> &problems) {
  PythonApiMap map;
  std::ifstream in(path);
  if (!in) {
    problems.push_back({path, 0, "cannot read the Python API map"});
    return map;
  }
  std::string line;
  std::uint32_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line.front() == '#')
      continue;
    std::size_t first_tab = line.find('\t');
    std::size_t second_tab =
        first_tab == std::string::npos ? std::string::npos : line.find('\t', first_tab + 1);
    if (second_tab == std::string::npos) {
      problems.push_back({path, line_number, "expected python_name, aten_operators and source"});
      continue;
    }
    Entry entry;
    entry.aten_names = split_list(line.substr(first_tab + 1, second_tab - first_tab - 1), ',');
    entry.source = line.substr(second_tab + 1);
    std::string python_name = line.substr(0, first_tab);
    if (python_name.empty() || entry.aten_names.empty() || entry.source.empty()) {
      problems.push_back({path, line_number, "empty field"});
      continue;
    }
    if (!map.entries_.emplace(python_name, std::move(entry)).second)
      problems.push_back({path, line_number, "duplicate entry for " + python_name});
  }
  return map;
}

ApiResolution PythonApiMap::resolve(std::string_view python_name, const CoverageTable &table) const {
  ApiResolution result;
  result.python_name = std::string(python_name);
  if (auto it = entries_.find(python_name); it != entries_.end()) {
    result.how = "checked-map";
    result.source = it->second.source;
    for (const std::string &name : it->second.aten_names)
      (table.has_name(name) ? result.aten_names : result.absent).push_back(name);
    return result;
  }

  auto derived = [&](std::string aten_name, const char *how, const char *source) {
    result.aten_names.push_back(std::move(aten_name));
    result.how = how;
    result.source = source;
    return result;
  };
  struct Submodule {
    std::string_view python_prefix;
    std::string_view aten_prefix;
    std::string_view python_module;
    const char *how;
  };
  static const Submodule submodules[] = {
      {"torch.linalg.", "linalg_", "linalg", "derived:linalg"},
      {"torch.fft.", "fft_", "fft", "derived:fft"},
      {"torch.special.", "special_", "special", "derived:special"},
  };
  for (const Submodule &submodule : submodules) {
    if (!starts_with(python_name, submodule.python_prefix))
      continue;
    std::string aten_name =
        std::string(submodule.aten_prefix) + std::string(python_name.substr(submodule.python_prefix.size()));
    if (has_overload(table, aten_name,
                     [&](const OperatorCoverage &op) { return op.python_module == submodule.python_module; }))
      return derived(aten_name, submodule.how, "yaml: python_module matches the namespace");
  }

  constexpr std::string_view functional = "torch.nn.functional.";
  if (starts_with(python_name, functional)) {
    std::string aten_name(python_name.substr(functional.size()));
    if (has_overload(table, aten_name, [](const OperatorCoverage &op) { return op.python_module == "nn"; }))
      return derived(aten_name, "derived:nn", "yaml: python_module: nn (torch._C._nn)");
    if (has_overload(table, aten_name, [](const OperatorCoverage &op) {
          return op.function_variant && op.python_module.empty();
        }))
      return derived(aten_name, "derived:function",
                     "yaml: same-named torch function that the functional wrapper calls");
  }

  for (std::string_view method_prefix : {std::string_view("torch.Tensor."), std::string_view("Tensor.")}) {
    if (!starts_with(python_name, method_prefix))
      continue;
    std::string aten_name(python_name.substr(method_prefix.size()));
    if (has_overload(table, aten_name, [](const OperatorCoverage &op) { return op.method_variant; }))
      return derived(aten_name, "derived:method", "yaml: variants includes method");
  }

  constexpr std::string_view torch_prefix = "torch.";
  if (starts_with(python_name, torch_prefix)) {
    std::string_view rest = python_name.substr(torch_prefix.size());
    if (rest.find('.') == std::string_view::npos) {
      std::string aten_name(rest);
      if (has_overload(table, aten_name, [](const OperatorCoverage &op) {
            return op.function_variant && op.python_module.empty();
          }))
        return derived(aten_name, "derived:function", "yaml: variants includes function");
    }
  }
  result.how = "unmapped";
  result.source = "not an ATen operator of this release (or not reachable by name)";
  return result;
}

} // namespace mpsaudit::probe
