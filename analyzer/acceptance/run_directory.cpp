#include "acceptance/run_directory.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "core/confined_file.h"
#include "core/text.h"
#include "frontend/checkpoint/byte_source.h"

namespace mpsaudit::acceptance {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxTextBytes = 64u << 20; // larger text files are skipped with a note
constexpr std::size_t kMaxFiles = 20000;
constexpr int kMaxDepth = 8;

// Step keys in order of preference: the first one a log has is its step.
const std::vector<std::string> kStepKeys{"step", "global_step", "_step", "iteration",
                                         "iter", "it",          "epoch", "batch"};

std::string trim(const std::string &text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos)
    return {};
  const std::size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end + 1 - begin);
}

bool ends_with(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A number as a metric log writes it: 0.5, 1e-3, nan, inf, "0.5". False for
// text and empty cells.
bool parse_number(std::string text, double &value) {
  text = trim(text);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front())
    text = text.substr(1, text.size() - 2);
  if (text.empty())
    return false;
  const std::string low = to_lower(text);
  if (low == "true" || low == "false")
    return false;
  char *end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end && *end == '\0';
}

void note(RunDirectory &run, DiagnosticLevel level, const std::string &path, std::uint32_t line,
          const std::string &code, const std::string &message) {
  run.diagnostics.push_back(Diagnostic{level, path, line, code, message});
}

// Adds a metric value. When two files of a run log the same column
// (train.csv and eval.csv both with "loss"), the first file keeps the plain
// name and the other's becomes "eval/loss".
void add_metric(RunDirectory &run, const std::string &column, const std::string &file, double step,
                double value) {
  std::string name = column;
  auto it = run.metric_sources.find(column);
  if (it != run.metric_sources.end() && it->second != file)
    name = fs::path(file).stem().string() + "/" + column;
  run.metric_sources.emplace(name, file);
  run.metrics[name][step] = value;
}

char detect_delimiter(const std::string &header) {
  std::size_t commas = std::count(header.begin(), header.end(), ',');
  std::size_t tabs = std::count(header.begin(), header.end(), '\t');
  std::size_t semicolons = std::count(header.begin(), header.end(), ';');
  if (tabs > commas && tabs >= semicolons)
    return '\t';
  if (semicolons > commas)
    return ';';
  return ',';
}

std::vector<std::string> split_cells(const std::string &line, char delimiter) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == delimiter && !quoted) {
      cells.push_back(trim(cell));
      cell.clear();
    } else if (c != '\r') {
      cell.push_back(c);
    }
  }
  cells.push_back(trim(cell));
  return cells;
}

// Configs and metric records are a few levels deep; a deeper value is left
// out (and the caller notes it) rather than walked: recursion on a hostile
// config.json of 100,000 nested arrays overflowed the stack.
constexpr int kMaxConfigDepth = 64;

void flatten_json(const json &value, const std::string &prefix, std::map<std::string, std::string> &out,
                  bool &truncated, int depth = 0) {
  if ((value.is_object() || value.is_array()) && depth >= kMaxConfigDepth) {
    truncated = true;
  } else if (value.is_object()) {
    for (const auto &[key, child] : value.items())
      flatten_json(child, prefix.empty() ? key : prefix + "." + key, out, truncated, depth + 1);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      flatten_json(value[i], prefix + "[" + std::to_string(i) + "]", out, truncated, depth + 1);
  } else if (value.is_string()) {
    out[prefix] = value.get<std::string>();
  } else {
    out[prefix] = value.dump();
  }
}

void flatten_yaml(const YAML::Node &node, const std::string &prefix, std::map<std::string, std::string> &out,
                  bool &truncated, int depth = 0) {
  switch (node.Type()) {
  case YAML::NodeType::Map:
    if (depth >= kMaxConfigDepth) {
      truncated = true;
      break;
    }
    for (const auto &entry : node) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string("?");
      flatten_yaml(entry.second, prefix.empty() ? key : prefix + "." + key, out, truncated, depth + 1);
    }
    break;
  case YAML::NodeType::Sequence:
    if (depth >= kMaxConfigDepth) {
      truncated = true;
      break;
    }
    for (std::size_t i = 0; i < node.size(); ++i)
      flatten_yaml(node[i], prefix + "[" + std::to_string(i) + "]", out, truncated, depth + 1);
    break;
  case YAML::NodeType::Scalar:
    out[prefix] = node.Scalar();
    break;
  default:
    out[prefix] = "null";
    break;
  }
}

