// A finding: one rule matched one fact, located and explained.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/interned_string.h"
#include "core/source.h"

namespace mpsaudit {

struct Rule;

// The texts that repeat across findings (a file's path, a rule's message for
// one API) are interned, and the small members come last, packed: a large
// tree holds hundreds of thousands of findings.
struct Finding {
  const Rule *rule = nullptr; // owned by the RuleCatalog of the scan
  InternedString rule_id;
  InternedString path;
  InternedString name; // the fact's name, e.g. torch.cuda.synchronize
  InternedString message;
  InternedString scope;
  // The source line, trimmed of its terminator: interned, since the findings
  // of one line, and lines repeated across files, share it.
  InternedString snippet;
  // Inline suppression state (`# mpsaudit: ignore[ID] reason`).
  InternedString suppression_reason;
  Span span;
  int cell = -1;               // notebook code cell, or -1
  std::uint32_t cell_line = 0; // 1-based line inside the cell
  int severity = 0;            // Severity, after guard downgrades
  FileKind file_kind = FileKind::Unknown;
  Guard guard = Guard::None;
  bool in_forward = false;
  bool suppressed = false;
};

// Deterministic order: path, line, column, rule ID, name.
bool finding_less(const Finding &a, const Finding &b);

} // namespace mpsaudit
