// The baseline: today's findings, recorded so that a scan reports only new
// ones (`mpsaudit baseline write FILE`, `mpsaudit scan --baseline FILE`).
//
// A finding is keyed on its rule, its path and a hash of its matched code
// with all whitespace removed, never on its line: code that moves within its
// file, or is re-indented, still matches. Each key carries a count, so a
// second copy of a recorded line in the same file is new. A file that was
// renamed or moved keeps its findings known: entries whose file no longer
// exists are matched on rule and code hash alone.
//
// The file is sorted, tab-separated text, one key per line, that diffs well:
//   # mpsaudit baseline v1
//   # rule<TAB>path<TAB>code-hash<TAB>count<TAB>code
//   MPS201<TAB>src/train.py<TAB>5b6f0c2a9e3d4f17<TAB>1<TAB>model = model.cuda()
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/diagnostic.h"
#include "core/finding.h"

namespace mpsaudit {

struct BaselineKey {
  std::string rule;
  std::string path;
  std::string code_hash; // 16 hex digits
  bool operator<(const BaselineKey &other) const {
    return std::tie(rule, path, code_hash) < std::tie(other.rule, other.path, other.code_hash);
  }
};

struct BaselineEntry {
  std::uint32_t count = 0;
  std::string code; // a readable copy of the snippet, for reviewers
};

struct Baseline {
  std::map<BaselineKey, BaselineEntry> entries;
};

// The matched code of a finding with all whitespace removed (its name when it
// has no snippet, e.g. a checkpoint), and its 64-bit FNV-1a hash in hex.
std::string normalized_code(const Finding &finding);
std::string code_hash(const Finding &finding);
BaselineKey baseline_key(const Finding &finding);

// Today's unsuppressed findings.
Baseline make_baseline(const std::vector<Finding> &findings);
void write_baseline(std::ostream &out, const Baseline &baseline);
// Reads a baseline; malformed lines become errors naming the line: a first
// line that is not the v1 header (another format version, or not a
// baseline), a rule that is not shaped like an ID, an empty path, a count
// that is not a positive whole number, a bad hash. With `known_rule`, an
// entry for a rule it does not know is a warning and is left out. A blank
// file is an empty baseline.
Baseline parse_baseline(std::string_view text, const std::string &path, std::vector<Diagnostic> &diagnostics,
                        const std::function<bool(std::string_view rule)> &known_rule = {});

struct BaselineFilter {
  std::uint32_t known = 0;             // findings matched and removed
  std::uint32_t fixed = 0;             // baseline occurrences no longer found
  std::vector<Finding> known_findings; // the removed findings, for the assessment
};

// Removes the findings the baseline knows; suppressed findings are left as
// they are. `file_exists(path)` tells whether a baseline path still exists,
// for the rename rule. Findings are matched in their (deterministic) order.
BaselineFilter filter_by_baseline(std::vector<Finding> &findings, const Baseline &baseline,
                                  const std::function<bool(const std::string &path)> &file_exists);

} // namespace mpsaudit
