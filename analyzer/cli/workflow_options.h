// The everyday-workflow options of `scan` (and `baseline write`, `fix`): the
// project config, rule selection, changed files, the baseline. Parsed here
// into the session's WorkflowOptions (session/session.h), which applies them.
#pragma once

#include <string>

#include "cli/arguments.h"
#include "session/session.h"

namespace mpsaudit::cli {

// Consumes the current argument when it is a workflow option; `error` is set
// when its value is missing or bad.
bool parse_workflow_option(Arguments &args, WorkflowOptions &workflow, std::string &error);

// `baseline write`: says what was recorded; the exit code of the command.
int report_baseline_written(const WorkflowOptions &workflow, const ScanResult &result);

// Notes on stderr after a scan: partial scan, baseline, suppressions without
// a reason, per-path ignores (the writers may show them too).
void print_workflow_notes(const ScanResult &result);

} // namespace mpsaudit::cli
