// `mpsaudit fix [PATH...]`: the mechanical part of a port, done for you.
// Scans, plans the fixes of rules/fixes.toml, and prints a unified diff, or
// writes the files with --apply (docs/fix.md).
#include <algorithm>
#include <iostream>
#include <sstream>

#include "cli/arguments.h"
#include "cli/cli.h"
#include "cli/workflow_options.h"
#include "core/text.h"
#include "fix/fix.h"
#include "scan/scan.h"
#include "session/session.h"

namespace mpsaudit::cli {
namespace {

void print_fix_help() {
  std::cout << "Usage: mpsaudit fix [options] [PATH...]\n\n"
               "Rewrites the mechanical part of a port: device selection, .cuda(), torch.cuda.amp,\n"
               "torch.load, torch.cuda runtime calls, pin_memory, factories in forward(), CUDA pins\n"
               "and wheel indexes in requirements files. Prints a unified diff; --apply writes it.\n\n"
               "Options:\n"
               "  --apply                write the changes instead of printing a diff\n"
               "  --unsafe               also apply fixes that may change behaviour on CUDA or CPU-only\n"
               "                         machines\n"
               "  --rule ID[,ID...]      only fix findings of these rules (repeatable)\n"
               "  --target-torch X.Y     PyTorch release the fixed code must run on (default: the\n"
               "                         config's target-torch, else the manifests' torch pin,\n"
               "                         else "
            << kDefaultFixTargetTorch
            << ")\n"
               "  --include-tests        also edit test files (left alone by default: a test says\n"
               "                         what the code must do)\n"
               "  --show-skipped         list findings with a fix that was not applied, and why\n"
               "  --config FILE, --no-config, --select, --ignore, --changed-since REV, --staged\n"
               "                         as for scan\n"
               "  --rules-dir DIR, --no-git, -j N\n\n"
               "Exit codes: 0 nothing to change or changes written, 1 a diff was printed,\n"
               "2 usage error, 3 a file could not be read or written.\n";
}

// `--rule ID`: every ID names a rule (else a usage error); one without an
// automatic fix gets a note.
bool rules_have_fixes(const std::set<std::string> &rules, const RuleCatalog &catalog,
                      const FixCatalog &fixes) {
  for (const auto &id : rules)
    if (!catalog.find(id)) {
      usage_error("no rule " + id + " (see `mpsaudit rules`)");
      return false;
    }
  for (const auto &id : rules) {
    const bool has_fix =
        std::any_of(fixes.definitions().begin(), fixes.definitions().end(),
                    [&](const FixDefinition &definition) { return definition.rule_id == id; });
    if (!has_fix)
      std::cerr << "mpsaudit: note: " << terminal_safe(id) << " has no automatic fix\n";
  }
  return true;
}

} // namespace

int command_fix(const Invocation &invocation) {
  ScanOptions options;
  options.paths.clear();
  FixOptions fix_options;
  std::string rules_dir, value, workflow_error;
  bool apply = false, show_skipped = false;
  WorkflowOptions workflow;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (!args.is_option()) {
      options.paths.push_back(args.current());
    } else if (args.flag("--help") || args.flag("-h")) {
      print_fix_help();
      return kClean;
    } else if (args.flag("--apply")) {
      apply = true;
    } else if (args.flag("--unsafe")) {
      fix_options.include_unsafe = true;
    } else if (args.flag("--show-skipped")) {
      show_skipped = true;
    } else if (args.flag("--include-tests")) {
      fix_options.include_tests = true;
    } else if (args.option("--rule", value)) {
      std::stringstream list(value);
      std::string id;
      while (std::getline(list, id, ','))
        if (!trim(id).empty()) {
          std::string upper(trim(id));
          for (char &c : upper)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
          fix_options.rules.insert(upper);
        }
    } else if (args.option("--target-torch", value)) {
      if (value.empty() || !std::isdigit(static_cast<unsigned char>(value.front())))
        return usage_error("--target-torch takes a release such as 2.4 or 2.6");
      fix_options.target_torch = value;
    } else if (args.option("--rules-dir", value)) {
      rules_dir = value;
    } else if (args.option("--jobs", value) || args.option("-j", value)) {
      options.jobs = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    } else if (args.flag("--no-git")) {
      options.use_git = false;
    } else if (args.flag("--baseline") || starts_with(args.current(), "--baseline") ||
               starts_with(args.current(), "--write-baseline")) {
      return usage_error("fix fixes every finding; baselines do not apply");
    } else if (parse_workflow_option(args, workflow, workflow_error)) {
      if (!workflow_error.empty())
        return usage_error(workflow_error);
    } else {
      return usage_error("unknown option for fix: " + args.current());
    }
    if (!args.error().empty())
      return usage_error(args.error());
  }
  if (options.paths.empty())
    options.paths.push_back(".");