void note_truncated(RunDirectory &run, const std::string &name, std::uint32_t line) {
  note(run, DiagnosticLevel::Warning, name, line, "nesting-limit",
       "values nested deeper than " + std::to_string(kMaxConfigDepth) + " levels are not compared");
}

// A metrics object of a JSON line or a JSON array element: the step, then
// every numeric field (nested objects flattened).
void add_metrics_object(const json &object, const std::string &name, std::size_t index, RunDirectory &run,
                        bool &any) {
  std::string step_key;
  double step = 0;
  for (const std::string &key : kStepKeys) {
    auto it = object.find(key);
    if (it != object.end() && it->is_number()) {
      step_key = key;
      step = it->get<double>();
      break;
    }
  }
  if (step_key.empty()) {
    note(run, DiagnosticLevel::Note, name, static_cast<std::uint32_t>(index + 1), "metrics-no-step",
         "a metrics entry without a step key (step, global_step, iteration, epoch) is skipped");
    return;
  }
  if (run.step_column.empty())
    run.step_column = step_key;
  std::map<std::string, std::string> flat;
  bool truncated = false;
  flatten_json(object, "", flat, truncated);
  if (truncated)
    note_truncated(run, name, static_cast<std::uint32_t>(index + 1));
  for (const auto &[key, text] : flat) {
    if (key == step_key)
      continue;
    double value = 0;
    if (parse_number(text, value)) {
      add_metric(run, key, name, step, value);
      any = true;
    } else if (to_lower(text) == "nan" || to_lower(text) == "\"nan\"") {
      add_metric(run, key, name, step, std::nan(""));
      any = true;
    }
  }
}

enum class FileRole { Checkpoint, MaybeCheckpoint, Json, JsonLines, Table, Yaml, Seed, Log, Other };

FileRole role_of(const fs::path &file) {
  const std::string name = to_lower(file.filename().string());
  const std::string extension = to_lower(file.extension().string());
  if (name == "seed" || name == "seed.txt")
    return FileRole::Seed;
  if (extension == ".pt" || extension == ".pth" || extension == ".ckpt" || extension == ".safetensors" ||
      ends_with(name, ".pth.tar") || ends_with(name, ".pt.tar"))
    return FileRole::Checkpoint;
  if (extension == ".bin")
    return FileRole::MaybeCheckpoint;
  if (extension == ".json")
    return FileRole::Json;
  if (extension == ".jsonl" || extension == ".ndjson")
    return FileRole::JsonLines;
  if (extension == ".csv" || extension == ".tsv")
    return FileRole::Table;
  if (extension == ".yaml" || extension == ".yml")
    return FileRole::Yaml;
  if (extension == ".log" || extension == ".txt" || extension == ".out" || extension == ".err")
    return FileRole::Log;
  return FileRole::Other;
}

bool is_env_like(const json &object) {
  return object.is_object() && object.contains("python") && object.contains("torch") &&
         object.contains("query_version");
}

} // namespace

const InterpreterRecord *RunDirectory::interpreter() const {
  if (!env)
    return nullptr;
  for (const InterpreterRecord &interpreter : env->interpreters)
    if (interpreter.status == "ok")
      return &interpreter;
  for (const InterpreterRecord &interpreter : env->interpreters)
    if (interpreter.queried())
      return &interpreter;
  return nullptr;
}

bool RunDirectory::on_macos() const {
  const InterpreterRecord *record = interpreter();
  return record && record->on_macos();
}

