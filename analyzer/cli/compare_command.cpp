// `mpsaudit compare RUN_A RUN_B`: a Linux run against a Mac run of the same
// experiment (docs/acceptance.md). Exit codes: 0 the verdict is better than
// --fail-on, 1 it is at or worse than --fail-on (default stopped), 2 usage
// error (a run directory is missing).
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "acceptance/compare.h"
#include "acceptance/run_directory.h"
#include "cli/arguments.h"
#include "cli/cli.h"
#include "cli/output.h"

namespace mpsaudit::cli {

namespace {

void compare_help() {
  std::cout << "Usage: mpsaudit compare RUN_A RUN_B [options]\n\n"
               "Compares two runs of one experiment (RUN_A the Linux reference, RUN_B the Mac run; the\n"
               "environment records decide when one is from macOS). A run is a directory holding env.json\n"
               "(mpsaudit env -o), metric logs (CSV or JSON lines with a step column), checkpoints and a\n"
               "config or seed file. Checks, in order: checkpoints, seeds and config, metrics, fallbacks.\n\n"
               "  --rtol X              relative tolerance for every metric (default 0.05)\n"
               "  --atol X              absolute tolerance for every metric (default 1e-6)\n"
               "  --tolerance GLOB=RTOL[,ATOL]  tolerance for matching metrics (repeatable, first wins)\n"
               "  --every-step          check every common step, not only the last\n"
               "  --ignore-metric GLOB  do not compare matching metrics (repeatable)\n"
               "  --platform-key GLOB   config keys expected to differ by platform (repeatable)\n"
               "  --format text|json    stdout format (default text)\n"
               "  -o, --output FILE     also write the JSON comparison to FILE\n"
               "  --fail-on stopped|dual|never  exit 1 at or below this verdict (default stopped)\n\n"
               "Verdicts: native (every check passed), dual (caveats or missing evidence), stopped (a\n"
               "check failed).\n";
}

bool parse_double(const std::string &text, double &value) {
  char *end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && value >= 0;
}

} // namespace

int command_compare(const Invocation &invocation) {
  std::vector<std::string> runs;
  std::string value, format = "text", output, fail_on = "stopped";
  acceptance::CompareOptions options;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (args.option("--rtol", value)) {
      if (!parse_double(value, options.default_tolerance.rtol))
        return usage_error("--rtol needs a non-negative number");
    } else if (args.option("--atol", value)) {
      if (!parse_double(value, options.default_tolerance.atol))
        return usage_error("--atol needs a non-negative number");
    } else if (args.option("--tolerance", value)) {
      const std::size_t equals = value.find('=');
      acceptance::MetricTolerance entry;
      entry.tolerance = options.default_tolerance;
      if (equals == std::string::npos || equals == 0)
        return usage_error("--tolerance needs GLOB=RTOL[,ATOL], e.g. --tolerance 'val/*=0.02'");
      entry.pattern = value.substr(0, equals);
      const std::string numbers = value.substr(equals + 1);
      const std::size_t comma = numbers.find(',');
      if (!parse_double(numbers.substr(0, comma), entry.tolerance.rtol) ||
          (comma != std::string::npos && !parse_double(numbers.substr(comma + 1), entry.tolerance.atol)))
        return usage_error("--tolerance needs GLOB=RTOL[,ATOL] with non-negative numbers");
      options.metric_tolerances.push_back(entry);
    } else if (args.flag("--every-step")) {
      options.every_step = true;
    } else if (args.option("--ignore-metric", value)) {
      options.ignored_metrics.push_back(value);
    } else if (args.option("--platform-key", value)) {
      options.platform_config_keys.push_back(value);
    } else if (args.option("--format", value)) {
      format = value;
    } else if (args.option("--output", value) || args.option("-o", value)) {
      output = value;
    } else if (args.option("--fail-on", value)) {
      fail_on = value;
    } else if (args.flag("--help") || args.flag("-h")) {
      compare_help();
      return kClean;
    } else if (!args.is_option()) {
      runs.push_back(args.current());
    } else {
      return usage_error("unknown option for compare: " + args.current());
    }
  }
  if (!args.error().empty())
    return usage_error(args.error());
  if (runs.size() != 2)
    return usage_error("compare needs two run directories: mpsaudit compare RUN_A RUN_B");
  if (format != "text" && format != "json")
    return usage_error("--format must be text or json");
  if (fail_on != "stopped" && fail_on != "dual" && fail_on != "never")
    return usage_error("--fail-on must be stopped, dual or never");

  const acceptance::RunDirectory run_a = acceptance::read_run_directory(runs[0]);
  const acceptance::RunDirectory run_b = acceptance::read_run_directory(runs[1]);
  for (const auto *run : {&run_a, &run_b})
    if (!run->exists)
      return usage_error("no run directory " + run->path);
  const acceptance::Comparison comparison = acceptance::compare_runs(run_a, run_b, options);

  if (!emit_json_or_text(acceptance::to_json(comparison), output, format,
                         [&] { return acceptance::comparison_text(comparison); }))
    return kUsage;

  const bool fails = (fail_on == "stopped" && comparison.verdict == acceptance::Verdict::Stopped) ||
                     (fail_on == "dual" && comparison.verdict != acceptance::Verdict::Native);
  return fails ? kFindings : kClean;
}

} // namespace mpsaudit::cli
