// The mps-operator-coverage project pass: looks up each torch call the scan
// sees in the operator-coverage table of the project's target PyTorch
// release (runtime-probe/coverage/, no LibTorch needed) and adds an
// `mps-missing-op` fact where that release has no MPS kernel for it or sends
// it to the CPU (docs/runtime-probe.md, "MPS gaps in the default scan").
#pragma once

#include <string>
#include <vector>

#include "core/fact_kinds.h"
#include "core/project_pass.h"

namespace mpsaudit {

inline constexpr std::string_view kMpsMissingOpFact = fact_kind::MpsMissingOp;

struct OperatorCoverageSettings {
  std::string tables_dir; // <version>.tsv coverage tables
  std::string data_dir;   // python-api-map.tsv and mps-extra-ops.tsv
  // The config's target-torch ("2.0"); empty: the torch pin of the
  // manifests, else the newest table.
  std::string target_torch;
};

// Set before a scan (the CLI does, from the config). Without tables the pass adds nothing.
// The tables stay loaded while the directories stay the same.
void configure_operator_coverage(OperatorCoverageSettings settings);
// Reads the configured tables' releases and the newest table now, which a
// scan without a torch pin looks up: a session calls it on a thread of its
// own while it reads the rules, so that the pass does not wait.
void preload_operator_coverage();
// The source tree's tables and data, no target release: what tests and
// rule examples use.
OperatorCoverageSettings source_tree_operator_coverage();

void find_missing_mps_operators(std::vector<ProjectFile> &files);
FactRetention operator_coverage_retention(const Fact &fact);
// The files operator_coverage_retention's answers come from, each with its
// size and modification time (ProjectPass::retention_inputs); read from the
// directory, so asking does not wait for the tables to load.
std::string operator_coverage_retention_inputs();

} // namespace mpsaudit
