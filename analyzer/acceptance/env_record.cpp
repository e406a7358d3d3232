#include "acceptance/env_record.h"

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "acceptance/env_query_script.h"
#include "core/process.h"
#include "core/text.h"

namespace mpsaudit::acceptance {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Tolerant readers: a record may be hand-edited or come from an older tool;
// a field of the wrong type reads as absent instead of throwing.
std::string text_of(const json &object, const char *key) {
  if (!object.is_object())
    return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::string> optional_text(const json &object, const char *key) {
  if (!object.is_object())
    return std::nullopt;
  auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    return std::nullopt;
  return it->get<std::string>();
}

std::optional<bool> optional_bool(const json &object, const char *key) {
  if (!object.is_object())
    return std::nullopt;
  auto it = object.find(key);
  if (it == object.end() || !it->is_boolean())
    return std::nullopt;
  return it->get<bool>();
}

bool bool_of(const json &object, const char *key, bool fallback) {
  return optional_bool(object, key).value_or(fallback);
}

std::vector<std::string> strings_of(const json &object, const char *key) {
  std::vector<std::string> out;
  if (!object.is_object())
    return out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array())
    return out;
  for (const json &item : *it)
    if (item.is_string())
      out.push_back(item.get<std::string>());
  return out;
}

std::map<std::string, std::string> string_map_of(const json &object, const char *key) {
  std::map<std::string, std::string> out;
  if (!object.is_object())
    return out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_object())
    return out;
  for (const auto &[name, value] : it->items())
    if (value.is_string())
      out[name] = value.get<std::string>();
  return out;
}

json optional_json(const std::optional<std::string> &value) {
  return value ? json(*value) : json(nullptr);
}
json optional_json(const std::optional<bool> &value) {
  return value ? json(*value) : json(nullptr);
}

TorchFacts torch_from_json(const json &object) {
  TorchFacts torch;
  torch.importable = bool_of(object, "importable", false);
  torch.missing = bool_of(object, "missing", false);
  torch.error = text_of(object, "error");
  torch.version = text_of(object, "version");
  torch.location = text_of(object, "location");
  torch.git_version = text_of(object, "git_version");
  torch.cuda_version = optional_text(object, "cuda_version");
  torch.hip_version = optional_text(object, "hip_version");
  torch.cuda_available = optional_bool(object, "cuda_available");
  if (object.is_object() && object.contains("cuda_device_count") &&
      object["cuda_device_count"].is_number_integer())
    torch.cuda_device_count = object["cuda_device_count"].get<int>();
  torch.mps_built = optional_bool(object, "mps_built");
  torch.mps_available = optional_bool(object, "mps_available");
  torch.errors = strings_of(object, "errors");
  return torch;
}

// The last lines of a stream, for an error message.
std::string tail_lines(const std::string &text, std::size_t lines) {
  std::size_t end = text.find_last_not_of(" \n\r\t");
  if (end == std::string::npos)
    return {};
  std::size_t begin = end + 1;
  for (std::size_t count = 0; count < lines && begin > 0; ++count) {
    const std::size_t newline = text.rfind('\n', begin - 1);
    if (newline == std::string::npos) {
      begin = 0;
      break;
    }
    begin = newline;
  }
  std::string tail = text.substr(begin, end + 1 - begin);
  while (!tail.empty() && (tail.front() == '\n' || tail.front() == '\r'))
    tail.erase(tail.begin());
  return tail;
}

std::string one_line(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '\r')
      c = ' ';
  return text;
}

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

// An empty directory to run the query in, so that `-c`'s '' entry of
// sys.path cannot import a module of the directory mpsaudit was run from.
std::string make_empty_directory() {
  std::error_code error;
  fs::path base = fs::temp_directory_path(error);
  if (error)
    base = "/tmp";
  std::string pattern = (base / "mpsaudit-env-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return {};
  return pattern;
}

} // namespace

bool InterpreterRecord::queried() const {
  return status == "ok" || status == "no-torch" || status == "torch-error";
}

