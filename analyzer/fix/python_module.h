// A Python file re-parsed with tree-sitter for fixing: node lookup by a
// finding's span, and the questions several fix kinds ask (which name binds
// torch here, which device variable is in scope, where module-level code
// may be added).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tree_sitter/api.h>

#include "core/fact.h"
#include "fix/fix_kind.h"

namespace mpsaudit {

// A device to use at some point of the code.
struct DeviceRef {
  enum class Type { TorchDevice, String, Unknown };
  std::string name; // the expression, e.g. "device"
  Type type = Type::Unknown;
  bool cuda_first = false; // chosen by a selection that prefers CUDA
  bool introduced = false; // the module device that fix adds
  std::string blocked;     // non-empty: no device can be used here, and why
  // Safe when the device is CUDA wherever CUDA exists.
  FixSafety safety() const { return cuda_first || introduced ? FixSafety::Safe : FixSafety::Unsafe; }
};

class PythonModule {
public:
  PythonModule(std::string_view text, const FileFacts *facts, std::string target_torch);
  ~PythonModule();
  PythonModule(const PythonModule &) = delete;
  PythonModule &operator=(const PythonModule &) = delete;

  bool parsed() const { return tree_ != nullptr; }
  // Whether the text has syntax errors (fixes never make a clean file unclean).
  bool has_error() const;
  TSNode root() const;

  // --- nodes -------------------------------------------------------------
  std::string_view source() const { return text_; }
  std::string_view text(TSNode node) const;
  static std::size_t begin(TSNode node) { return ts_node_start_byte(node); }
  static std::size_t end(TSNode node) { return ts_node_end_byte(node); }
  static bool is(TSNode node, std::string_view type);
  static TSNode field(TSNode node, const char *name);
  static std::vector<TSNode> named_children(TSNode node); // without comments
  // The node whose range is exactly `span`, if any.
  std::optional<TSNode> node_at(const Span &span) const;
  // The call a call fact describes: it ends where the span ends and contains
  // the span's start (fact spans of `a.b(...)` start at `b`).
  std::optional<TSNode> call_at(const Span &span) const;
  // The arguments of a call without comments; nullopt when the call has a
  // generator argument or no argument list.
  std::optional<std::vector<TSNode>> call_arguments(TSNode call) const;
  static bool has_splat(const std::vector<TSNode> &arguments);
  // Appends `argument` ("map_location=\"cpu\"") as the last argument of
  // `call`, keeping a trailing comma and line breaks where they are.
  TextEdit append_argument(TSNode call, const std::string &argument) const;
  // The keyword argument `name` among `arguments`, if present.
  std::optional<TSNode> keyword_argument(const std::vector<TSNode> &arguments, std::string_view name) const;

  // --- literals ------------------------------------------------------------
  bool is_string(TSNode node) const;
  std::string string_value(TSNode node) const;
  // "cuda" or "cuda:N" (f-strings included, as the front end reads them).
  bool is_cuda_literal(TSNode node) const;
  // String nodes under `node` that name a CUDA device.
  std::vector<TSNode> cuda_literals(TSNode node) const;
  // The same literal naming another device, in its quote style: "mps".
  std::string literal_like(TSNode literal, std::string_view value) const;
  // Whether `call` is torch.device(...) (through the torch binding).
  bool is_torch_device_call(TSNode call) const;

  // --- names -----------------------------------------------------------------
  // The name that binds the torch package at module level ("torch", "th"),
  // or "" when the module never imports it (then fix adds `import torch`).
  const std::string &torch_binding() const { return torch_binding_; }
  // The name to write in new code: the binding, or "torch".
  std::string torch() const { return torch_binding_.empty() ? "torch" : torch_binding_; }

  // --- layout ----------------------------------------------------------------
  // The whitespace before the first non-blank character of `offset`'s line.
  std::string line_indent(std::size_t offset) const;
  std::size_t line_start(std::size_t offset) const;
  // One level of indentation as the file writes it ("    " when unsure).
  const std::string &indent_unit() const { return indent_unit_; }
  const std::string &newline() const { return newline_; }
  // Whether `node` is the only code on its lines (a comment may follow).
  bool alone_on_lines(TSNode node) const;

  // --- module prelude -----------------------------------------------------
  // Where module-level additions go: after the leading imports.
  std::size_t prelude_offset() const { return prelude_offset_; }
  // The edit that adds `import torch` and/or the module device.
  TextEdit prelude_edit(bool torch_import, bool module_device) const;
  // The device selection expression for new code: cuda → mps → cpu, or
  // torch.accelerator when the target release has it (2.6+).
  std::string device_selection_expression() const;
  bool use_accelerator() const;

  // --- scope -------------------------------------------------------------
  // The device variable to use at `use`; `introduced` when fix must add the
  // module device, `blocked` when no device can be used safely there.
  DeviceRef device_for(TSNode use) const;
  // `device.type`, or `torch.device(device).type` when the variable may be a string.
  std::string device_type_expression(const DeviceRef &device) const;
  // The innermost enclosing function definition, if any.
  std::optional<TSNode> enclosing_function(TSNode node) const;

  // --- what fix must not change (fix/safety_checks.cpp) -----------------------
  // Why `node` sits on a branch that runs only with CUDA by design, where an
  // edit adds nothing: the body of an `if` that tests for CUDA
  // (`device.type == "cuda"`, `x.is_cuda`, `args.cuda`, `use_tensorrt`), the
  // `else` of `if not ...cuda...`, or a branch that imports a CUDA-only
  // library (`cuda_only_imports`: offsets of such imports). "" when none.
  std::string cuda_only_branch(TSNode node, const std::vector<std::size_t> &cuda_only_imports) const;
  // The device strings ("cpu", "cuda:1", "mps") written in the innermost
  // function around `node` (or at module level outside functions), apart
  // from the arms of a conditional device selection. Two different ones
  // mean the code tells devices apart: a test that compares the CPU with
  // CUDA, a cache keyed by device.
  std::set<std::string> device_strings_in_scope(TSNode node) const;
  static bool is_device_string(std::string_view value);

private:
  struct DeviceChoice {
    bool device_like = false;
    bool cuda_first = false;
    DeviceRef::Type type = DeviceRef::Type::Unknown;
  };
  struct CandidateBinding;
  struct ScopeDevices;
  struct ScopeCache;

  void find_layout();
  void find_torch_binding(const FileFacts *facts);
  DeviceChoice classify_device_choice(TSNode assignment) const;
  const ScopeDevices &scope_devices(TSNode scope) const;
  static bool find_scope_device(const ScopeDevices &scope, bool ordered, std::size_t use_offset,
                                DeviceRef &found);

  std::string_view text_;
  std::string target_torch_;
  TSParser *parser_ = nullptr;
  TSTree *tree_ = nullptr;
  std::string torch_binding_;
  std::string indent_unit_ = "    ";
  std::string newline_ = "\n";
  std::size_t prelude_offset_ = 0;
  bool prelude_after_import_ = false;
  mutable std::unique_ptr<ScopeCache> scope_cache_; // scope_devices(), filled on demand
  // device_strings_in_scope() by the scope's byte range: read once per
  // scope, as a generated file may hold thousands of device strings.
  mutable std::map<std::pair<std::size_t, std::size_t>, std::set<std::string>> device_strings_by_scope_;
};

} // namespace mpsaudit
