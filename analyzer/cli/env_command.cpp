// `mpsaudit env`: the acceptance record of the user's own Python interpreters
// (docs/acceptance.md). Exit codes: 0 every interpreter answered with torch,
// 2 usage error, 3 some interpreter could not be queried or lacks torch.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "acceptance/disagreements.h"
#include "acceptance/env_query_script.h"
#include "acceptance/env_record.h"
#include "cli/arguments.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "core/confined_file.h"

namespace mpsaudit::cli {

namespace {

void env_help() {
  std::cout
      << "Usage: mpsaudit env [--python PATH]... [--kernel NAME]... [--import FILE]... [options]\n\n"
         "Records what each Python interpreter sees: its torch build, MPS built/available, CUDA,\n"
         "the PYTORCH_ENABLE_MPS_FALLBACK and PYTORCH_MPS_* variables, installed packages, and on\n"
         "macOS the OS version, chip and Rosetta. Without --python/--kernel/--import it asks the\n"
         "python3 on PATH. The query imports torch only, never the repository's code.\n\n"
         "  --python PATH         an interpreter (repeatable)\n"
         "  --kernel NAME         a Jupyter kernel: its interpreter and the env its kernel.json sets\n"
         "  --import FILE         a record the query script printed elsewhere (a notebook cell),\n"
         "                        or a whole record written by `mpsaudit env -o`\n"
         "  --print-script        print the query script (run it in a notebook to --import its output)\n"
         "  --probe-report FILE   mpsaudit-probe's JSON report: flag disagreements with its LibTorch\n"
         "  --timeout SECONDS     per interpreter (default 120)\n"
         "  --format text|json    stdout format (default text)\n"
         "  -o, --output FILE     also write the JSON record to FILE (e.g. runs/mac/env.json)\n\n"
         "Exit codes: 0 every interpreter answered with torch, 2 usage error,\n"
         "3 an interpreter could not be queried or cannot import torch.\n";
}

} // namespace

int command_env(const Invocation &invocation) {
  struct Target {
    std::string kind, value; // python | kernel | import
  };
  std::vector<Target> targets;
  std::string value, format = "text", output, probe_path;
  double timeout = 120;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (args.option("--python", value))
      targets.push_back({"python", value});
    else if (args.option("--kernel", value))
      targets.push_back({"kernel", value});
    else if (args.option("--import", value))
      targets.push_back({"import", value});
    else if (args.option("--probe-report", value))
      probe_path = value;
    else if (args.option("--format", value))
      format = value;
    else if (args.option("--output", value) || args.option("-o", value))
      output = value;
    else if (args.option("--timeout", value)) {
      char *end = nullptr;
      timeout = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(timeout > 0))
        return usage_error("--timeout needs a positive number of seconds");
    } else if (args.flag("--print-script")) {
      std::cout << acceptance::env_query_script();
      return kClean;
    } else if (args.flag("--help") || args.flag("-h")) {
      env_help();
      return kClean;
    } else
      return usage_error("unknown option for env: " + args.current());
  }
  if (!args.error().empty())
    return usage_error(args.error());
  if (format != "text" && format != "json")
    return usage_error("--format must be text or json");

  std::optional<nlohmann::json> probe;
  if (!probe_path.empty()) {
    const std::optional<std::string> text = read_whole_file(probe_path);
    if (!text)
      return usage_error("cannot read the probe report " + probe_path);
    nlohmann::json parsed = nlohmann::json::parse(*text, nullptr, false);
    const nlohmann::json *environment =
        parsed.is_discarded() ? nullptr : acceptance::probe_environment_of(parsed);
    if (!environment)
      return usage_error(probe_path + " is not a probe report (no \"environment\" object)");
    probe = *environment;
  }

  acceptance::EnvRecord record;
  record.tool_version = tool_version();
  record.created = acceptance::utc_timestamp();
  record.probe_environment = probe;
  acceptance::QueryOptions options;
  options.timeout_seconds = timeout;
  if (targets.empty()) {
    acceptance::InterpreterRecord interpreter = acceptance::query_interpreter("python3", options);
    interpreter.source = "default";
    record.interpreters.push_back(std::move(interpreter));
  }
  for (const Target &target : targets) {
    if (target.kind == "python") {
      record.interpreters.push_back(acceptance::query_interpreter(target.value, options));
    } else if (target.kind == "kernel") {
      std::string error;
      auto kernel = acceptance::find_kernel(target.value, error);
      acceptance::InterpreterRecord interpreter;
      if (kernel) {
        acceptance::QueryOptions kernel_options = options;
        kernel_options.extra_environment = kernel->environment;
        interpreter = acceptance::query_interpreter(kernel->interpreter, kernel_options);
      } else {
        interpreter.status = "not-found";
        interpreter.error = error;
      }
      interpreter.requested = target.value;
      interpreter.source = "kernel";
      record.interpreters.push_back(std::move(interpreter));
    } else {
      const std::optional<std::string> text = read_whole_file(target.value);
      if (!text) {
        acceptance::InterpreterRecord interpreter;
        interpreter.requested = target.value;
        interpreter.source = "imported";
        interpreter.status = "not-found";
        interpreter.error = "cannot read " + target.value;
        record.interpreters.push_back(std::move(interpreter));
        continue;
      }
      for (auto &interpreter : acceptance::import_env_file(*text, target.value))
        record.interpreters.push_back(std::move(interpreter));
    }
  }
  record.disagreements = acceptance::find_disagreements(record.interpreters, probe ? &*probe : nullptr);

  if (!emit_json_or_text(acceptance::to_json(record), output, format,
                         [&] { return acceptance::env_record_text(record); }))
    return kUsage;

  for (const auto &interpreter : record.interpreters)
    if (interpreter.status != "ok")
      return kScanErrors;
  return kClean;
}

} // namespace mpsaudit::cli