std::string normalize_machine(const std::string &machine) {
  if (machine == "aarch64" || machine == "arm64" || machine == "ARM64")
    return "arm64";
  if (machine == "amd64" || machine == "AMD64" || machine == "x86_64" || machine == "x64")
    return "x86_64";
  return machine;
}

bool InterpreterRecord::machine_differs() const {
  if (machine.empty() || native_machine.empty())
    return false;
  return normalize_machine(machine) != normalize_machine(native_machine);
}

std::string torch_release(const std::string &version) {
  return version.substr(0, version.find('+'));
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

bool apply_query_output(const std::string &output, InterpreterRecord &record) {
  std::string payload;
  const std::size_t begin = output.rfind(kEnvQueryBegin);
  if (begin != std::string::npos) {
    const std::size_t start = begin + kEnvQueryBegin.size();
    const std::size_t end = output.find(kEnvQueryEnd, start);
    payload = output.substr(start, end == std::string::npos ? std::string::npos : end - start);
  } else {
    payload = output; // a bare JSON object, as saved from a notebook cell
  }
  json parsed = json::parse(payload, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("python")) {
    record.status = "bad-output";
    record.error = "the query script's output holds no environment record" +
                   std::string(begin == std::string::npos ? " (no " + std::string(kEnvQueryBegin) + " marker)"
                                                          : " (the JSON between the markers does not parse)");
    return false;
  }
  const json &python = parsed["python"];
  record.executable = text_of(python, "executable");
  record.python_version = text_of(python, "version");
  record.implementation = text_of(python, "implementation");
  record.prefix = text_of(python, "prefix");
  record.virtual_environment = bool_of(python, "virtual_environment", false);
  record.user_site_enabled = bool_of(python, "user_site_enabled", true);
  const json platform = parsed.value("platform", json::object());
  record.system = text_of(platform, "system");
  record.machine = text_of(platform, "machine");
  record.native_machine = text_of(platform, "native_machine");
  record.os_version = text_of(platform, "os_version");
  record.chip = text_of(platform, "chip");
  record.rosetta = optional_bool(platform, "rosetta");
  for (const std::string &problem : strings_of(platform, "errors"))
    record.problems.push_back(problem);
  record.torch = torch_from_json(parsed.value("torch", json::object()));
  record.variables = string_map_of(parsed, "variables");
  record.packages = string_map_of(parsed, "packages");
  record.packages_error = text_of(parsed, "packages_error");

  const std::string who = record.executable.empty() ? record.requested : record.executable;
  const std::string python_text =
      record.python_version.empty() ? "" : " (Python " + record.python_version + ")";
  if (record.torch.importable) {
    record.status = "ok";
    record.error.clear();
  } else if (record.torch.missing) {
    record.status = "no-torch";
    record.error = who + python_text + " cannot import torch (" + record.torch.error +
                   "): torch is not installed for this interpreter. Install it there, or name the "
                   "interpreter that runs the model with --python.";
  } else {
    record.status = "torch-error";
    record.error = who + python_text + " has torch, but importing it failed: " + record.torch.error;
  }
  return true;
}

namespace {

constexpr const char *kImportExpected =
    "--import expects the query script's output (`mpsaudit env --print-script` run in the interpreter: the "
    "JSON "
    "between its MPSAUDIT-ENV-BEGIN and MPSAUDIT-ENV-END lines, or that JSON object alone) or a record "
    "written by `mpsaudit env -o`";

bool known_status(const std::string &status) {
  for (const char *known :
       {"ok", "no-torch", "torch-error", "not-found", "not-executable", "timeout", "failed", "bad-output"})
    if (status == known)
      return true;
  return false;
}

// A short copy of untrusted text, safe to print.
std::string printable(const std::string &text) {
  std::string out = sanitize_utf8(text.substr(0, 60));
  for (char &c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return out;
}

InterpreterRecord bad_import(const std::string &file, const std::string &what) {
  InterpreterRecord record;
  record.requested = file;
  record.source = "imported";
  record.status = "bad-output";
  record.error = file + ": " + what;
  return record;
}

// What a file that holds no environment record holds instead.
std::string what_is_not_a_record(const json &parsed) {
  if (parsed.is_discarded())
    return "not JSON and no MPSAUDIT-ENV-BEGIN line";
  if (parsed.is_object() && parsed.contains("findings") && parsed.contains("tool"))
    return "an `mpsaudit scan` report, not an environment record";
  if (parsed.is_object() && parsed.contains("environment") && parsed["environment"].is_object())
    return "an mpsaudit-probe report (give it to --probe-report), not an environment record";
  return "JSON without a \"python\" object";
}

// The interpreters of a whole `env -o` record.
std::vector<InterpreterRecord> import_record(const json &parsed, const std::string &file) {
  std::string error;
  const std::optional<EnvRecord> record = env_record_from_json(parsed, error);
  if (!record)
    return {bad_import(file, error)};
  if (record->interpreters.empty())
    return {bad_import(file, "an `mpsaudit env -o` record with no interpreters")};
  std::vector<InterpreterRecord> out;
  for (std::size_t i = 0; i < record->interpreters.size(); ++i) {
    InterpreterRecord interpreter = record->interpreters[i];
    if (!known_status(interpreter.status)) {
      out.push_back(
          bad_import(file, "interpreter " + std::to_string(i + 1) + " of the record has " +
                               (interpreter.status.empty()
                                    ? std::string("no status")
                                    : "an unknown status `" + printable(interpreter.status) + "`")));
      continue;
    }
    interpreter.requested = file + (interpreter.requested.empty() ? "" : ": " + interpreter.requested);
    interpreter.source = "imported";
    out.push_back(std::move(interpreter));
  }
  return out;
}

} // namespace

std::vector<InterpreterRecord> import_env_file(const std::string &text, const std::string &file) {
  if (text.find(kEnvQueryBegin) == std::string::npos) {
    const json parsed = json::parse(text, nullptr, false);
    if (parsed.is_object() && parsed.contains("schema")) {
      const std::string schema = text_of(parsed, "schema");
      if (schema == kEnvRecordSchema)
        return import_record(parsed, file);
      return {bad_import(
          file, "JSON whose \"schema\" is " +
                    (schema.empty() ? std::string("not a string") : "\"" + printable(schema) + "\"") +
                    ", not an environment record; " + kImportExpected)};
    }
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("python"))
      return {bad_import(file, what_is_not_a_record(parsed) + "; " + kImportExpected)};
  }
  InterpreterRecord record;
  record.requested = file;
  record.source = "imported";
  if (!apply_query_output(text, record))
    record.error = file + ": " + record.error;
  return {record};
}

InterpreterRecord query_interpreter(const std::string &interpreter, const QueryOptions &options) {
  InterpreterRecord record;
  record.requested = interpreter;
  const std::string directory = make_empty_directory();
  ProcessRequest request;
  // No -I: isolated mode also drops user site-packages and PYTHONPATH, where
  // `pip install --user torch` (the default for macOS's system Python) puts
  // torch, and the record must show what the user's code imports. The empty
  // working directory and the script's own sys.path cleanup keep the
  // repository's modules out instead.
  request.argv = {interpreter, "-c", std::string(env_query_script())};
  request.extra_environment = options.extra_environment;
  request.working_directory = directory;
  request.timeout_seconds = options.timeout_seconds;
  const ProcessResult result = run_process(request);
  if (!directory.empty()) {
    std::error_code ignored;
    fs::remove_all(directory, ignored);
  }
  record.seconds = result.seconds;

  const bool on_path = interpreter.find('/') == std::string::npos;
  if (result.launch == "not-found") {
    record.status = "not-found";
    record.error = "interpreter '" + interpreter + "' not found" + (on_path ? " on PATH" : "") + " (" +
                   result.launch_error + ")";
    return record;
  }
  if (result.launch == "not-executable") {
    record.status = "not-executable";
    record.error = "interpreter '" + interpreter + "' cannot be executed (" + result.launch_error +
                   "): is it a Python executable, with the execute bit set?";
    return record;
  }
  if (result.launch != "started") {
    record.status = "failed";
    record.error = "could not start '" + interpreter + "': " + result.launch_error;
    return record;
  }
  if (result.timed_out) {
    record.status = "timeout";
    record.error = "interpreter '" + interpreter + "' did not answer within " +
                   seconds_text(options.timeout_seconds) + " s and was stopped; check that `" + interpreter +
                   " -c 'import torch'` finishes, or raise --timeout";
    return record;
  }
  const bool answered = result.out.find(kEnvQueryBegin) != std::string::npos;
  if (!answered) {
    record.status = "failed";
    std::string why = result.exited ? "exited with status " + std::to_string(result.exit_status)
                                    : "was killed by signal " + std::to_string(result.signal);
    const std::string detail = one_line(tail_lines(result.err.empty() ? result.out : result.err, 2));
    record.error = "interpreter '" + interpreter + "' " + why + " without answering the query" +
                   (detail.empty() ? std::string() : ": " + detail) + " (is it Python 3.5 or newer?)";
    return record;
  }
  apply_query_output(result.out, record);
  if (record.status == "bad-output")
    record.error = "interpreter '" + interpreter + "': " + record.error;
  return record;
}

std::optional<KernelSpec> find_kernel(const std::string &name, std::string &error) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    error = "'" + name + "' is not a kernel name";
    return std::nullopt;
  }
  std::vector<fs::path> roots;
  auto add_list = [&roots](const char *variable, const char *suffix) {
    const char *value = std::getenv(variable);
    if (!value || !*value)
      return;
    std::stringstream parts(value);
    std::string part;
    while (std::getline(parts, part, ':'))
      if (!part.empty())
        roots.push_back(fs::path(part) / suffix);
  };
  add_list("JUPYTER_PATH", "kernels");
  add_list("JUPYTER_DATA_DIR", "kernels");
  if (const char *home = std::getenv("HOME"); home && *home) {
#if defined(__APPLE__)
    roots.push_back(fs::path(home) / "Library/Jupyter/kernels");
#endif
    const char *data_home = std::getenv("XDG_DATA_HOME");
    roots.push_back((data_home && *data_home ? fs::path(data_home) : fs::path(home) / ".local/share") /
                    "jupyter/kernels");
  }
  roots.push_back("/usr/local/share/jupyter/kernels");
  roots.push_back("/usr/share/jupyter/kernels");

  for (const fs::path &root : roots) {
    const fs::path file = root / name / "kernel.json";
    std::error_code missing;
    if (!fs::is_regular_file(file, missing))
      continue;
    std::ifstream in(file);
    json spec = json::parse(in, nullptr, false);
    if (spec.is_discarded() || !spec.is_object() || !spec.contains("argv") || !spec["argv"].is_array() ||
        spec["argv"].empty() || !spec["argv"][0].is_string()) {
      error = file.string() + " is not a kernel spec with an argv list";
      return std::nullopt;
    }
    KernelSpec kernel;
    kernel.name = name;
    kernel.directory = (root / name).string();
    kernel.interpreter = spec["argv"][0].get<std::string>();
    kernel.environment = string_map_of(spec, "env");
    return kernel;
  }
  error = "no Jupyter kernel named '" + name + "' (looked for kernels/" + name +
          "/kernel.json under $JUPYTER_PATH and the Jupyter data directories; `jupyter kernelspec list` "
          "shows them)";
  return std::nullopt;
}

