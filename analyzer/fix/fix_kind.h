// The inside of `mpsaudit fix`: text edits, the per-file context a fix kind
// works in, and the registry of fix kinds (one unit per kind in fix/kinds/).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "core/finding.h"
#include "core/source.h"
#include "fix/fix.h"

namespace mpsaudit {

class PythonModule;

// Replace bytes [begin, end) of the original text; begin == end inserts.
struct TextEdit {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string replacement;
};

// Applies non-overlapping edits. Insertions at the same offset keep their
// order; an insertion at the start of a replaced range comes first.
std::string apply_edits(std::string_view text, std::vector<TextEdit> edits);
// Whether two edits touch the same bytes (two insertions at one point do not).
bool edits_overlap(const TextEdit &a, const TextEdit &b);

// What one fix kind proposes for one finding.
struct PlannedFix {
  std::vector<TextEdit> edits;
  FixSafety safety = FixSafety::Safe; // made worse than the definition's class, never better...
  // ...unless the kind has shown that this edit cannot change behaviour on a
  // CUDA or a CPU-only machine, where its class is unsafe in general
  // (torch.load straight into load_state_dict, a disabled autocast):
  // docs/fix.md, "Safety model".
  bool shown_safe = false;
  std::string description; // "`.cuda()` -> `.to(device)`"
  // Module-level additions shared by every fix of a file, written once:
  // `import torch` and the module's device variable (PythonModule).
  bool needs_torch_import = false;
  bool needs_module_device = false;
};

// A plan, or why there is none ("`.cuda(1)` names a device index").
struct FixOutcome {
  std::optional<PlannedFix> plan;
  std::string reason;
  static FixOutcome none(std::string why) { return FixOutcome{std::nullopt, std::move(why)}; }
  static FixOutcome with(PlannedFix fix) { return FixOutcome{std::move(fix), {}}; }
};

// Everything a fix kind may consult about one file.
class FixContext {
public:
  FixContext(std::string path, FileKind kind, std::string text, const FileFacts *facts,
             std::string target_torch, const FixCatalog *catalog = nullptr);
  ~FixContext();
  FixContext(const FixContext &) = delete;
  FixContext &operator=(const FixContext &) = delete;

  const std::string &path() const { return path_; }
  FileKind kind() const { return kind_; }
  const std::string &text() const { return text_; }
  const LineIndex &lines() const { return lines_; }
  // The file's facts from the scan (null when the scan kept none).
  const FileFacts *facts() const { return facts_; }
  const std::string &target_torch() const { return target_torch_; }
  bool target_at_least(std::string_view release) const;
  // Why an edit that relies on a [[release]] feature of rules/fixes.toml
  // ("autocast-mps") cannot be offered at the target release; "" when it can.
  std::string release_gate(std::string_view feature) const;
  // Byte offset of a 1-based line and column (clamped to the text).
  std::size_t offset(std::uint32_t line, std::uint32_t column) const;
  // The parsed Python module (Python files only; parsed on first use).
  PythonModule &python();

private:
  std::string path_;
  FileKind kind_;
  std::string text_;
  LineIndex lines_;
  const FileFacts *facts_;
  std::string target_torch_;
  const FixCatalog *catalog_;
  std::unique_ptr<PythonModule> python_;
};

using FixPlanner = std::function<FixOutcome(FixContext &context, const Finding &finding)>;

struct FixKindEntry {
  std::string name;
  std::vector<FileKind> file_kinds;
  FixPlanner plan;
};

class FixRegistry {
public:
  void add(std::string name, std::vector<FileKind> file_kinds, FixPlanner plan);
  const FixKindEntry *find(std::string_view name) const;
  const std::map<std::string, FixKindEntry, std::less<>> &kinds() const { return kinds_; }

private:
  std::map<std::string, FixKindEntry, std::less<>> kinds_;
};

// Every built-in fix kind (fix/registry.cpp).
const FixRegistry &fix_registry();

// Registration functions, one per unit in fix/kinds/.
void register_device_selection_fix(FixRegistry &registry);
void register_dot_cuda_fix(FixRegistry &registry);
void register_hard_coded_device_fix(FixRegistry &registry);
void register_amp_fixes(FixRegistry &registry);
void register_torch_load_fix(FixRegistry &registry);
void register_cuda_runtime_fixes(FixRegistry &registry);
void register_pin_memory_fix(FixRegistry &registry);
void register_factory_device_fix(FixRegistry &registry);
void register_requirements_fixes(FixRegistry &registry);
void register_numpy_alias_fix(FixRegistry &registry);

} // namespace mpsaudit
