// mpsaudit-probe: reads a scan report (`mpsaudit scan --format json`) and
// writes the verdicts JSON described in docs/runtime-probe.md.
//
//   mpsaudit-probe [--target cpu|cuda|mps|meta|auto] [--torch-version X.Y]
//                  [--tables DIR] [--api-map FILE] [--no-live] [-o FILE] REPORT.json
//   mpsaudit-probe --environment        (the environment report alone)
//
// Exit status: 0 verdicts written, 2 bad usage or unreadable report.
#include <fstream>
#include <iostream>

#include "command_line.h"
#include "environment.h"
#include "probe_run.h"

using namespace mpsaudit::probe;

namespace {

int usage() {
  std::cerr << "usage: mpsaudit-probe [--target cpu|cuda|mps|meta|auto] [--torch-version X.Y]\n"
               "                      [--tables DIR] [--api-map FILE] [--no-live] [-o FILE] "
               "REPORT.json\n"
               "       mpsaudit-probe --environment\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  // First, before anything reads it: the probe's own calls never fall back to the CPU.
  reexec_without_fallback(argv);

  ProbeOptions options;
  options.tables_dir = default_tables_dir();
  options.api_map_path = default_api_map_path();
  std::string output_path;
  bool environment_only = false;
  CommandLine line;
  line.flags = {{"--environment", [&] { environment_only = true; }},
                {"--no-live", [&] { options.live = false; }}};
  line.options = {{"--target", &options.target},
                  {"--torch-version", &options.torch_version},
                  {"--tables", &options.tables_dir},
                  {"--api-map", &options.api_map_path},
                  {"-o", &output_path},
                  {"--output", &output_path}};
  line.positional = &options.report_path;
  if (!parse_command_line(argc, argv, line))
    return usage();

  bool cleared = false;
  auto user_variables = user_environment(cleared);
  EnvironmentReport environment = probe_environment(user_variables, cleared);
  nlohmann::json result;
  if (environment_only) {
    result = to_json(environment);
  } else {
    if (options.report_path.empty())
      return usage();
    ProbeOutput output = run_probe(options, environment);
    for (const ProbeDiagnostic &diagnostic : output.diagnostics)
      if (diagnostic.code == "report-unreadable" || diagnostic.code == "report-parse-error") {
        std::cerr << "mpsaudit-probe: " << diagnostic.path << ": " << diagnostic.message << '\n';
        return 2;
      }
    result = to_json(output);
  }
  std::string text = result.dump(2) + "\n";
  if (output_path.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(output_path);
    out << text;
    if (!out) {
      std::cerr << "mpsaudit-probe: cannot write " << output_path << '\n';
      return 2;
    }
  }
  return 0;
}
