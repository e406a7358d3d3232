// The decision's factors grouped by cause, so that a report can say "CUDA
// kernels and CUDA C++ code: 399 findings in 57 files" instead of listing
// 399 lines. Every report writer shows these groups; the full list stays in
// Decision::deciding and the JSON report.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "assess/decision.h"
#include "scan/scan.h"

namespace mpsaudit {

// Groups `factors` (ordered strongest first, as Decision::deciding is) by
// kind and cause: every CUDA C++/kernel rule is one cause, a CUDA-only
// library rule is one cause per top-level package it names, any other rule
// is its own cause, and a factor without a finding is a cause of its own
// kind. The strongest group comes first (by its strongest member,
// reason_strength), larger groups first among equals.
std::vector<ReasonGroup> group_by_cause(const std::vector<DecisionFactor> &factors, const ScanResult &scan);

// The package a cause names ("package:<this>"): "flash-attn>=2" and
// "flash_attn.ops.x" are both flash_attn. A reader of the JSON report that
// matches a cause to its effort items spells the item's package the same way.
std::string top_level_package(std::string_view name);

// How many groups a report shows before "N more causes".
inline constexpr std::size_t kShownReasonGroups = 7;

} // namespace mpsaudit
