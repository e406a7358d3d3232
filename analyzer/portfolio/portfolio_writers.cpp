// The portfolio's text, Markdown, CSV and JSON formats, and the table of
// formats. The HTML page is in portfolio_html.cpp.
#include "portfolio/portfolio_writers.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/text.h"
#include "report/markdown_text.h"

namespace mpsaudit {
namespace {

// How many blockers a row shows; the JSON has them all.
constexpr std::size_t kRowBlockers = 3;
// How many shared blockers the text and Markdown list.
constexpr std::size_t kSharedBlockersShown = 10;

std::string percent(double share) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", share * 100);
  return text;
}

std::string count_of(std::size_t count, const char *one, const char *many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string native_port_text(const PortfolioRow &row) {
  return row.native_port ? format_hours(*row.native_port) : "–";
}

std::string entries_text(const PortfolioRow &row) {
  return std::to_string(row.entries_on_mac) + "/" + std::to_string(row.entries);
}

// The first `limit` blockers' titles (or short names), joined, with how
// many more.
std::string blockers_text(const PortfolioRow &row, std::size_t limit, bool short_names = false) {
  std::string text;
  for (std::size_t i = 0; i < row.blockers.size() && i < limit; ++i)
    text += (i ? (short_names ? ", " : "; ") : "") +
            (short_names ? row.blockers[i].short_name() : row.blockers[i].title);
  if (row.blockers.size() > limit)
    text += " (+" + std::to_string(row.blockers.size() - limit) + ")";
  return text.empty() ? "–" : text;
}

std::string headline(const Portfolio &portfolio) {
  std::string text = "mpsaudit portfolio: " + count_of(portfolio.rows.size(), "repository", "repositories");
  std::string parts;
  for (const VerdictTotal &total : portfolio.totals)
    if (total.repositories)
      parts += (parts.empty() ? "" : ", ") + std::to_string(total.repositories) + " " + total.verdict;
  const std::size_t failed = static_cast<std::size_t>(std::count_if(
      portfolio.rows.begin(), portfolio.rows.end(), [](const PortfolioRow &row) { return !row.ok(); }));
  if (failed)
    parts += (parts.empty() ? "" : ", ") + std::to_string(failed) + " not scanned";
  return text + (parts.empty() ? "" : " (" + parts + ")");
}

// --- text ---

struct Column {
  const char *title;
  bool right_aligned;
};

constexpr Column kTextColumns[] = {{"repository", false}, {"verdict", false}, {"effort", true},
                                   {"native port", true}, {"fix", true},      {"on Mac", true},
                                   {"files", true},       {"findings", true}, {"blockers", false}};

std::vector<std::string> text_cells(const PortfolioRow &row) {
  if (!row.ok())
    return {row.name, "error", "", "", "", "", "", "", row.error};
  return {row.name,
          row.verdict,
          format_hours(row.effort),
          native_port_text(row),
          percent(row.fix_share()),
          entries_text(row),
          std::to_string(row.files),
          std::to_string(row.findings),
          blockers_text(row, kRowBlockers, true)};
}

std::string padded(const std::string &cell, std::size_t width, bool right) {
  const std::size_t shown = display_width(cell);
  const std::string pad(width > shown ? width - shown : 0, ' ');
  return right ? pad + cell : cell + pad;
}

// One line of the table; the last column takes what the width leaves.
std::string table_line(const std::vector<std::string> &cells, const std::vector<std::size_t> &widths,
                       std::size_t width) {
  std::string line;
  for (std::size_t i = 0; i + 1 < cells.size(); ++i)
    line += padded(cells[i], widths[i], kTextColumns[i].right_aligned) + "  ";
  line += cells.back();
  return width ? cut_to_width(line, width) : line;
}

void write_text_table(std::ostream &out, const Portfolio &portfolio, std::size_t width) {
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> header;
  for (const Column &column : kTextColumns)
    header.push_back(column.title);
  lines.push_back(header);
  for (const PortfolioRow &row : portfolio.rows) {
    std::vector<std::string> cells = text_cells(row);
    for (std::string &cell : cells)
      cell = terminal_safe(cell);
    cells.front() = cut_to_width(cells.front(), 32);
    lines.push_back(std::move(cells));
  }
  std::vector<std::size_t> widths(std::size(kTextColumns), 0);
  for (const auto &cells : lines)
    for (std::size_t i = 0; i < cells.size(); ++i)
      widths[i] = std::max(widths[i], display_width(cells[i]));
  for (const auto &cells : lines)
    out << table_line(cells, widths, width) << "\n";
}

void write_text_lines(std::ostream &out, const std::string &title, const std::vector<std::string> &lines,
                      std::size_t width) {
  if (lines.empty())
    return;
  out << "\n" << title << "\n";
  for (const std::string &line : lines)
    out << (width ? wrap_to_width("  " + terminal_safe(line), width, 4) : "  " + terminal_safe(line)) << "\n";
}

std::vector<std::string> verdict_lines(const Portfolio &portfolio) {
  std::vector<std::string> lines;
  for (const VerdictTotal &total : portfolio.totals)
    lines.push_back(padded(total.verdict, 15, false) +
                    padded(count_of(total.repositories, "repository", "repositories"), 17, false) +
                    (total.repositories ? person_days_text(total.hours) : "–"));
  return lines;
}

std::vector<std::string> shared_lines(const Portfolio &portfolio) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < portfolio.shared_blockers.size() && i < kSharedBlockersShown; ++i) {
    const SharedBlocker &blocker = portfolio.shared_blockers[i];
    std::string names;
    for (const std::string &name : blocker.repositories)
      names += (names.empty() ? "" : ", ") + name;
    lines.push_back(
        blocker.title + ": blocks " + count_of(blocker.repositories.size(), "repository", "repositories") +
        (blocker.hours.high > 0 ? ", " + format_hours(blocker.hours) + " to port in all" : "") +
        (blocker.replaced_once() && blocker.repositories.size() > 1 ? ", one replacement for all" : "") +
        " (" + names + ")");
  }
  return lines;
}

