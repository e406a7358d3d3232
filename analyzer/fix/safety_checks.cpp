// What fix must not change (docs/fix.md, "Safety model"): code on a branch
// that only runs with CUDA by design, and code that tells devices apart.
#include <algorithm>
#include <cctype>
#include <regex>

#include "core/text.h"
#include "fix/python_module.h"

namespace mpsaudit {
namespace {

// Whether an identifier-like word `word` occurs in `text` on its own
// (`trt`, not `start`).
bool has_word(const std::string &text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const auto part_of_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    const bool starts = at == 0 || !part_of_name(text[at - 1]);
    const bool ends = at + word.size() >= text.size() || !part_of_name(text[at + word.size()]);
    if (starts && ends)
      return true;
  }
  return false;
}

// A condition that asks for CUDA or a CUDA-only engine: `torch.cuda.is_available()`,
// `device.type == "cuda"`, `x.is_cuda`, `args.cuda`, `use_tensorrt`, `trt`.
bool tests_for_cuda(std::string_view condition) {
  const std::string text = to_lower(condition);
  return text.find("cuda") != std::string::npos || text.find("tensorrt") != std::string::npos ||
         has_word(text, "trt") || text.find("_trt") != std::string::npos ||
         text.find("trt_") != std::string::npos;
}

// Whether a condition may be true without CUDA: it negates or compares
// with `!=`, or joins tests with `or`.
bool may_hold_without_cuda(std::string_view condition) {
  const std::string text = to_lower(condition);
  return has_word(text, "not") || has_word(text, "or") || text.find("!=") != std::string::npos;
}

bool is_negated_cuda_test(std::string_view condition) {
  const std::string text = to_lower(condition);
  return starts_with(text, "not ") && tests_for_cuda(text) && !has_word(text, "or") &&
         !has_word(text.substr(4), "not") && text.find("!=") == std::string::npos;
}

bool contains_any(TSNode block, const std::vector<std::size_t> &offsets) {
  return std::any_of(offsets.begin(), offsets.end(), [&](std::size_t offset) {
    return offset >= PythonModule::begin(block) && offset < PythonModule::end(block);
  });
}

} // namespace

std::string PythonModule::cuda_only_branch(TSNode node,
                                           const std::vector<std::size_t> &cuda_only_imports) const {
  TSNode child = node;
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent);
       child = parent, parent = ts_node_parent(parent)) {
    const bool branch_body = is(child, "block") && (is(parent, "if_statement") || is(parent, "elif_clause") ||
                                                    is(parent, "else_clause"));
    if (!branch_body)
      continue;
    if (contains_any(child, cuda_only_imports))
      return "on a branch that imports a CUDA-only library";
    if (is(parent, "else_clause")) {
      const TSNode owner = ts_node_parent(parent);
      const std::string_view condition = is(owner, "if_statement") ? text(field(owner, "condition")) : "";
      if (is_negated_cuda_test(condition))
        return "in the `else` of `if " + std::string(condition) + ":`, a CUDA-only branch";
      continue;
    }
    const std::string_view condition = text(field(parent, "condition"));
    if (tests_for_cuda(condition) && !may_hold_without_cuda(condition))
      return "inside `if " + std::string(condition) + ":`, a CUDA-only branch";
  }
  return {};
}

bool PythonModule::is_device_string(std::string_view value) {
  static const std::regex device(R"((cpu|cuda|mps|meta|xpu|xla|hpu|npu|ipu|privateuseone)(:[0-9]+)?)");
  return value.size() < 32 && std::regex_match(value.begin(), value.end(), device);
}

std::set<std::string> PythonModule::device_strings_in_scope(TSNode node) const {
  const auto function = enclosing_function(node);
  const TSNode scope = function ? *function : root();
  const auto key = std::make_pair(begin(scope), end(scope));
  const auto cached = device_strings_by_scope_.find(key);
  if (cached != device_strings_by_scope_.end())
    return cached->second;
  std::set<std::string> &found = device_strings_by_scope_[key];
  std::vector<TSNode> pending{scope};
  while (!pending.empty()) {
    const TSNode current = pending.back();
    pending.pop_back();
    if (ts_node_is_null(current))
      continue;
    const bool nested_scope = !ts_node_eq(current, scope) &&
                              (is(current, "function_definition") || is(current, "class_definition") ||
                               is(current, "decorated_definition"));
    // A selection (`"cuda" if torch.cuda.is_available() else "cpu"`) names
    // one device, whichever arm is taken; it compares nothing.
    if (nested_scope || is(current, "conditional_expression"))
      continue;
    if (is_string(current)) {
      if (std::string value = string_value(current); is_device_string(value))
        found.insert(std::move(value));
      continue;
    }
    for (uint32_t i = ts_node_named_child_count(current); i > 0; --i)
      pending.push_back(ts_node_named_child(current, i - 1));
  }
  return found;
}

} // namespace mpsaudit