json to_json(const TorchFacts &torch) {
  return json{{"importable", torch.importable},
              {"missing", torch.missing},
              {"error", torch.error},
              {"version", torch.version},
              {"location", torch.location},
              {"git_version", torch.git_version},
              {"cuda_version", optional_json(torch.cuda_version)},
              {"hip_version", optional_json(torch.hip_version)},
              {"cuda_available", optional_json(torch.cuda_available)},
              {"cuda_device_count", torch.cuda_device_count},
              {"mps_built", optional_json(torch.mps_built)},
              {"mps_available", optional_json(torch.mps_available)},
              {"errors", torch.errors}};
}

json to_json(const InterpreterRecord &record) {
  json out{{"requested", record.requested},
           {"source", record.source},
           {"status", record.status},
           {"error", record.error},
           {"seconds", record.seconds},
           {"python",
            {{"executable", record.executable},
             {"version", record.python_version},
             {"implementation", record.implementation},
             {"prefix", record.prefix},
             {"virtual_environment", record.virtual_environment},
             {"user_site_enabled", record.user_site_enabled}}},
           {"platform",
            {{"system", record.system},
             {"machine", record.machine},
             {"native_machine", record.native_machine},
             {"machine_differs", record.machine_differs()},
             {"os_version", record.os_version},
             {"chip", record.chip},
             {"rosetta", optional_json(record.rosetta)}}},
           {"torch", record.queried() ? to_json(record.torch) : json(nullptr)},
           {"variables", record.variables},
           {"packages", record.packages},
           {"packages_error", record.packages_error},
           {"problems", record.problems}};
  return out;
}