std::vector<std::string> reason_lines(const Portfolio &portfolio) {
  std::vector<std::string> lines;
  for (const PortfolioRow &row : portfolio.rows)
    lines.push_back(row.name + ": " +
                    (row.ok() ? row.verdict + ": " + row.reason : "not scanned: " + row.error));
  return lines;
}

std::vector<std::string> note_lines(const Portfolio &portfolio) {
  std::vector<std::string> lines;
  for (const PortfolioRow &row : portfolio.rows)
    for (const std::string &note : row.notes)
      lines.push_back(row.name + ": " + note);
  return lines;
}

// --- Markdown ---

// Every text from a report (names, reasons, titles) is the scanned tree's:
// it goes through markdown_text, which keeps it text when GitHub renders the
// page (docs/security.md).

void write_markdown_list(std::ostream &out, const std::string &title, const std::vector<std::string> &lines) {
  if (lines.empty())
    return;
  out << "\n## " << title << "\n\n";
  for (const std::string &line : lines)
    out << "- " << markdown_text(line) << "\n";
}

} // namespace

std::vector<std::string> portfolio_change_lines(const Portfolio &portfolio) {
  std::vector<std::string> lines;
  if (portfolio.baseline_file.empty())
    return lines;
  for (const PortfolioRow &row : portfolio.rows)
    for (const std::string &change : row.changes)
      lines.push_back(row.name + ": " + change);
  for (const std::string &name : portfolio.removed_since_baseline)
    lines.push_back(name + ": no longer in the portfolio");
  if (lines.empty())
    lines.push_back("nothing changed");
  return lines;
}

std::string person_days_text(const HourRange &hours) {
  char text[48];
  std::snprintf(text, sizeof text, "%.1f–%.1f person-days", hours.low / 8, hours.high / 8);
  return text;
}

