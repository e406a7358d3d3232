#include "report/report_writers.h"

#include "core/text.h"
#include "report/github_report.h"
#include "workflow/git_changes.h"

namespace mpsaudit {

namespace {

void write_text(std::ostream &out, const ScanResult &result, const ReportContext &context,
                const WriterOptions &options) {
  TextOptions text_options;
  text_options.color = options.color;
  text_options.width = options.width;
  text_options.concise = options.concise;
  write_text_report(out, result, context, text_options);
}

void write_summary(std::ostream &out, const ScanResult &result, const ReportContext &context,
                   const WriterOptions &) {
  write_summary_report(out, result, context);
}

void write_json(std::ostream &out, const ScanResult &result, const ReportContext &context,
                const WriterOptions &) {
  write_json_report(out, result, context);
}

void write_markdown(std::ostream &out, const ScanResult &result, const ReportContext &context,
                    const WriterOptions &) {
  write_markdown_report(out, result, context);
}

void write_html(std::ostream &out, const ScanResult &result, const ReportContext &context,
                const WriterOptions &) {
  write_html_report(out, result, context);
}

void write_sarif(std::ostream &out, const ScanResult &result, const ReportContext &context,
                 const WriterOptions &) {
  write_sarif_report(out, result, context);
}

// Annotations name files as the repository does: the scan root relative to
// the top of its git work tree comes first ("" outside one).
void write_github(std::ostream &out, const ScanResult &result, const ReportContext &context,
                  const WriterOptions &) {
  // Annotations name files from the repository's top (where a workflow
  // runs); outside git, from the current directory, as the other reports.
  write_github_report(out, result, context,
                      inside_git_work_tree(result.root_directory)
                          ? std::optional<std::string>(git_show_prefix(result.root_directory))
                          : std::nullopt);
}

} // namespace

const std::vector<ReportWriter> &report_writers() {
  static const std::vector<ReportWriter> table{
      {"text", {"txt"}, false, write_text},         {"summary", {}, false, write_summary},
      {"json", {"json"}, true, write_json},         {"md", {"md", "markdown"}, false, write_markdown},
      {"html", {"html", "htm"}, false, write_html}, {"sarif", {"sarif"}, true, write_sarif},
      {"github", {}, true, write_github},
  };
  return table;
}

const ReportWriter *find_report_writer(std::string_view name) {
  for (const auto &writer : report_writers())
    if (name == writer.name)
      return &writer;
  return nullptr;
}

std::string format_for_extension(const std::string &path) {
  const std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos)
    return "";
  const std::string extension = to_lower(std::string_view(path).substr(dot + 1));
  for (const auto &writer : report_writers())
    for (const char *known : writer.extensions)
      if (extension == known)
        return writer.name;
  return "";
}

std::string report_format_names(std::string_view separator) {
  std::string names;
  for (const auto &writer : report_writers())
    names += (names.empty() ? "" : std::string(separator)) + writer.name;
  return names;
}

std::string report_extension_list() {
  std::string list;
  for (const auto &writer : report_writers())
    if (!writer.extensions.empty())
      list += (list.empty() ? "." : " .") + std::string(writer.extensions.front());
  return list;
}

} // namespace mpsaudit