bool parse_metrics_csv(const std::string &text, const std::string &name, RunDirectory &run) {
  std::istringstream lines(text);
  std::string header_line;
  std::uint32_t line_number = 0;
  while (std::getline(lines, header_line)) {
    ++line_number;
    if (!trim(header_line).empty() && trim(header_line)[0] != '#')
      break;
  }
  const char delimiter = detect_delimiter(header_line);
  const std::vector<std::string> header = split_cells(header_line, delimiter);
  std::size_t step_index = header.size();
  for (const std::string &key : kStepKeys) {
    for (std::size_t i = 0; i < header.size() && step_index == header.size(); ++i)
      if (to_lower(header[i]) == key)
        step_index = i;
    if (step_index != header.size())
      break;
  }
  if (step_index == header.size()) {
    note(run, DiagnosticLevel::Note, name, line_number, "metrics-no-step",
         "no step column (step, global_step, iteration, epoch) in the header: not read as a metric log");
    return false;
  }
  if (run.step_column.empty())
    run.step_column = to_lower(header[step_index]);
  bool any = false;
  std::string line;
  while (std::getline(lines, line)) {
    ++line_number;
    if (trim(line).empty() || trim(line)[0] == '#')
      continue;
    const std::vector<std::string> cells = split_cells(line, delimiter);
    double step = 0;
    if (step_index >= cells.size() || !parse_number(cells[step_index], step)) {
      note(run, DiagnosticLevel::Warning, name, line_number, "metrics-bad-step",
           "the step cell is not a number; the row is skipped");
      continue;
    }
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i) {
      double value = 0;
      if (i != step_index && !header[i].empty() && parse_number(cells[i], value)) {
        add_metric(run, header[i], name, step, value);
        any = true;
      }
    }
  }
  return any;
}

bool parse_metrics_jsonl(const std::string &text, const std::string &name, RunDirectory &run) {
  std::istringstream lines(text);
  std::string line;
  std::size_t index = 0;
  bool any = false;
  while (std::getline(lines, line)) {
    ++index;
    if (trim(line).empty())
      continue;
    json object = json::parse(line, nullptr, false);
    if (object.is_discarded() || !object.is_object()) {
      // Python's json.dumps writes NaN bare; the parser rejects it. Quote it.
      std::string patched;
      for (std::size_t at = 0; at < line.size(); ++at) {
        if ((line.compare(at, 3, "NaN") == 0 || line.compare(at, 8, "Infinity") == 0) &&
            (at == 0 || line[at - 1] == ' ' || line[at - 1] == ':' || line[at - 1] == '-')) {
          const bool nan = line[at] == 'N';
          const bool negative = at > 0 && line[at - 1] == '-';
          if (negative)
            patched.pop_back();
          patched += nan ? "\"nan\"" : (negative ? "\"-inf\"" : "\"inf\"");
          at += nan ? 2 : 7;
        } else {
          patched.push_back(line[at]);
        }
      }
      object = json::parse(patched, nullptr, false);
    }
    if (object.is_discarded() || !object.is_object()) {
      note(run, DiagnosticLevel::Warning, name, static_cast<std::uint32_t>(index), "metrics-bad-line",
           "not a JSON object; the line is skipped");
      continue;
    }
    add_metrics_object(object, name, index - 1, run, any);
  }
  return any;
}

std::vector<FallbackEvidence> scan_log_for_fallbacks(const std::string &text, const std::string &name) {
  struct Pattern {
    const char *needle;
    const char *kind;
  };
  // PyTorch's own texts (aten/src/ATen/mps/MPSFallback.mm and the MPS
  // kernels; docs/acceptance.md lists them).
  static const Pattern patterns[] = {
      {"will fall back to run on the CPU", "fallback-warning"},
      {"is not currently supported on the MPS backend", "fallback-warning"},
      {"is not currently implemented for the MPS device", "not-implemented"},
      {"MPS framework doesn't support float64", "mps-error"},
      {"does not have support for that dtype", "mps-error"},
      {"is only supported on MacOS", "mps-error"},
      {"MPS does not support", "mps-error"},
  };
  std::vector<FallbackEvidence> found;
  std::set<std::pair<std::string, std::string>> seen; // (kind, op): each reported once
  std::istringstream lines(text);
  std::string line;
  std::uint32_t number = 0;
  while (std::getline(lines, line)) {
    ++number;
    for (const Pattern &pattern : patterns) {
      if (line.find(pattern.needle) == std::string::npos)
        continue;
      FallbackEvidence evidence;
      evidence.path = name;
      evidence.line = number;
      evidence.kind = pattern.kind;
      const std::string marker = "operator '";
      if (std::size_t at = line.find(marker); at != std::string::npos) {
        const std::size_t start = at + marker.size();
        const std::size_t end = line.find('\'', start);
        if (end != std::string::npos)
          evidence.op = line.substr(start, end - start);
      }
      evidence.text = trim(line).substr(0, 300);
      if (seen.insert({evidence.kind, evidence.op.empty() ? evidence.text : evidence.op}).second)
        found.push_back(std::move(evidence));
      break;
    }
  }
  return found;
}

