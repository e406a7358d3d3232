#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "cli/cli.h"
#include "report/report.h"
#include "rules/rule.h"
#include "scan/scan.h"

namespace mpsaudit::cli {
namespace {

// Minimal option parsing: `--name value`, `--name=value`, flags, positionals.
class Arguments {
public:
  explicit Arguments(const std::vector<std::string> &arguments) : arguments_(arguments) {}

  bool next() { return ++index_ < arguments_.size(); }
  const std::string &current() const { return arguments_[index_]; }
  bool is_option() const { return current().size() > 1 && current()[0] == '-'; }
  // Matches `--name` (then the value is the next argument) or `--name=value`.
  bool option(const char *name, std::string &value) {
    const std::string &arg = current();
    const std::string prefix = std::string(name) + "=";
    if (arg.rfind(prefix, 0) == 0) {
      value = arg.substr(prefix.size());
      return true;
    }
    if (arg != name)
      return false;
    if (index_ + 1 >= arguments_.size()) {
      error_ = std::string(name) + " needs a value";
      value.clear();
      return true;
    }
    value = arguments_[++index_];
    return true;
  }
  bool flag(const char *name) const { return current() == name; }
  const std::string &error() const { return error_; }

private:
  const std::vector<std::string> &arguments_;
  std::size_t index_ = static_cast<std::size_t>(-1);
  std::string error_;
};

int usage_error(const std::string &message) {
  std::cerr << "mpsaudit: " << message << "\n(see `mpsaudit help`)\n";
  return kUsage;
}

bool load_catalog(const Invocation &invocation, const std::string &override_dir, RuleCatalog &catalog) {
  const std::string directory = rules_directory(invocation, override_dir);
  if (directory.empty()) {
    std::cerr << "mpsaudit: cannot find the rules directory; pass --rules-dir or set MPSAUDIT_RULES_DIR\n";
    return false;
  }
  std::vector<Diagnostic> diagnostics;
  catalog = RuleCatalog::load_directory(directory, diagnostics);
  for (const auto &diagnostic : diagnostics)
    std::cerr << diagnostic.path << ":" << diagnostic.line << ": " << diagnostic.message << "\n";
  return diagnostics.empty();
}

std::optional<Severity> parse_fail_on(const std::string &text) {
  if (text == "never")
    return std::nullopt;
  return severity_from_string(text);
}

int command_scan(const Invocation &invocation) {
  ScanOptions options;
  options.paths.clear();
  std::vector<std::pair<std::string, std::string>> outputs; // format, path ("-" = stdout)
  std::string format = "text", rules_dir, color = "auto", fail_on = "warning";
  Arguments args(invocation.arguments);
  std::string value;
  while (args.next()) {
    if (!args.is_option() || args.current() == "-") {
      options.paths.push_back(args.current());
    } else if (args.option("--format", value) || args.option("-f", value)) {
      format = value;
    } else if (args.option("--output", value) || args.option("-o", value)) {
      outputs.emplace_back("", value);
    } else if (args.option("--jobs", value) || args.option("-j", value)) {
      options.jobs = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    } else if (args.option("--max-file-size", value)) {
      options.max_file_bytes = std::strtoull(value.c_str(), nullptr, 10);
    } else if (args.option("--rules-dir", value)) {
      rules_dir = value;
    } else if (args.option("--color", value)) {
      color = value;
    } else if (args.option("--fail-on", value)) {
      fail_on = value;
    } else if (args.option("-p", value) || args.option("--compile-commands", value)) {
      options.compile_commands_dir = value;
    } else if (args.flag("--no-git")) {
      options.use_git = false;
    } else {
      return usage_error("unknown option for scan: " + args.current());
    }
    if (!args.error().empty())
      return usage_error(args.error());
  }
  if (options.paths.empty())
    options.paths.push_back(".");
  if (format != "text" && format != "json")
    return usage_error("unknown format '" + format + "' (text, json)");
  if (fail_on != "never" && !parse_fail_on(fail_on))
    return usage_error("--fail-on takes error, warning, info or never");
  // An --output's format follows its extension; the rest use --format.
  for (auto &[output_format, path] : outputs) {
    if (path.size() > 5 && path.substr(path.size() - 5) == ".json")
      output_format = "json";
    else if (path.size() > 4 && path.substr(path.size() - 4) == ".txt")
      output_format = "text";
    else
      output_format = format;
  }
  if (outputs.empty())
    outputs.emplace_back(format, "-");

  RuleCatalog catalog;
  if (!load_catalog(invocation, rules_dir, catalog))
    return kUsage;
  const ScanResult result = run_scan(options, catalog);
  const ReportContext context{tool_version(), &catalog};

  for (const auto &[output_format, path] : outputs) {
    std::ofstream file;
    std::ostream *out = &std::cout;
    const bool to_stdout = path == "-";
    if (!to_stdout) {
      file.open(path, std::ios::binary);
      if (!file)
        return usage_error("cannot write " + path);
      out = &file;
    }
    if (output_format == "json") {
      *out << report_to_json(result, context).dump(2) << "\n";
    } else {
      TextOptions text_options;
      text_options.color = color == "always" || (color == "auto" && to_stdout && isatty(STDOUT_FILENO));
      write_text_report(*out, result, context, text_options);
    }
  }
  if (!(outputs.size() == 1 && outputs.front().second == "-" && outputs.front().first == "text"))
    std::cerr << summary_line(result) << "\n";

  if (result.has_errors())
    return kScanErrors;
  const auto threshold = parse_fail_on(fail_on);
  if (threshold) {
    for (const auto &finding : result.findings)
      if (!finding.suppressed && finding.severity >= static_cast<int>(*threshold))
        return kFindings;
  }
  return kClean;
}

std::string markdown_escape_cell(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out.push_back(c);
  }
  return out;
}

std::string kinds_text(const Rule &rule) {
  std::string out;
  for (FileKind kind : rule.kinds)
    out += (out.empty() ? "" : ", ") + std::string(to_string(kind));
  return out;
}

// The rule reference, generated from the catalog (docs/rules.md).
void write_rules_markdown(std::ostream &out, const RuleCatalog &catalog) {
  out << "# Rule reference\n\n"
      << "<!-- Generated by `mpsaudit rules --markdown` from rules/*.toml. Do not edit by hand. -->\n\n"
      << "Each rule has a stable ID. Effort classes: trivial (a mechanical edit), small (hours), "
         "medium (days), large (weeks), blocker (no MPS path). Guarded findings (behind an ImportError "
         "fallback, a CUDA availability check or a Linux-only marker) are reported at severity info.\n\n";
  for (const auto &family : catalog.families()) {
    out << "- [" << family.prefix << "xx " << family.title << "](#family-" << family.name << ")\n";
  }
  for (const auto &family : catalog.families()) {
    out << "\n<a id=\"family-" << family.name << "\"></a>\n## " << family.prefix << "xx " << family.title
        << " (`" << family.name << "`)\n\n";
    if (!family.description.empty())
      out << family.description << "\n\n";
    out << "| ID | name | summary | effort | severity |\n|---|---|---|---|---|\n";
    for (const auto &rule : catalog.rules())
      if (rule.family == family.name)
        out << "| [" << rule.id << "](#" << to_lower_id(rule.id) << ") | " << rule.name << " | "
            << markdown_escape_cell(rule.summary) << " | " << to_string(rule.effort) << " | "
            << to_string(rule.severity) << " |\n";
    for (const auto &rule : catalog.rules()) {
      if (rule.family != family.name)
        continue;
      out << "\n<a id=\"" << to_lower_id(rule.id) << "\"></a>\n### " << rule.id << " " << rule.name << "\n\n"
          << rule.summary << "\n\n"
          << "- Applies to: " << kinds_text(rule) << "\n"
          << "- Effort: " << to_string(rule.effort) << "; severity: " << to_string(rule.severity) << "\n\n"
          << "**Why it matters on MPS.** " << rule.why << "\n\n"
          << "**Replacement.** " << rule.replacement << "\n\n";
      for (const bool flag : {true, false}) {
        bool header = false;
        for (const auto &example : rule.examples) {
          if (example.must_flag != flag)
            continue;
          if (!header)
            out << (flag ? "Flagged:\n\n" : "Not flagged:\n\n");
          header = true;
          const std::string fence_language = example.kind == FileKind::Python || example.kind == FileKind::SetupPy
                                                 ? "python"
                                                 : std::string(example.kind == FileKind::Cxx || example.kind == FileKind::Cuda ? "cpp" : "text");
          out << "```" << fence_language << "\n" << example.code;
          if (!example.code.empty() && example.code.back() != '\n')
            out << "\n";
          out << "```\n\n";
        }
      }
      if (!rule.examples_waived.empty())
        out << "Examples: " << rule.examples_waived << "\n\n";
      if (!rule.sources.empty()) {
        out << "Sources:";
        for (const auto &source : rule.sources)
          out << " " << source << ";";
        out << "\n";
      }
    }
  }
}

int command_rules(const Invocation &invocation) {
  std::string rules_dir, value;
  bool markdown = false, json = false;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (args.option("--rules-dir", value))
      rules_dir = value;
    else if (args.flag("--markdown"))
      markdown = true;
    else if (args.flag("--json"))
      json = true;
    else
      return usage_error("unknown option for rules: " + args.current());
  }
  RuleCatalog catalog;
  if (!load_catalog(invocation, rules_dir, catalog))
    return kUsage;
  if (markdown) {
    write_rules_markdown(std::cout, catalog);
    return kClean;
  }
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto &rule : catalog.rules())
      out.push_back({{"id", rule.id}, {"name", rule.name}, {"family", rule.family}, {"summary", rule.summary},
                     {"effort", std::string(to_string(rule.effort))},
                     {"severity", std::string(to_string(rule.severity))}});
    std::cout << out.dump(2) << "\n";
    return kClean;
  }
  std::string family;
  for (const auto &rule : catalog.rules()) {
    if (rule.family != family) {
      family = rule.family;
      std::cout << "\n" << family << "\n";
    }
    std::cout << "  " << rule.id << "  " << rule.name << "  (" << to_string(rule.effort) << ", "
              << to_string(rule.severity) << ")  " << rule.summary << "\n";
  }
  return kClean;
}