json to_json(const Disagreement &disagreement) {
  return json{{"code", disagreement.code},
              {"severity", disagreement.severity},
              {"message", disagreement.message},
              {"sources", disagreement.sources}};
}

json to_json(const EnvRecord &record) {
  json interpreters = json::array();
  for (const auto &interpreter : record.interpreters)
    interpreters.push_back(to_json(interpreter));
  json disagreements = json::array();
  for (const auto &disagreement : record.disagreements)
    disagreements.push_back(to_json(disagreement));
  json out{{"schema", kEnvRecordSchema},          {"schema_version", record.schema_version},
           {"tool_version", record.tool_version}, {"created", record.created},
           {"interpreters", interpreters},        {"disagreements", disagreements}};
  out["probe_environment"] = record.probe_environment ? *record.probe_environment : json(nullptr);
  return out;
}

InterpreterRecord interpreter_from_json(const json &object) {
  InterpreterRecord record;
  record.requested = text_of(object, "requested");
  record.source = text_of(object, "source");
  record.status = text_of(object, "status");
  record.error = text_of(object, "error");
  if (object.is_object() && object.contains("seconds") && object["seconds"].is_number())
    record.seconds = object["seconds"].get<double>();
  const json python = object.is_object() ? object.value("python", json::object()) : json::object();
  record.executable = text_of(python, "executable");
  record.python_version = text_of(python, "version");
  record.implementation = text_of(python, "implementation");
  record.prefix = text_of(python, "prefix");
  record.virtual_environment = bool_of(python, "virtual_environment", false);
  record.user_site_enabled = bool_of(python, "user_site_enabled", true);
  const json platform = object.is_object() ? object.value("platform", json::object()) : json::object();
  record.system = text_of(platform, "system");
  record.machine = text_of(platform, "machine");
  record.native_machine = text_of(platform, "native_machine");
  record.os_version = text_of(platform, "os_version");
  record.chip = text_of(platform, "chip");
  record.rosetta = optional_bool(platform, "rosetta");
  if (object.is_object() && object.contains("torch") && object["torch"].is_object())
    record.torch = torch_from_json(object["torch"]);
  record.variables = string_map_of(object, "variables");
  record.packages = string_map_of(object, "packages");
  record.packages_error = text_of(object, "packages_error");
  record.problems = strings_of(object, "problems");
  return record;
}