std::string portfolio_release_sentence(const Portfolio &portfolio) {
  if (!portfolio.release)
    return "No repository has an operator without an MPS kernel that a newer torch release adds.";
  const ReleaseEffect &effect = *portfolio.release;
  return "torch " + effect.release + " has an MPS kernel for every missing operator of " +
         count_of(effect.repositories, "repository", "repositories") + "; it changes the verdict of " +
         std::to_string(effect.verdicts_changed) + " (only such operators decide it).";
}

std::string report_link(const std::string &report, const std::string &written_to) {
  std::error_code error;
  const std::filesystem::path base = std::filesystem::absolute(written_to.empty() ? "." : written_to, error);
  const std::filesystem::path relative = std::filesystem::absolute(report, error).lexically_relative(base);
  const std::string path = relative.empty() ? report : relative.generic_string();
  std::string link;
  for (unsigned char c : path) {
    if (c <= ' ' || c == 0x7f || c == '<' || c == '>' || c == '"' || c == '\'' || c == '(' || c == ')' ||
        c == '%') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      link += escaped;
    } else {
      link += static_cast<char>(c);
    }
  }
  return link;
}

std::string csv_field(std::string_view text) {
  std::string value(text);
  if (!value.empty() && std::string_view("=+-@\t\r").find(value.front()) != std::string_view::npos)
    value.insert(value.begin(), '\'');
  if (value.find_first_of(",\"\n\r") == std::string::npos)
    return value;
  std::string quoted = "\"";
  for (char c : value)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void write_portfolio_text(std::ostream &out, const Portfolio &portfolio,
                          const PortfolioWriterOptions &options) {
  const std::size_t width = options.width;
  out << headline(portfolio) << "\n\n";
  write_text_table(out, portfolio, width);
  write_text_lines(out, "By verdict (recommended path)", verdict_lines(portfolio), width);
  write_text_lines(out, "Blockers across repositories (most repositories first)", shared_lines(portfolio),
                   width);
  write_text_lines(out, "Torch release", {portfolio_release_sentence(portfolio)}, width);
  write_text_lines(out, "Why", reason_lines(portfolio), width);
  write_text_lines(out, "Since " + portfolio.baseline_file, portfolio_change_lines(portfolio), width);
  write_text_lines(out, "Notes", note_lines(portfolio), width);
}

void write_portfolio_markdown(std::ostream &out, const Portfolio &portfolio,
                              const PortfolioWriterOptions &options) {
  out << "# " << markdown_text(headline(portfolio)) << "\n\n"
      << "| repository | verdict | why | effort | native port | fix | Mac entries | files | findings | top "
         "blockers |\n"
      << "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const PortfolioRow &row : portfolio.rows) {
    const std::string name =
        markdown_text(row.name) + (row.commit ? " " + markdown_code(row.commit->substr(0, 7)) : "");
    if (!row.ok()) {
      out << "| " << name << " | error | " << markdown_text(row.error) << " | | | | | | | |\n";
      continue;
    }
    const std::string verdict =
        row.html_report.empty()
            ? row.verdict
            : "[" + row.verdict + "](<" + report_link(row.html_report, options.written_to) + ">)";
    out << "| " << name << " | " << verdict << " | " << markdown_text(row.reason) << " | "
        << format_hours(row.effort) << " | " << native_port_text(row) << " | " << percent(row.fix_share())
        << " | " << entries_text(row) << " | " << row.files << " | " << row.findings << " | "
        << markdown_text(blockers_text(row, kRowBlockers)) << " |\n";
  }
  out << "\n## By verdict (recommended path)\n\n| verdict | repositories | person-days | hours "
         "|\n|---|---:|---:|---:|\n";
  for (const VerdictTotal &total : portfolio.totals)
    out << "| " << total.verdict << " | " << total.repositories << " | "
        << (total.repositories ? person_days_text(total.hours) : "–") << " | "
        << (total.repositories ? format_hours(total.hours) : "–") << " |\n";
  write_markdown_list(out, "Blockers across repositories (most repositories first)", shared_lines(portfolio));
  write_markdown_list(out, "Torch release", {portfolio_release_sentence(portfolio)});
  if (!portfolio.baseline_file.empty())
    write_markdown_list(out, "Since " + portfolio.baseline_file, portfolio_change_lines(portfolio));
  write_markdown_list(out, "Notes", note_lines(portfolio));
}