int command_explain(const Invocation &invocation) {
  std::string rules_dir, value, id;
  Arguments args(invocation.arguments);
  while (args.next()) {
    if (args.option("--rules-dir", value))
      rules_dir = value;
    else if (!args.is_option())
      id = args.current();
    else
      return usage_error("unknown option for explain: " + args.current());
  }
  if (id.empty())
    return usage_error("explain needs a rule ID, e.g. `mpsaudit explain MPS101`");
  RuleCatalog catalog;
  if (!load_catalog(invocation, rules_dir, catalog))
    return kUsage;
  std::string upper = id;
  for (char &c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const Rule *rule = catalog.find(upper);
  if (!rule) {
    for (const auto &candidate : catalog.rules())
      if (candidate.name == id)
        rule = &candidate;
  }
  if (!rule)
    return usage_error("no rule " + id + " (see `mpsaudit rules`)");
  RuleCatalog single;
  std::ostringstream text;
  std::cout << rule->id << " " << rule->name << " (" << rule->family << ")\n\n"
            << rule->summary << "\n\n"
            << "Effort: " << to_string(rule->effort) << "; severity: " << to_string(rule->severity)
            << "; applies to: " << kinds_text(*rule) << "\n\n"
            << "Why it matters on MPS:\n  " << rule->why << "\n\n"
            << "Replacement:\n  " << rule->replacement << "\n";
  for (const auto &example : rule->examples)
    std::cout << "\n" << (example.must_flag ? "Flagged:" : "Not flagged:") << "\n" << example.code;
  if (!rule->sources.empty()) {
    std::cout << "\nSources:\n";
    for (const auto &source : rule->sources)
      std::cout << "  - " << source << "\n";
  }
  std::cout << "\nDocs: " << rule->docs << "\n";
  return kClean;
}

int command_version(const Invocation &) {
  std::cout << "mpsaudit " << tool_version() << "\n";
  return kClean;
}

int command_help(const Invocation &) {
  std::cout << "mpsaudit " << tool_version()
            << ": can this PyTorch repository run on an Apple-Silicon Mac (MPS)?\n\n"
               "Usage: mpsaudit <command> [options]\n\nCommands:\n";
  for (const auto &command : commands())
    std::cout << "  " << command.name << std::string(12 - std::min<std::size_t>(11, std::strlen(command.name)), ' ')
              << command.summary << "\n";
  std::cout << "\nscan options:\n"
               "  --format text|json     output format (default text)\n"
               "  -o, --output FILE      write a report to FILE (repeatable; format from extension)\n"
               "  -j, --jobs N           worker threads (default: number of cores)\n"
               "  --max-file-size BYTES  skip larger files with a diagnostic (default 10485760)\n"
               "  --fail-on LEVEL        exit 1 on findings at or above error|warning|info, or never\n"
               "  --no-git               walk the tree even inside a git work tree\n"
               "  -p DIR                 directory holding compile_commands.json\n"
               "  --rules-dir DIR        load rules from DIR\n"
               "  --color auto|always|never\n\n"
               "Exit codes: 0 clean, 1 findings, 2 usage error, 3 some inputs could not be scanned.\n";
  return kClean;
}

} // namespace

