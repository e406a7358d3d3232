// A finding: one rule matched one fact, located and explained.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/source.h"

namespace mpsaudit {

struct Rule;

struct Finding {
  const Rule *rule = nullptr; // owned by the RuleCatalog of the scan
  std::string rule_id;
  std::string path;
  FileKind file_kind = FileKind::Unknown;
  Span span;
  int cell = -1;               // notebook code cell, or -1
  std::uint32_t cell_line = 0; // 1-based line inside the cell
  std::string name;            // the fact's name, e.g. torch.cuda.synchronize
  std::string message;
  std::string snippet; // the source line, trimmed of its terminator
  int severity = 0;    // Severity, after guard downgrades
  Guard guard = Guard::None;
  std::string scope;
  bool in_forward = false;
  // Inline suppression state (`# mpsaudit: ignore[ID] reason`).
  bool suppressed = false;
  std::string suppression_reason;
};

// Deterministic order: path, line, column, rule ID, name.
bool finding_less(const Finding &a, const Finding &b);

} // namespace mpsaudit