std::optional<EnvRecord> env_record_from_json(const json &object, std::string &error) {
  if (!object.is_object() || text_of(object, "schema") != kEnvRecordSchema) {
    error = std::string("not an environment record (no \"schema\": \"") + kEnvRecordSchema + "\")";
    return std::nullopt;
  }
  EnvRecord record;
  if (object.contains("schema_version") && object["schema_version"].is_number_integer())
    record.schema_version = object["schema_version"].get<int>();
  if (record.schema_version > kEnvRecordSchemaVersion) {
    error = "environment record schema version " + std::to_string(record.schema_version) +
            " is newer than this mpsaudit reads (" + std::to_string(kEnvRecordSchemaVersion) + ")";
    return std::nullopt;
  }
  record.tool_version = text_of(object, "tool_version");
  record.created = text_of(object, "created");
  if (object.contains("interpreters") && object["interpreters"].is_array())
    for (const json &interpreter : object["interpreters"])
      record.interpreters.push_back(interpreter_from_json(interpreter));
  if (object.contains("probe_environment") && object["probe_environment"].is_object())
    record.probe_environment = object["probe_environment"];
  if (object.contains("disagreements") && object["disagreements"].is_array())
    for (const json &item : object["disagreements"]) {
      Disagreement disagreement;
      disagreement.code = text_of(item, "code");
      disagreement.severity = text_of(item, "severity");
      disagreement.message = text_of(item, "message");
      disagreement.sources = strings_of(item, "sources");
      record.disagreements.push_back(std::move(disagreement));
    }
  return record;
}

