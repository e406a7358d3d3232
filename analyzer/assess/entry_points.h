// Entry points: what a user of the repository runs. `if __name__ ==
// "__main__"` scripts, declared commands ([project.scripts], console_scripts),
// hubconf.py, notebooks, scripts that shell scripts, Makefiles and
// Dockerfiles launch (`python x.py`, `python -m pkg.mod`, `torchrun x.py`),
// command-line scripts nobody imports; and for a library with none of
// these, its top-level packages. Each gets a purpose, and where the purpose
// came from. A pure function of the scan's facts (docs/decision.md,
// "Entry points").
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assess/effort.h"
#include "assess/reachability.h"
#include "core/project_pass.h"

namespace mpsaudit {

enum class EntryPurpose : std::uint8_t {
  Training,
  Inference,
  Evaluation,
  Export,
  Benchmark,
  DataPrep,
  Tooling,
  Library,
  Test,
};
std::string_view to_string(EntryPurpose purpose); // "training", ..., "data-prep", "test"
std::optional<EntryPurpose> entry_purpose_from_string(std::string_view text);

struct AssessPolicy; // assess/assess_policy.h: the purpose words and training flags

// Where an entry sits: only main entries decide the repository's verdict.
enum class EntryScope : std::uint8_t {
  Main,
  Test,       // under tests/, test_*.py
  Example,    // under docs/, examples/, notebooks/
  Container,  // launched only by a Dockerfile (Linux deployment)
  SubProject, // inside a directory with its own setup.py/pyproject.toml
};
std::string_view to_string(EntryScope scope); // "main", "test", "example", "container", "sub-project"

struct EntryPoint {
  std::string path;
  EntryPurpose purpose = EntryPurpose::Tooling;
  std::string purpose_source; // "name: train_net.py", "content: calls backward() ..."
  EntryScope scope = EntryScope::Main;
  std::vector<std::string> found_by; // "__main__ guard", "console script `d2-train`", "run.sh:3"
};

struct PurposeGuess {
  EntryPurpose purpose = EntryPurpose::Tooling;
  std::string source;
};
// A script's purpose from its name (file, then directories), its argparse
// description, its content (backward()/optimizer steps: training; no_grad/
// eval() without steps: inference) and its flags, in that order.
PurposeGuess guess_purpose(const ProjectFile &file, const AssessPolicy &policy);

std::vector<EntryPoint> discover_entry_points(const std::vector<ProjectFile> &files, const ModuleIndex &index,
                                              const std::vector<std::vector<std::uint32_t>> &graph,
                                              const AssessPolicy &policy);
// The same, with the module index and import graph built here.
std::vector<EntryPoint> discover_entry_points(const std::vector<ProjectFile> &files,
                                              const AssessPolicy &policy);

// The scripts a port runs and accepts on the Mac: the main entries whose
// purpose puts them on the device (training, inference, evaluation, export,
// benchmark; not data preparation, tools or a library's packages), by
// purpose, then the shallower path. The effort's acceptance runs and its
// goal ("run train.py and sample.py on MPS") come from them.
std::vector<std::string> scripts_to_accept(const std::vector<EntryPoint> &entries);

// What one entry point needs to run on a Mac.
struct EntryBlocker {
  std::string rule_id;
  std::string name; // the first finding's name
  std::string path;
  std::uint32_t line = 0;
  int count = 0; // findings of this rule in the entry's closure
};

// Whether an entry point runs on a Mac (docs/decision.md, "Entry points").
enum class MacStatus : std::uint8_t {
  RunsAsIs,
  RunsAfterFixes,   // open findings in the files it runs, none of them a blocker
  NeedsCuda,        // a blocker in the files it runs
  OptionalCudaPath, // CUDA only behind an option the Mac need not choose
  NotTraced,        // beyond the traced entries: nothing known of its closure
};
// Each status as JSON and HTML's data-mac write it, in the order above (the
// JSON schema's list), and as the tables print it.
inline constexpr std::string_view kMacStatusNames[] = {"runs-as-is", "runs-after-fixes", "needs-cuda",
                                                       "optional-cuda-path", "not-traced"};
inline constexpr std::string_view kMacStatusTableTexts[] = {"runs as is", "runs after fixes", "needs CUDA",
                                                            "optional CUDA path", "not traced"};
static_assert(std::size(kMacStatusNames) == static_cast<std::size_t>(MacStatus::NotTraced) + 1);
static_assert(std::size(kMacStatusTableTexts) == std::size(kMacStatusNames));
inline std::string_view to_string(MacStatus status) {
  return kMacStatusNames[static_cast<std::size_t>(status)];
}
inline std::string_view table_text(MacStatus status) {
  return kMacStatusTableTexts[static_cast<std::size_t>(status)];
}
// Runs as is, after fixes, or with its CUDA path left off.
bool runs_on_a_mac(MacStatus status);

struct EntryAssessment {
  EntryPoint entry;
  MacStatus mac = MacStatus::RunsAsIs;
  std::vector<EntryBlocker> blockers; // top three, grouped by rule, most findings first
  HourRange hours;                    // the fixes in the files it runs
  int files = 0;                      // files it runs
  int open_findings = 0;
  bool traced = true; // false beyond kMaxTracedEntries: nothing known of its closure
};

// The hours of the fixes in each file (by ProjectFile index): each effort
// item's share in it. An entry's hours are the sum over the files it runs.
// Kept in one function so that the effort model can change under it.
std::vector<HourRange> file_hours(const EffortEstimate &effort, const std::vector<ProjectFile> &files);

} // namespace mpsaudit