  SessionRequest request;
  request.goal = SessionGoal::Fix;
  request.executable = invocation.executable;
  request.tool_version = tool_version();
  request.rules_dir = rules_directory(invocation, rules_dir);
  request.bundled_rules = rules_dir.empty();
  request.scan = std::move(options);
  request.workflow = std::move(workflow);
  request.fail_on = "never";
  request.fixes_required = true;
  request.check_catalogs = [&fix_options](const RuleCatalog &catalog, const FixCatalog &fixes) {
    return rules_have_fixes(fix_options.rules, catalog, fixes);
  };
  Session session;
  if (run_session(std::move(request), session) != SessionStatus::Ok)
    return kUsage;
  const ScanResult &result = session.result;
  if (fix_options.target_torch.empty())
    fix_options.target_torch = session.workflow.config.target_torch.value;
  if (fix_options.target_torch.empty())
    fix_options.target_torch = manifest_torch_release(result);
  fix_options.test_files = session.test_files;
  FixRun run = plan_fixes(result, session.fixes, fix_options, session.options.paths);
  const std::string target =
      fix_options.target_torch.empty() ? std::string(kDefaultFixTargetTorch) : fix_options.target_torch;
  bool failed = false;
  if (apply) {
    failed = !write_fixes(run, run.diagnostics);
  } else {
    // The diff is shown, so the tree's bytes are escaped (core/text.h); only
    // --apply writes them, unchanged, to the files.
    for (const auto &file : run.files)
      std::cout << terminal_safe(unified_diff(file.path, file.original, file.fixed),
                                 KeepLayout::TabAndNewline);
  }
  for (const auto &diagnostic : run.diagnostics) {
    std::cerr << terminal_safe(diagnostic.path)
              << (diagnostic.line ? ":" + std::to_string(diagnostic.line) : std::string()) << ": "
              << to_string(diagnostic.level) << ": " << terminal_safe(diagnostic.message) << "\n";
    failed = failed || diagnostic.level == DiagnosticLevel::Error;
  }
  if (show_skipped)
    for (const auto &skip : run.skipped)
      std::cerr << terminal_safe(skip.finding.path) << ":" << skip.finding.span.line << ":"
                << skip.finding.span.column << ": " << terminal_safe(skip.finding.rule_id)
                << " not fixed: " << terminal_safe(skip.reason) << "\n";

  std::size_t safe = 0, unsafe = 0;
  for (const auto &file : run.files)
    for (const auto &fix : file.fixes)
      (fix.safety == FixSafety::Safe ? safe : unsafe)++;
  // After write_fixes, run.files holds only the files really written.
  std::cerr << (apply ? "Fixed " : "Would fix ") << counted(run.applied_count(), "finding") << " in "
            << counted(run.files.size(), "file") << " (" << safe << " safe, " << unsafe
            << " unsafe; target PyTorch " << target << ")";
  if (run.files_not_written)
    std::cerr << "; " << counted(run.files_not_written, "file") << " not written (see above)";
  if (run.unsafe_withheld_count())
    std::cerr << "; " << run.unsafe_withheld_count() << " more with --unsafe";
  const std::size_t other_skipped = run.skipped.size() - run.unsafe_withheld_count();
  if (other_skipped)
    std::cerr << "; " << other_skipped << " left as written" << (show_skipped ? "" : " (--show-skipped)");
  std::cerr << ".\n";
  if (failed || result.has_errors())
    return kScanErrors;
  if (!apply && !run.files.empty())
    return kFindings;
  return kClean;
}

} // namespace mpsaudit::cli
