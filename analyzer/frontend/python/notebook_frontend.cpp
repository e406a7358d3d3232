// The notebook front end: reads .ipynb JSON (never executes it), runs the
// Python front end on each code cell, and maps every position back to the
// cell, the line inside the cell, and the line of the .ipynb file.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/launch_command.h"
#include "core/text.h"
#include "frontend/python/python_frontend.h"

namespace mpsaudit {
namespace {

// Where each source line of each code cell starts in the .ipynb text.
// nlohmann::json keeps no positions, so a small scanner walks the raw JSON
// and records the file line of every string in a cell's "source" array.
class SourceLineLocator {
public:
  explicit SourceLineLocator(std::string_view json) : json_(json) {}

  // For cell `index` (counting all cells), the 1-based file line of each
  // element of its "source" array, in order. Empty when not found.
  std::vector<std::vector<std::uint32_t>> locate() {
    std::vector<std::vector<std::uint32_t>> cells;
    const std::size_t cells_key = json_.find("\"cells\"");
    if (cells_key == std::string_view::npos)
      return cells;
    std::size_t i = json_.find('[', cells_key);
    if (i == std::string_view::npos)
      return cells;
    // Walk the array of cell objects.
    for_each_element(i, ']', [&](std::size_t &k) {
      if (json_[k] != '{')
        return false;
      cells.push_back(scan_cell(k));
      return true;
    });
    return cells;
  }

private:
  std::uint32_t line_at(std::size_t offset) {
    while (counted_ < offset && counted_ < json_.size()) {
      if (json_[counted_] == '\n')
        ++counted_line_;
      ++counted_;
    }
    return counted_line_;
  }
  void skip_space(std::size_t &i) const {
    while (i < json_.size() && (json_[i] == ' ' || json_[i] == '\n' || json_[i] == '\r' || json_[i] == '\t'))
      ++i;
  }
  // Skips a string starting at the quote at `i`; returns its contents raw.
  std::string_view skip_string(std::size_t &i) const {
    const std::size_t begin = ++i;
    while (i < json_.size() && json_[i] != '"')
      i += json_[i] == '\\' ? 2 : 1;
    const std::size_t end = std::min(i, json_.size());
    ++i;
    return json_.substr(begin, end - begin);
  }
  // Skips any JSON value starting at `i`.
  void skip_value(std::size_t &i) const {
    skip_space(i);
    if (i >= json_.size())
      return;
    if (json_[i] == '"') {
      skip_string(i);
      return;
    }
    if (json_[i] == '{' || json_[i] == '[') {
      int depth = 0;
      while (i < json_.size()) {
        const char c = json_[i];
        if (c == '"') {
          skip_string(i);
          continue;
        }
        if (c == '{' || c == '[')
          ++depth;
        else if (c == '}' || c == ']') {
          if (--depth == 0) {
            ++i;
            return;
          }
        }
        ++i;
      }
      return;
    }
    while (i < json_.size() && json_[i] != ',' && json_[i] != '}' && json_[i] != ']')
      ++i;
  }
  // Calls `element` for each element of the array or object opening at `i`
  // (commas and white space skipped), until `close`; stops early when
  // `element` returns false (a value it does not expect).
  template <typename Fn> void for_each_element(std::size_t &i, char close, Fn &&element) {
    ++i; // the opening bracket
    while (i < json_.size()) {
      skip_space(i);
      if (i >= json_.size() || json_[i] == close) {
        ++i;
        return;
      }
      if (json_[i] == ',') {
        ++i;
        continue;
      }
      if (!element(i))
        return;
    }
  }
  std::vector<std::uint32_t> scan_cell(std::size_t &i) {
    std::vector<std::uint32_t> lines;
    for_each_element(i, '}', [&](std::size_t &k) {
      if (json_[k] != '"')
        return false;
      const std::string_view key = skip_string(k);
      skip_space(k);
      if (k < json_.size() && json_[k] == ':')
        ++k;
      skip_space(k);
      if (key == "source" && k < json_.size() && json_[k] == '"') {
        lines.push_back(line_at(k));
        skip_string(k);
      } else if (key == "source" && k < json_.size() && json_[k] == '[') {
        for_each_element(k, ']', [&](std::size_t &m) {
          if (json_[m] != '"')
            return false;
          lines.push_back(line_at(m));
          skip_string(m);
          return true;
        });
      } else {
        skip_value(k);
      }
      return true;
    });
    return lines;
  }