void flatten_config(const std::string &text, const std::string &name, RunDirectory &run) {
  const std::string extension = to_lower(fs::path(name).extension().string());
  std::map<std::string, std::string> flat;
  if (extension == ".json") {
    json parsed = json::parse(text, nullptr, false);
    if (parsed.is_discarded()) {
      note(run, DiagnosticLevel::Warning, name, 0, "config-parse-error",
           "not valid JSON; not read as config");
      return;
    }
    bool truncated = false;
    flatten_json(parsed, "", flat, truncated);
    if (truncated)
      note_truncated(run, name, 0);
  } else if (extension == ".yaml" || extension == ".yml") {
    try {
      bool truncated = false;
      flatten_yaml(YAML::Load(text), "", flat, truncated);
      if (truncated)
        note_truncated(run, name, 0);
    } catch (const YAML::Exception &error) {
      note(run, DiagnosticLevel::Warning, name, static_cast<std::uint32_t>(error.mark.line + 1),
           "config-parse-error", std::string("not valid YAML (") + error.msg + "); not read as config");
      return;
    }
  } else {
    const std::string seed = trim(text);
    double value = 0;
    if (!parse_number(seed, value)) {
      note(run, DiagnosticLevel::Warning, name, 1, "seed-not-a-number",
           "a seed file should hold one integer");
      return;
    }
    flat["seed"] = seed;
  }
  for (auto &[key, value] : flat)
    run.config[key] = value;
  run.config_files.push_back(name);
}

namespace {

// The run's files, sorted: hidden files and folders, __pycache__ and what
// lies deeper than kMaxDepth left out, at most kMaxFiles.
std::vector<fs::path> list_run_files(const std::string &path, RunDirectory &run) {
  std::vector<fs::path> files;
  std::error_code error;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, error), end;
  for (; !error && it != end; it.increment(error)) {
    const fs::path &entry = it->path();
    const std::string base = entry.filename().string();
    if (it->is_directory(error)) {
      if ((!base.empty() && base[0] == '.') || base == "__pycache__" || it.depth() >= kMaxDepth)
        it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(error) || (!base.empty() && base[0] == '.'))
      continue;
    files.push_back(entry);
    if (files.size() >= kMaxFiles) {
      note(run, DiagnosticLevel::Warning, path, 0, "too-many-files",
           "more than " + std::to_string(kMaxFiles) + " files; the rest are not read");
      break;
    }
  }
  if (error)
    note(run, DiagnosticLevel::Warning, path, 0, "walk-error",
         "could not list every file: " + error.message());
  std::sort(files.begin(), files.end());
  return files;
}

void read_checkpoint_file(const fs::path &file, const std::string &relative, FileRole role,
                          RunDirectory &run) {
  checkpoint::FileSource source(file.string());
  if (!source.is_open()) {
    note(run, DiagnosticLevel::Error, relative, 0, "unreadable", "cannot open the checkpoint");
    return;
  }
  RunCheckpoint entry{relative, checkpoint::read_checkpoint(source)};
  if (entry.summary.status == "not-a-checkpoint") {
    if (role == FileRole::Checkpoint)
      note(run, DiagnosticLevel::Warning, relative, 0, "not-a-checkpoint", entry.summary.problem);
    return;
  }
  run.checkpoints.push_back(std::move(entry));
}

