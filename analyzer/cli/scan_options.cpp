#include "cli/scan_options.h"

#include "portfolio/portfolio_writers.h"
#include "report/report_writers.h"

namespace mpsaudit::cli {

std::vector<OptionHelp> scan_options_help() {
  return {
      {"--format FORMAT",
       report_format_names("|") + " (default text; summary: 8 lines; github: Actions annotations)",
       "output format for standard output: " + report_format_names(", ") +
           " (default `text`; `summary`: at most 8 lines, the decision, effort, counts and top 3 blockers; "
           "`github`: Actions annotations)"},
      {"-o, --output FILE",
       "write a report to FILE (repeatable; format from " + report_extension_list() + ")",
       "write a report to FILE; repeatable; the format follows the extension (" + report_extension_list() +
           "; `--format` otherwise)"},
      {"--verdicts FILE", "merge mpsaudit-probe's verdicts into the assessment",
       "merge the verdicts JSON of `mpsaudit-probe` into the assessment (docs/runtime-probe.md)"},
      {"--probe", "run mpsaudit-probe on this scan and merge its verdicts",
       "run `mpsaudit-probe` on this scan and merge its verdicts; not with `--verdicts`"},
      {"--env FILE", "include a record from `mpsaudit env` and its disagreements",
       "include an interpreter record written by `mpsaudit env` in the report, with what it and the probe "
       "disagree on (docs/acceptance.md); repeatable"},
      {"--probe-target DEVICE", "the probe's live target: auto (default), mps, cuda, cpu",
       "the probe's live target: `auto` (the default), `mps`, `cuda` or `cpu`; implies `--probe`"},
      {"-j, --jobs N", "worker threads (default: number of cores)",
       "worker threads (default: the number of cores)"},
      {"--max-file-size BYTES", "skip larger files with a diagnostic (default 10485760)",
       "larger text files are skipped with a diagnostic (default 10 MiB); also the limit on a requirements "
       "include, on the whole include graph of one requirements file, and on a file a config from the tree "
       "names"},
      {"--max-parse-time MS", "give up parsing one file after MS milliseconds (default 10000)",
       "a Python, notebook, C, C++ or CUDA file whose parse takes longer gets a `parse-timeout` error "
       "diagnostic (default 10000; 0: no limit); a C/C++/CUDA file keeps the raw lexer's facts"},
      {"--max-parse-memory MIB", "cap one C/C++/CUDA file's clang parse at MIB MiB (default 1024)",
       "the most memory one C, C++ or CUDA file's clang parse may add, in MiB (default 1024; 0: no limit); "
       "past it the file gets a `parse-limit` error diagnostic and keeps the raw lexer's facts"},
      {"--fail-on LEVEL", "exit 1 on findings at or above error|warning|info, or never",
       "the lowest severity that makes the exit code 1: `error`, `warning` (the default), `info` or `never`"},
      {"--no-git", "walk the tree even inside a git work tree", ""},
      {"--profile", "print the time per phase and per front end on standard error",
       "print where the time went on standard error: wall seconds per phase (rules and config, discovery, "
       "extraction with the first rules, each project pass, late rules, merge, assessment, each report) and, "
       "per file kind, the files its front end read and the seconds it took summed over threads; and how "
       "many "
       "Python files and bytes the prefilter parsed only, with no rule, pass or assessment word in them "
       "(docs/performance.md; `MPSAUDIT_NO_PREFILTER=1` turns the prefilter off)"},
      {"--cache-dir DIR", "keep the per-file result cache in DIR (default $XDG_CACHE_HOME/mpsaudit)",
       "keep the per-file result cache in DIR instead of `$XDG_CACHE_HOME/mpsaudit` (default "
       "`~/.cache/mpsaudit`). The cache is on by default: a second scan parses, and runs the per-file "
       "rules on, only files whose content changed, and reports exactly what a cold scan does "
       "(docs/cache.md). A directory that cannot be "
       "written prints one note and the scan runs without it"},
      {"--no-cache", "neither read nor write the result cache", ""},
      {"--full",
       "list every finding and reason (on a terminal the text report is\nconcise; above 200 findings it "
       "prints a summary; Markdown caps its lists)",
       "list everything, however large the report: on a terminal the text report is concise (the verdict "
       "first, ten entry points, the three strongest reasons); above 200 open findings it prints a summary "
       "(the entry points, the decision's reasons grouped by cause, and open findings per directory; at most "
       "20 diagnostics, 5 on a terminal), and the Markdown report caps its reason list and action plan; "
       "`--full` lifts all of it (docs/report-formats.md). JSON, SARIF and HTML always carry every finding"},
      {"-p DIR", "directory holding compile_commands.json",
       "directory holding `compile_commands.json` for C++/CUDA files (also `--compile-commands DIR`)"},
      {"--rules-dir DIR", "load rules from DIR", "load rules from DIR instead of the installed catalog"},
      {"--config FILE", "use this mpsaudit.toml / pyproject.toml (default: found in the tree)",
       "use this `mpsaudit.toml` or `pyproject.toml` (default: the nearest one at or above the scanned path, "
       "up to the scanned directory or the top of its git work tree; a config found so cannot hide the "
       "safety rules' findings, one named here can; docs/configuration.md)"},
      {"--no-config", "ignore config files", ""},
      {"--select IDS", "only these rules (IDs, prefixes, families; comma-separated)",
       "only these rules: IDs, prefixes or family names, comma-separated; replaces the config's "
       "`rules.enable`"},
      {"--ignore IDS", "not these rules", "not these rules; adds to the config's `rules.disable`"},
      {"--baseline FILE", "report only findings not recorded in FILE (docs/baseline.md)",
       "report only findings not recorded in FILE by `mpsaudit baseline write`; the decision and effort "
       "still "
       "count the known ones (docs/baseline.md)"},
      {"--changed-since REV", "scan only files changed since REV (a partial scan)",
       "scan only files changed since the git revision REV (a partial scan: the decision says so)"},
      {"--staged", "scan only files staged for commit (a partial scan)",
       "scan only files staged for commit (a partial scan)"},
      {"--color auto|always|never", "", "colour in the text report (auto: only on a terminal)"},
      {"--progress auto|always|never", "files done and phase on standard error (auto: a terminal only)",
       "a line on standard error with the phase and the files done (`mpsaudit: reading 1200/4000 "
       "files`), rewritten in place and cleared before the report. `auto` (the default) shows it only when "
       "standard error is a terminal, the scan has run for about a second, `CI` is not set, `TERM` is not "
       "`dumb` and standard output does not get JSON, SARIF or GitHub annotations; `always` shows it at "
       "once, "
       "anywhere; `never` never. The scan's threads only bump atomic counters; one thread redraws the line "
       "ten "
       "times a second. `MPSAUDIT_PROGRESS_DELAY_MS` replaces auto's one-second wait "
       "(tests/e2e/progress_line.sh)"},
  };
}

std::vector<OptionHelp> portfolio_options_help() {
  return {
      {"--format FORMAT", portfolio_format_names("|") + " (default text)",
       "output format for standard output: " + portfolio_format_names(", ") + " (default `text`)"},
      {"-o, --output FILE", "write the portfolio to FILE (repeatable; format from .txt .md .csv .json .html)",
       "write the portfolio to FILE; repeatable; the format follows the extension (.txt .md .csv .json "
       ".html; "
       "`--format` otherwise)"},
      {"-j, --jobs N", "repositories scanned at once (default: number of cores)",
       "repositories scanned at once, each by its own `mpsaudit scan` process with its share of the cores "
       "(default: the number of cores)"},
      {"--reports-dir DIR", "keep each repository's JSON and HTML report in DIR",
       "keep each scanned repository's JSON and HTML report in DIR (`<name>.json`, `<name>.html`); the HTML "
       "portfolio links to them. Without it the reports go to a temporary directory"},
      {"--baseline FILE", "mark what changed since an earlier portfolio JSON",
       "mark what changed since an earlier `portfolio` JSON: verdicts, effort, new blockers, repositories "
       "added or gone"},
      {"--timeout SECONDS", "stop one repository's scan after SECONDS (default 3600)",
       "one repository's scan that runs longer is stopped and becomes a row with the error (default 3600)"},
      {"--no-git", "passed to each scan: walk the directories, ignoring git",
       "passed to each `scan`: walk the directories instead of asking git which files are tracked"},
      {"--no-cache", "passed to each scan: neither read nor write the result cache",
       "passed to each `scan`: neither read nor write the result cache (docs/cache.md)"},
      {"--cache-dir DIR", "passed to each scan: the result cache's directory",
       "passed to each `scan`: the result cache's directory (docs/cache.md)"},
      {"--rules-dir DIR", "passed to each scan: load rules/*.toml from DIR",
       "passed to each `scan`: load the rule catalog from DIR instead of the bundled rules"},
      {"--progress WHEN", "never|auto|always: \"12/40 repositories\" on standard error",
       "`never`, `auto` (the default: on a terminal, not in CI) or `always`: a line \"12/40 repositories\" "
       "on "
       "standard error"},
  };
}

void write_options_text(std::ostream &out, const std::vector<OptionHelp> &options) {
  constexpr std::size_t kFlagsColumn = 23;
  for (const auto &option : options) {
    out << "  " << option.flags;
    if (option.summary.empty()) {
      out << "\n";
      continue;
    }
    out << (option.flags.size() < kFlagsColumn ? std::string(kFlagsColumn - option.flags.size(), ' ')
                                               : std::string("  "));
    for (const char c : option.summary)
      out << c << (c == '\n' ? std::string(2 + kFlagsColumn, ' ') : std::string());
    out << "\n";
  }
}

namespace {

// A Markdown table cell: '|' would end it.
std::string table_cell(const std::string &text) {
  std::string cell;
  for (const char c : text)
    cell += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return cell;
}

} // namespace

void write_options_markdown(std::ostream &out, const std::vector<OptionHelp> &options,
                            const std::string &command) {
  const std::string invocation =
      command == "scan" ? "mpsaudit help --markdown" : "mpsaudit help --markdown " + command;
  out << "<!-- Generated by `" << invocation << "` from analyzer/cli/scan_options.cpp; "
      << "tests/e2e/cli_doc_current.sh checks it. -->\n"
      << "| option | meaning |\n| --- | --- |\n";
  for (const auto &option : options)
    out << "| `" << table_cell(option.flags) << "` | "
        << table_cell(option.details.empty() ? option.summary : option.details) << " |\n";
  out << (command == "scan" ? std::string("<!-- End of the generated table. -->\n")
                            : "<!-- End of the generated " + command + " table. -->\n");
}

} // namespace mpsaudit::cli