void write_portfolio_csv(std::ostream &out, const Portfolio &portfolio, const PortfolioWriterOptions &) {
  out << "name,commit,verdict,reason,effort_low_hours,effort_high_hours,effort,native_port_low_hours,"
         "native_port_high_hours,fix_share,blocker_1,blocker_2,blocker_3,entries_on_mac,entries,files,"
         "findings,"
         "scanned_at,source,input,error,changes\r\n";
  char number[32];
  const auto hours = [&number](double value) {
    std::snprintf(number, sizeof number, "%.2f", value);
    return std::string(number);
  };
  for (const PortfolioRow &row : portfolio.rows) {
    std::vector<std::string> fields = {csv_field(row.name), csv_field(row.commit.value_or("")),
                                       csv_field(row.verdict), csv_field(row.reason)};
    if (row.ok()) {
      fields.insert(fields.end(),
                    {hours(row.effort.low), hours(row.effort.high), csv_field(format_hours(row.effort)),
                     row.native_port ? hours(row.native_port->low) : "",
                     row.native_port ? hours(row.native_port->high) : "", hours(row.fix_share())});
    } else {
      fields.insert(fields.end(), 6, "");
    }
    for (std::size_t i = 0; i < kRowBlockers; ++i)
      fields.push_back(i < row.blockers.size() ? csv_field(row.blockers[i].title) : "");
    std::string changes;
    for (const std::string &change : row.changes)
      changes += (changes.empty() ? "" : "; ") + change;
    fields.insert(fields.end(),
                  {row.ok() ? std::to_string(row.entries_on_mac) : "",
                   row.ok() ? std::to_string(row.entries) : "", row.ok() ? std::to_string(row.files) : "",
                   row.ok() ? std::to_string(row.findings) : "", csv_field(row.scanned_at),
                   csv_field(row.source), csv_field(row.input), csv_field(row.error), csv_field(changes)});
    for (std::size_t i = 0; i < fields.size(); ++i)
      out << (i ? "," : "") << fields[i];
    out << "\r\n";
  }
}

void write_portfolio_json(std::ostream &out, const Portfolio &portfolio, const PortfolioWriterOptions &) {
  out << portfolio_to_json(portfolio).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

const std::vector<PortfolioWriter> &portfolio_writers() {
  static const std::vector<PortfolioWriter> writers = {
      {"text", {"txt"}, false, write_portfolio_text},
      {"md", {"md", "markdown"}, false, write_portfolio_markdown},
      {"csv", {"csv"}, true, write_portfolio_csv},
      {"json", {"json"}, true, write_portfolio_json},
      {"html", {"html", "htm"}, false, write_portfolio_html}};
  return writers;
}

const PortfolioWriter *find_portfolio_writer(std::string_view name) {
  for (const PortfolioWriter &writer : portfolio_writers())
    if (name == writer.name)
      return &writer;
  return nullptr;
}

std::string portfolio_format_for_extension(const std::string &path) {
  const std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos)
    return {};
  const std::string extension = to_lower(path.substr(dot + 1));
  for (const PortfolioWriter &writer : portfolio_writers())
    for (const char *known : writer.extensions)
      if (extension == known)
        return writer.name;
  return {};
}

std::string portfolio_format_names(std::string_view separator) {
  std::string names;
  for (const PortfolioWriter &writer : portfolio_writers())
    names += (names.empty() ? "" : std::string(separator)) + writer.name;
  return names;
}

} // namespace mpsaudit