// A text file of at most kMaxTextBytes; nullopt (with a note) otherwise.
std::optional<std::string> read_text_file(const fs::path &file, const std::string &relative,
                                          RunDirectory &run) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(file, error);
  if (error || size > kMaxTextBytes) {
    note(run, DiagnosticLevel::Note, relative, 0, "too-large", "larger than 64 MB; not read");
    return std::nullopt;
  }
  std::optional<std::string> contents = read_whole_file(file);
  if (!contents)
    note(run, DiagnosticLevel::Error, relative, 0, "unreadable", "cannot read the file");
  return contents;
}

// A JSON file is an environment record, the query script's output, a list
// of metric objects, or config.
void read_json_file(const std::string &text, const std::string &relative, RunDirectory &run,
                    std::vector<std::string> &env_candidates) {
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) {
    note(run, DiagnosticLevel::Warning, relative, 0, "json-parse-error", "not valid JSON; skipped");
    return;
  }
  std::string why;
  if (parsed.is_object() && parsed.value("schema", json()).is_string() &&
      parsed["schema"] == kEnvRecordSchema) {
    env_candidates.push_back(relative);
    if (!run.env) {
      run.env = env_record_from_json(parsed, why);
      if (!run.env)
        note(run, DiagnosticLevel::Error, relative, 0, "bad-env-record", why);
      else
        run.env_path = relative;
    }
  } else if (is_env_like(parsed)) {
    // The query script's own output, saved from a notebook cell.
    InterpreterRecord interpreter;
    interpreter.requested = relative;
    interpreter.source = "imported";
    apply_query_output(text, interpreter);
    env_candidates.push_back(relative);
    if (!run.env) {
      run.env = EnvRecord{};
      run.env->interpreters.push_back(std::move(interpreter));
      run.env_path = relative;
    }
  } else if (parsed.is_array() || (parsed.is_object() && parsed.contains("log_history"))) {
    // A list of metric objects, or Hugging Face's trainer_state.json.
    const json &entries = parsed.is_array() ? parsed : parsed["log_history"];
    bool any = false;
    if (entries.is_array())
      for (std::size_t i = 0; i < entries.size(); ++i)
        if (entries[i].is_object())
          add_metrics_object(entries[i], relative, i, run, any);
    if (any)
      run.metric_files.push_back(relative);
  } else {
    flatten_config(text, relative, run);
  }
}

void read_text_by_role(FileRole role, const std::string &text, const std::string &relative, RunDirectory &run,
                       std::vector<std::string> &env_candidates) {
  switch (role) {
  case FileRole::Json:
    read_json_file(text, relative, run, env_candidates);
    break;
  case FileRole::JsonLines:
    if (parse_metrics_jsonl(text, relative, run))
      run.metric_files.push_back(relative);
    break;
  case FileRole::Table:
    if (parse_metrics_csv(text, relative, run))
      run.metric_files.push_back(relative);
    break;
  case FileRole::Yaml:
  case FileRole::Seed:
    flatten_config(text, relative, run);
    break;
  case FileRole::Log: {
    run.log_files.push_back(relative);
    for (FallbackEvidence &evidence : scan_log_for_fallbacks(text, relative))
      run.fallbacks.push_back(std::move(evidence));
    break;
  }
  default:
    break;
  }
}

} // namespace

RunDirectory read_run_directory(const std::string &path) {
  RunDirectory run;
  run.path = path;
  std::error_code error;
  if (!fs::is_directory(path, error)) {
    note(run, DiagnosticLevel::Error, path, 0, "not-a-directory", "a run must be a directory");
    return run;
  }
  run.exists = true;

  std::vector<std::string> env_candidates;
  for (const fs::path &file : list_run_files(path, run)) {
    const std::string relative = fs::relative(file, path, error).generic_string();
    const FileRole role = role_of(file);
    if (role == FileRole::Other)
      continue;
    if (role == FileRole::Checkpoint || role == FileRole::MaybeCheckpoint) {
      read_checkpoint_file(file, relative, role, run);
      continue;
    }
    if (const std::optional<std::string> text = read_text_file(file, relative, run))
      read_text_by_role(role, *text, relative, run, env_candidates);
  }
  if (env_candidates.size() > 1)
    note(run, DiagnosticLevel::Note, run.env_path, 0, "several-env-records",
         "several environment records; the first (" + run.env_path + ") is used");
  return run;
}

} // namespace mpsaudit::acceptance