  std::string_view json_;
  std::size_t counted_ = 0;
  std::uint32_t counted_line_ = 1;
};

std::string cell_source(const nlohmann::json &source) {
  if (source.is_string())
    return source.get<std::string>();
  std::string joined;
  if (source.is_array())
    for (const auto &line : source)
      if (line.is_string())
        joined += line.get<std::string>();
  return joined;
}

// What is wrong with a cell's "source", or "" when it is a string or a list
// of strings.
std::string source_problem(const nlohmann::json &source) {
  const auto what = [](const nlohmann::json &value) {
    if (value.is_null())
      return std::string("null");
    return std::string(value.is_object() || value.is_array() ? "an " : "a ") + value.type_name();
  };
  if (source.is_string())
    return "";
  if (!source.is_array())
    return "\"source\" is " + what(source) + ", not a string or a list of strings; the cell was not scanned";
  for (std::size_t k = 0; k < source.size(); ++k)
    if (!source[k].is_string())
      return "element " + std::to_string(k + 1) + " of \"source\" is " + what(source[k]) +
             ", not a string; only the string elements were scanned";
  return "";
}

// IPython lines that are not Python: `!cmd`, `%magic`, `%%cellmagic`. They
// are blanked out (keeping line numbers) before parsing and become facts.
bool is_magic_line(std::string_view line) {
  const std::string_view body = trim(line);
  return !body.empty() && (body.front() == '!' || body.front() == '%');
}

Fact shell_fact(std::string_view line, std::uint32_t cell_line) {
  std::string_view body = trim(line);
  std::string magic;
  while (!body.empty() && (body.front() == '!' || body.front() == '%')) {
    magic.push_back(body.front());
    body.remove_prefix(1);
  }
  body = trim(body);
  const std::size_t end = body.find_first_of(" \t");
  Fact fact;
  fact.kind = std::string(fact_kind::Shell);
  fact.name = std::string(body.substr(0, end));
  fact.set_attribute("line", std::string(trim(line)));
  fact.set_attribute("magic", magic);
  // `!python train.py`: what it launches, for entry-point discovery.
  if (const std::optional<LaunchCommand> launch = read_launch_command(body); launch && magic == "!")
    set_launch_attributes(fact, *launch);
  fact.span = Span{cell_line, 1, cell_line, static_cast<std::uint32_t>(line.size() + 1)};
  return fact;
}

// Facts of one code cell: magic lines are blanked (keeping line numbers)
// and become `shell` facts; the rest goes through the Python front end.
FileFacts extract_code_cell(std::string code, const std::string &path, unsigned timeout_ms) {
  std::vector<Fact> shell_facts;
  std::size_t start = 0;
  std::uint32_t line_number = 1;
  while (start <= code.size()) {
    std::size_t end = code.find('\n', start);
    if (end == std::string::npos)
      end = code.size();
    const std::string_view line(code.data() + start, end - start);
    if (is_magic_line(line)) {
      shell_facts.push_back(shell_fact(line, line_number));
      for (std::size_t k = start; k < end; ++k)
        code[k] = ' ';
    }
    start = end + 1;
    ++line_number;
  }
  FileFacts facts = extract_python_source(code, path, timeout_ms);
  for (Fact &fact : shell_facts)
    facts.facts.push_back(std::move(fact));
  return facts;
}

MarkdownExtractor markdown_extractor = nullptr;

} // namespace

void set_notebook_markdown_extractor(MarkdownExtractor extractor) {
  markdown_extractor = extractor;
}

FileFacts extract_notebook_source(std::string_view json_text, const std::string &path, unsigned timeout_ms) {
  FileFacts out;
  nlohmann::json notebook;
  try {
    notebook = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error &error) {
    out.mode = "error";
    // The byte offset is the most precise position nlohmann gives; turn it
    // into a line for the diagnostic.
    const std::size_t offset = std::min<std::size_t>(error.byte, json_text.size());
    const std::uint32_t line =
        1 + static_cast<std::uint32_t>(std::count(json_text.begin(), json_text.begin() + offset, '\n'));
    out.diagnostics.push_back({DiagnosticLevel::Error, path, line, "invalid-json",
                               std::string("notebook is not valid JSON: ") + error.what()});
    return out;
  } catch (const nlohmann::json::exception &error) {
    // Valid syntax the library still refuses, such as a number out of range
    // (found by the notebook fuzz target).
    out.mode = "error";
    out.diagnostics.push_back({DiagnosticLevel::Error, path, 0, "invalid-json",
                               std::string("notebook cannot be read: ") + error.what()});
    return out;
  }
  if (!notebook.is_object() || !notebook.contains("cells") || !notebook["cells"].is_array()) {
    out.mode = "error";
    out.diagnostics.push_back(
        {DiagnosticLevel::Error, path, 1, "invalid-notebook", "notebook has no \"cells\" array"});
    return out;
  }
  const auto file_lines = SourceLineLocator(json_text).locate();
  const auto &cells = notebook["cells"];
  for (std::size_t index = 0; index < cells.size(); ++index) {
    const auto &cell = cells[index];
    // Hand-edited notebooks can hold anything: check types before reading.
    if (!cell.is_object() || !cell.contains("cell_type") || !cell.contains("source"))
      continue;
    const bool is_code = cell["cell_type"] == "code";
    const bool is_markdown = cell["cell_type"] == "markdown";
    if (!is_code && !(is_markdown && markdown_extractor))
      continue;
    // Cells are numbered by their position in the notebook, markdown cells
    // included, as notebook editors number them.
    const int cell_number = static_cast<int>(index);
    if (const std::string problem = source_problem(cell["source"]); !problem.empty()) {
      // nbformat wants a string or a list of strings; Jupyter refuses
      // anything else, and so must the scan, loudly: the code in such a
      // cell would go unread. What can be read is still scanned.
      out.diagnostics.push_back({DiagnosticLevel::Error, path, 0, "invalid-notebook",
                                 "cell " + std::to_string(cell_number + 1) + ": " + problem});
      if (!cell["source"].is_array())
        continue;
    }
    FileFacts cell_facts = is_code ? extract_code_cell(cell_source(cell["source"]), path, timeout_ms)
                                   : markdown_extractor(cell_source(cell["source"]), path);

    // Map cell lines to file lines. Each element of a "source" array is one
    // line in nbformat; a single-string source starts on one file line.
    const std::vector<std::uint32_t> *lines =
        index < file_lines.size() && !file_lines[index].empty() ? &file_lines[index] : nullptr;
    const auto to_file_line = [&](std::uint32_t cell_line) -> std::uint32_t {
      if (!lines)
        return 0;
      if (lines->size() == 1)
        return lines->front();
      return cell_line <= lines->size() ? (*lines)[cell_line - 1] : lines->back();
    };
    // The snippet is the cell's own line, not the JSON line.
    std::vector<std::string_view> code_lines;
    const std::string original = cell_source(cell["source"]);
    std::size_t line_start = 0;
    while (line_start <= original.size()) {
      std::size_t line_end = original.find('\n', line_start);
      if (line_end == std::string::npos)
        line_end = original.size();
      code_lines.emplace_back(original.data() + line_start, line_end - line_start);
      line_start = line_end + 1;
    }
    for (Fact &fact : cell_facts.facts) {
      fact.cell = cell_number;
      fact.cell_line = fact.span.line;
      if (fact.span.line >= 1 && fact.span.line <= code_lines.size())
        fact.set_attribute("snippet", std::string(code_lines[fact.span.line - 1]));
      const std::uint32_t height = fact.span.end_line - fact.span.line;
      fact.span.line = to_file_line(fact.cell_line);
      fact.span.end_line = fact.span.line + height;
      out.facts.push_back(std::move(fact));
    }
    for (Diagnostic &diagnostic : cell_facts.diagnostics) {
      diagnostic.message = "cell " + std::to_string(cell_number + 1) + ": " + diagnostic.message;
      diagnostic.line = to_file_line(diagnostic.line == 0 ? 1 : diagnostic.line);
      out.diagnostics.push_back(std::move(diagnostic));
    }
  }
  return out;
}

} // namespace mpsaudit
