// Per-entry judgement: what each entry point needs to run on a Mac, from the
// findings in the files it runs (assess/reachability.h). A pure function of
// the scan, the entries, their closures, the effort estimate and the
// decision's thresholds (docs/decision.md, "Entry points").
#pragma once

#include <vector>

#include "assess/decision.h"
#include "assess/entry_points.h"
#include "assess/reachability.h"

namespace mpsaudit {

// runs-as-is       no open finding in the files it runs;
// runs-after-fixes open findings, none of them a blocker;
// needs-cuda       a blocker (is_blocker) or training-at-scale machinery
//                  (the decision's training-scale rules, unguarded) in the files it runs;
// optional-cuda-path no open finding, but CUDA-only code behind an option,
//                  a CUDA check or an import fallback that the Mac skips.
std::vector<EntryAssessment> judge_entry_points(const ScanResult &scan,
                                                const std::vector<EntryPoint> &entries,
                                                const Reachability &reach, const EffortEstimate &effort,
                                                const DecisionThresholds &thresholds);

} // namespace mpsaudit
