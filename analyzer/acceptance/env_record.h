// The environment record (`mpsaudit env`): what each of the user's own Python
// interpreters sees, because the interpreter that runs the model (a notebook
// kernel, an IDE's venv, a Rosetta shell) may hold a different torch build
// from the LibTorch the probe checked. The JSON form is documented in
// docs/env-record.schema.json and docs/acceptance.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpsaudit::acceptance {

inline constexpr const char *kEnvRecordSchema = "mpsaudit-env-record";
inline constexpr int kEnvRecordSchemaVersion = 1;

struct TorchFacts {
  bool importable = false;
  bool missing = false; // ImportError: torch is not installed for this interpreter
  std::string error;    // why it could not be imported
  std::string version;  // torch.__version__
  std::string location; // the torch package directory
  std::string git_version;
  std::optional<std::string> cuda_version; // torch.version.cuda; absent for CPU and MPS builds
  std::optional<std::string> hip_version;  // torch.version.hip
  std::optional<bool> cuda_available;      // torch.cuda.is_available()
  int cuda_device_count = 0;
  std::optional<bool> mps_built;     // torch.backends.mps.is_built()
  std::optional<bool> mps_available; // torch.backends.mps.is_available()
  std::vector<std::string> errors;   // facts that could not be read
};

struct InterpreterRecord {
  std::string requested; // as the user named it: a path, a name on PATH, a kernel name
  // command-line | default | kernel | imported
  std::string source = "command-line";
  // ok | no-torch | torch-error | not-found | not-executable | timeout | failed | bad-output
  std::string status = "failed";
  std::string error; // one or two sentences, when status is not ok
  double seconds = 0;

  // sys.executable, platform.python_version(), ...
  std::string executable, python_version, implementation, prefix;
  bool virtual_environment = false;
  bool user_site_enabled = true;

  // platform.system(), platform.machine(), and the machine's own architecture
  // (on macOS from hw.optional.arm64, so that it is right under Rosetta).
  std::string system, machine, native_machine;
  std::string os_version;      // macOS product version, or the kernel release elsewhere
  std::string chip;            // macOS: machdep.cpu.brand_string
  std::optional<bool> rosetta; // macOS: sysctl.proc_translated

  TorchFacts torch;
  std::map<std::string, std::string>
      variables; // PYTORCH_ENABLE_MPS_FALLBACK, PYTORCH_MPS_*, PYTORCH_DEBUG_MPS_*
  std::map<std::string, std::string> packages; // importlib.metadata: name -> version
  std::string packages_error;
  std::vector<std::string> problems; // facts of the platform that could not be read

  bool queried() const; // the script ran and answered (ok, no-torch, torch-error)
  // platform.machine() differs from the native architecture (x86_64 Python
  // on an arm64 Mac). aarch64/arm64 and amd64/x86_64 count as the same.
  bool machine_differs() const;
  bool on_macos() const { return system == "Darwin"; }
};

// A fact two sources disagree on, or a setting that makes evidence weaker
// (see disagreements.h for the codes).
struct Disagreement {
  std::string code;
  std::string severity; // error | warning | note
  std::string message;
  std::vector<std::string> sources; // interpreter executables (or requested names), "probe"
};

struct EnvRecord {
  int schema_version = kEnvRecordSchemaVersion;
  std::string tool_version;
  std::string created; // UTC, ISO 8601
  std::vector<InterpreterRecord> interpreters;
  std::optional<nlohmann::json> probe_environment; // the probe's environment, when given
  std::vector<Disagreement> disagreements;
};

struct QueryOptions {
  double timeout_seconds = 120;                         // importing torch cold can take tens of seconds
  std::map<std::string, std::string> extra_environment; // e.g. a Jupyter kernel's "env"
};

// Runs the query script (env_query_script.h) in `interpreter` and returns its
// record. Never throws; a missing, broken, torch-less or hanging interpreter
// gives a record whose status and error say so.
InterpreterRecord query_interpreter(const std::string &interpreter, const QueryOptions &options = {});

// Fills `record` from the script's stdout (the JSON between the marker lines,
// or a bare JSON object, as a user may paste from a notebook cell). Returns
// false, with status bad-output and an error, when there is no record in it.
bool apply_query_output(const std::string &output, InterpreterRecord &record);

// Reads a file given to `mpsaudit env --import`: the query script's output
// (the JSON between its marker lines, or that JSON object alone) or a whole
// record written by `mpsaudit env -o`, whose interpreters are all taken.
// Every interpreter returned has source "imported". A file that is neither
// gives one interpreter with status bad-output and an error that names the
// file, says what it holds and what --import expects.
std::vector<InterpreterRecord> import_env_file(const std::string &text, const std::string &file);

// A Jupyter kernel: its interpreter (argv[0] of kernel.json) and the
// environment variables the kernel sets, which the notebook sees and a
// shell does not.
struct KernelSpec {
  std::string name, directory, interpreter;
  std::map<std::string, std::string> environment;
};
// Looks for kernels/<name>/kernel.json under $JUPYTER_PATH, $JUPYTER_DATA_DIR,
// the per-user data directory and the system ones. Sets `error` when absent
// or unreadable.
std::optional<KernelSpec> find_kernel(const std::string &name, std::string &error);

nlohmann::json to_json(const TorchFacts &torch);
nlohmann::json to_json(const InterpreterRecord &record);
nlohmann::json to_json(const Disagreement &disagreement);
nlohmann::json to_json(const EnvRecord &record);

// Reads a record written by to_json (missing fields keep their defaults).
// Returns nothing, with `error` set, when `json` is not an env record.
std::optional<EnvRecord> env_record_from_json(const nlohmann::json &json, std::string &error);
InterpreterRecord interpreter_from_json(const nlohmann::json &json);

// "arm64" for aarch64/arm64, "x86_64" for amd64/x86_64, else unchanged.
std::string normalize_machine(const std::string &machine);
// The release part of a torch version: "2.4.0+cu121" -> "2.4.0".
std::string torch_release(const std::string &version);
// UTC now as 2026-11-30T05:50:00Z.
std::string utc_timestamp();

// Human-readable summary of a record (the default output of `mpsaudit env`).
std::string env_record_text(const EnvRecord &record);

} // namespace mpsaudit::acceptance
