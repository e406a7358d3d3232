// One run of an experiment as `mpsaudit compare` reads it: a directory with
// the environment record, the user's metric logs, checkpoints, config/seed
// files and logs. Files are recognised by content and extension, not by fixed
// names (docs/acceptance.md, "What a run directory holds").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "acceptance/env_record.h"
#include "core/diagnostic.h"
#include "frontend/checkpoint/checkpoint_reader.h"

namespace mpsaudit::acceptance {

struct RunCheckpoint {
  std::string path; // relative to the run directory
  checkpoint::CheckpointSummary summary;
};

// One metric's values by step, merged over the run's metric logs.
using MetricSeries = std::map<double, double>;

// A line of a log that records a CPU fallback, or an operator MPS lacks.
struct FallbackEvidence {
  std::string path; // relative to the run directory
  std::uint32_t line = 0;
  // fallback-warning: the op ran on the CPU (PYTORCH_ENABLE_MPS_FALLBACK=1)
  // not-implemented: the op raised NotImplementedError on MPS (the run stopped)
  std::string kind;
  std::string op; // "aten::isin.Tensor_Tensor_out", or "" when the line names none
  std::string text;
};

struct RunDirectory {
  std::string path;
  bool exists = false;
  std::optional<EnvRecord> env;
  std::string env_path;
  std::vector<RunCheckpoint> checkpoints;
  std::map<std::string, MetricSeries> metrics;
  std::vector<std::string> metric_files;
  std::map<std::string, std::string> metric_sources; // metric name -> the file it came from
  std::string step_column;                   // the step key the logs use: step, global_step, iteration, ...
  std::map<std::string, std::string> config; // flattened "a.b.c" -> value as text
  std::vector<std::string> config_files;
  std::vector<FallbackEvidence> fallbacks;
  std::vector<std::string> log_files;
  std::vector<Diagnostic> diagnostics;

  // The environment record's first interpreter that answered, if any.
  const InterpreterRecord *interpreter() const;
  bool on_macos() const;
};

// Reads `path` (recursively, hidden directories skipped). Never throws: an
// unreadable file becomes a diagnostic naming it.
RunDirectory read_run_directory(const std::string &path);

// Parsers, exposed for tests. `name` is the file's name for diagnostics.
// CSV (comma, tab or semicolon separated) with a header that has a step
// column; JSON lines with a step key per object.
bool parse_metrics_csv(const std::string &text, const std::string &name, RunDirectory &run);
bool parse_metrics_jsonl(const std::string &text, const std::string &name, RunDirectory &run);
// Lines of a log that record CPU fallbacks or operators missing on MPS.
std::vector<FallbackEvidence> scan_log_for_fallbacks(const std::string &text, const std::string &name);
// Flattens a JSON or YAML config into "a.b.c" -> value text; a plain-text
// seed file ("1234") becomes {"seed": "1234"}.
void flatten_config(const std::string &text, const std::string &name, RunDirectory &run);

} // namespace mpsaudit::acceptance