namespace {

std::string yes_no(const std::optional<bool> &value) {
  return value ? (*value ? "yes" : "no") : "unknown";
}

} // namespace

std::string env_record_text(const EnvRecord &record) {
  std::ostringstream out;
  out << "Python environments (" << counted(record.interpreters.size(), "interpreter") << ")\n";
  for (const InterpreterRecord &interpreter : record.interpreters) {
    out << "\n" << interpreter.requested;
    if (interpreter.source == "kernel")
      out << " (Jupyter kernel)";
    else if (interpreter.source == "imported")
      out << " (imported record)";
    if (!interpreter.executable.empty() && interpreter.executable != interpreter.requested)
      out << " -> " << interpreter.executable;
    out << "\n";
    if (!interpreter.queried()) {
      out << "  error (" << interpreter.status << "): " << interpreter.error << "\n";
      continue;
    }
    out << "  Python " << interpreter.python_version << " (" << interpreter.implementation << ")"
        << (interpreter.virtual_environment ? ", virtual environment " + interpreter.prefix : std::string())
        << "\n";
    out << "  platform: " << interpreter.system << " " << interpreter.os_version << ", "
        << interpreter.machine;
    if (interpreter.machine_differs())
      out << " on a " << interpreter.native_machine << " machine (translated)";
    if (!interpreter.chip.empty())
      out << ", " << interpreter.chip;
    if (interpreter.rosetta)
      out << ", Rosetta: " << yes_no(interpreter.rosetta);
    out << "\n";
    if (interpreter.status != "ok") {
      out << "  torch: " << interpreter.status << ": " << interpreter.error << "\n";
    } else {
      const TorchFacts &torch = interpreter.torch;
      out << "  torch " << torch.version << " at " << torch.location << "\n"
          << "    CUDA: "
          << (torch.cuda_version ? "built for CUDA " + *torch.cuda_version : std::string("not built"))
          << ", available: " << yes_no(torch.cuda_available);
      if (torch.cuda_available.value_or(false))
        out << " (" << torch.cuda_device_count << " device" << (torch.cuda_device_count == 1 ? "" : "s")
            << ")";
      out << "\n    MPS: built: " << yes_no(torch.mps_built) << ", available: " << yes_no(torch.mps_available)
          << "\n";
      for (const std::string &problem : torch.errors)
        out << "    note: " << problem << "\n";
    }
    if (interpreter.variables.empty()) {
      out << "  MPS variables: none set\n";
    } else {
      out << "  MPS variables:";
      for (const auto &[name, value] : interpreter.variables)
        out << " " << name << "=" << value;
      out << "\n";
    }
    out << "  packages: " << interpreter.packages.size() << " installed"
        << (interpreter.packages_error.empty() ? std::string() : " (" + interpreter.packages_error + ")")
        << "\n";
    for (const std::string &problem : interpreter.problems)
      out << "  note: " << problem << "\n";
  }
  if (record.probe_environment) {
    const json &probe = *record.probe_environment;
    out << "\nLibTorch probe: " << text_of(probe, "libtorch_version")
        << ", MPS built: " << yes_no(optional_bool(probe, "mps_built"))
        << ", available: " << yes_no(optional_bool(probe, "mps_available")) << "\n";
  }
  out << "\n";
  if (record.disagreements.empty()) {
    out << "No disagreements.\n";
  } else {
    out << "Disagreements (" << record.disagreements.size() << "):\n";
    for (const Disagreement &disagreement : record.disagreements)
      out << "  " << disagreement.severity << " [" << disagreement.code << "] " << disagreement.message
          << "\n";
  }
  return out.str();
}

} // namespace mpsaudit::acceptance