std::string tool_version() { return "0.1.0"; }

std::string rules_directory(const Invocation &invocation, const std::string &override_dir) {
  if (!override_dir.empty())
    return override_dir;
  if (const char *env = std::getenv("MPSAUDIT_RULES_DIR"); env && *env)
    return env;
  std::string found = locate_data_directory(invocation.executable, "rules");
  if (found.empty()) {
    // Running from the build tree: the binary was built from this source.
    std::error_code error;
    const std::string source_rules = std::string(MPSAUDIT_SOURCE_DIR) + "/rules";
    if (std::filesystem::is_directory(source_rules, error))
      found = source_rules;
  }
  return found;
}

const std::vector<Command> &commands() {
  static const std::vector<Command> table{
      {"scan", "scan a repository and report CUDA-only code", command_scan},
      {"rules", "list the rule catalog (--markdown for docs/rules.md)", command_rules},
      {"explain", "print one rule's documentation", command_explain},
      {"version", "print the version", command_version},
      {"help", "print this help", command_help},
  };
  return table;
}

int run(const Invocation &invocation) {
  if (invocation.arguments.empty())
    return command_help(invocation), kUsage;
  const std::string &name = invocation.arguments.front();
  if (name == "--help" || name == "-h")
    return command_help(invocation);
  if (name == "--version")
    return command_version(invocation);
  for (const auto &command : commands()) {
    if (name == command.name) {
      Invocation rest{invocation.executable,
                      std::vector<std::string>(invocation.arguments.begin() + 1, invocation.arguments.end())};
      return command.run(rest);
    }
  }
  return usage_error("unknown command '" + name + "'");
}

} // namespace mpsaudit::cli
