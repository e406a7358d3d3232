// `mpsaudit env` against real interpreters of this machine: Debian's
// /usr/bin/python3 with python3-torch (1.13, installed by `scripts/setup
// --test`), a venv of it without torch, a missing path, and interpreters that
// hang, fail or print nonsense.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../test_support.h"
#include "acceptance/env_query_script.h"
#include "acceptance/env_record.h"
#include "acceptance_test_support.h"
#include "core/confined_file.h"

using namespace mpsaudit::acceptance;
using mpsaudit::testing::check_cases;
using mpsaudit::testing::ScopedVariable;
using mpsaudit::testing::ScratchDirectory;

namespace {

constexpr const char *kTorchPython = "/usr/bin/python3"; // Debian python3 + python3-torch

// A venv of Debian's python3 without system site-packages: a real
// interpreter that cannot import torch.
std::string make_venv_without_torch(const ScratchDirectory &scratch) {
  const std::string venv = (scratch.path() / "venv").string();
  const std::string command =
      std::string(kTorchPython) + " -m venv --without-pip " + venv + " >/dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  return venv + "/bin/python";
}

QueryOptions generous() {
  QueryOptions options;
  options.timeout_seconds = 300; // importing torch cold on a busy machine
  return options;
}

} // namespace

TEST_CASE("the query script is compiled in, and is the file in the source tree", "[env]") {
  const std::optional<std::string> source =
      mpsaudit::read_whole_file(std::string(MPSAUDIT_SOURCE_DIR) + "/analyzer/acceptance/env_query.py");
  REQUIRE(source);
  CHECK(env_query_script() == *source);
  CHECK(env_query_script().find("import torch") != std::string_view::npos);
}

TEST_CASE("an interpreter with torch gives its full record", "[env][torch]") {
  INFO("needs Debian's python3-torch: scripts/setup --test installs it");
  QueryOptions options = generous();
  options.extra_environment = {{"PYTORCH_ENABLE_MPS_FALLBACK", "1"},
                               {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"},
                               {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
  const InterpreterRecord record = query_interpreter(kTorchPython, options);
  REQUIRE(record.status == "ok");
  CHECK(record.error.empty());
  CHECK(record.executable == kTorchPython);
  CHECK(record.python_version.rfind("3.", 0) == 0);
  CHECK(record.implementation == "CPython");
  CHECK(record.system == "Linux");
  CHECK(record.machine == record.native_machine);
  CHECK_FALSE(record.machine_differs());
  CHECK_FALSE(record.rosetta.has_value()); // macOS only
  CHECK(record.torch.importable);
  CHECK(record.torch.version.rfind("1.13", 0) == 0);
  CHECK(record.torch.location.find("torch") != std::string::npos);
  CHECK_FALSE(record.torch.cuda_version.has_value()); // Debian's build is CPU-only
  CHECK(record.torch.cuda_available == std::optional<bool>(false));
  // Two separate facts, both read from torch.backends.mps.
  CHECK(record.torch.mps_built == std::optional<bool>(false));
  CHECK(record.torch.mps_available == std::optional<bool>(false));
  // Only the MPS variables, as the process saw them.
  CHECK(record.variables.at("PYTORCH_ENABLE_MPS_FALLBACK") == "1");
  CHECK(record.variables.at("PYTORCH_MPS_HIGH_WATERMARK_RATIO") == "0.0");
  CHECK_FALSE(record.variables.count("PYTORCH_CUDA_ALLOC_CONF"));
  REQUIRE(record.packages.count("torch"));
  CHECK(record.packages.at("torch").rfind("1.13", 0) == 0);
}

TEST_CASE("an interpreter without torch gives a clear error and its Python facts", "[env]") {
  ScratchDirectory scratch;
  const std::string python = make_venv_without_torch(scratch);
  const InterpreterRecord record = query_interpreter(python, generous());
  CHECK(record.status == "no-torch");
  CHECK(record.queried());
  CHECK(record.torch.missing);
  CHECK(record.error.find("cannot import torch") != std::string::npos);
  CHECK(record.error.find("No module named 'torch'") != std::string::npos);
  CHECK(record.virtual_environment);
  CHECK(record.python_version.rfind("3.", 0) == 0);
  CHECK(record.packages.empty()); // a venv made --without-pip holds no distributions
}

TEST_CASE("the query does not import modules from the working directory", "[env]") {
  ScratchDirectory scratch;
  const std::string python = make_venv_without_torch(scratch);
  // A repository with its own torch.py: importing it would make torch
  // "importable" and print the marker below.
  scratch.write("repo/torch.py", "print('REPOSITORY CODE RAN')\n__version__ = 'fake'\n");
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(scratch.path() / "repo");
  const InterpreterRecord record = query_interpreter(python, generous());
  std::filesystem::current_path(previous);
  CHECK(record.status == "no-torch");
  CHECK(record.torch.version.empty());
}

TEST_CASE("a missing interpreter is reported, not run", "[env]") {
  const InterpreterRecord by_path = query_interpreter("/nonexistent/venv/bin/python");
  CHECK(by_path.status == "not-found");
  CHECK(by_path.error.find("/nonexistent/venv/bin/python") != std::string::npos);
  CHECK_FALSE(by_path.queried());

  const InterpreterRecord by_name = query_interpreter("mpsaudit-no-such-python");
  CHECK(by_name.status == "not-found");
  CHECK(by_name.error.find("on PATH") != std::string::npos);
}

TEST_CASE("an interpreter that hangs is stopped at the time limit", "[env]") {
  ScratchDirectory scratch;
  const std::string python = scratch.write("bin/python", "#!/bin/sh\nsleep 600\n", true);
  QueryOptions options;
  options.timeout_seconds = 1;
  const InterpreterRecord record = query_interpreter(python, options);
  CHECK(record.status == "timeout");
  CHECK(record.error.find("did not answer within 1 s") != std::string::npos);
}

TEST_CASE("interpreters that fail or answer nonsense get an error naming them", "[env]") {
  ScratchDirectory scratch;
  const std::string failing =
      scratch.write("bin/failing", "#!/bin/sh\necho 'SyntaxError: invalid syntax' >&2\nexit 1\n", true);
  const InterpreterRecord failed = query_interpreter(failing);
  CHECK(failed.status == "failed");
  CHECK(failed.error.find("exited with status 1") != std::string::npos);
  CHECK(failed.error.find("SyntaxError") != std::string::npos);

  const std::string garbled = scratch.write(
      "bin/garbled", "#!/bin/sh\necho MPSAUDIT-ENV-BEGIN\necho '{not json'\necho MPSAUDIT-ENV-END\n", true);
  const InterpreterRecord bad = query_interpreter(garbled);
  CHECK(bad.status == "bad-output");
  CHECK(bad.error.find(garbled) != std::string::npos);

  const std::string not_executable = scratch.write("bin/python3", "#!/bin/sh\n", false);
  CHECK(query_interpreter(not_executable).status == "not-executable");
}

TEST_CASE("a record printed elsewhere (a notebook cell) can be read back", "[env]") {
  const std::string bare = R"({"query_version": 1,
    "python": {"executable": "/opt/conda/envs/lab/bin/python", "version": "3.10.14", "implementation": "CPython",
               "prefix": "/opt/conda/envs/lab", "virtual_environment": true},
    "platform": {"system": "Darwin", "machine": "x86_64", "native_machine": "arm64", "os_version": "14.4",
                 "chip": "Apple M1", "rosetta": true, "errors": []},
    "torch": {"importable": true, "version": "2.2.2", "cuda_version": null, "cuda_available": false,
              "mps_built": true, "mps_available": false, "errors": []},
    "variables": {"PYTORCH_ENABLE_MPS_FALLBACK": "1"}, "packages": {"torch": "2.2.2"}})";
  InterpreterRecord record;
  record.requested = "notebook.json";
  REQUIRE(apply_query_output(bare, record));
  CHECK(record.status == "ok");
  CHECK(record.machine_differs()); // x86_64 Python on an arm64 Mac
  CHECK(record.rosetta == std::optional<bool>(true));
  CHECK(record.chip == "Apple M1");
  CHECK(record.torch.mps_built == std::optional<bool>(true));
  CHECK(record.torch.mps_available == std::optional<bool>(false));

  InterpreterRecord nothing;
  CHECK_FALSE(apply_query_output("Traceback (most recent call last):\n", nothing));
  CHECK(nothing.status == "bad-output");
}

TEST_CASE("the env record round-trips through JSON", "[env]") {
  EnvRecord record;
  record.tool_version = "0.1.0";
  record.created = utc_timestamp();
  InterpreterRecord interpreter;
  interpreter.requested = "python3";
  REQUIRE(apply_query_output(R"({"python": {"executable": "/usr/bin/python3", "version": "3.11.2"},
      "platform": {"system": "Linux", "machine": "aarch64", "native_machine": "aarch64"},
      "torch": {"importable": true, "version": "2.4.0+cpu", "cuda_version": null, "cuda_available": false,
                "mps_built": false, "mps_available": false},
      "variables": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "1.5"}, "packages": {"numpy": "1.26.4"}})",
                             interpreter));
  record.interpreters.push_back(interpreter);
  record.disagreements.push_back({"torch-version-differs", "warning", "message", {"a", "b"}});
  const nlohmann::json json = to_json(record);
  CHECK(json["schema"] == "mpsaudit-env-record");
  CHECK(json["interpreters"][0]["platform"]["machine_differs"] == false);
  CHECK(json["interpreters"][0]["torch"]["cuda_version"].is_null());

  std::string error;
  const auto back = env_record_from_json(json, error);
  REQUIRE(back);
  CHECK(to_json(*back) == json);

  CHECK_FALSE(env_record_from_json(nlohmann::json{{"schema", "something-else"}}, error));
  CHECK(error.find("not an environment record") != std::string::npos);
  CHECK_FALSE(
      env_record_from_json(nlohmann::json{{"schema", "mpsaudit-env-record"}, {"schema_version", 99}}, error));
  CHECK(error.find("newer") != std::string::npos);
}

TEST_CASE("a Jupyter kernel is found by name, with the variables it sets", "[env]") {
  ScratchDirectory scratch;
  scratch.write("share/jupyter/kernels/lab-mps/kernel.json",
                R"JSON({"argv": ["/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": "Lab (MPS)", "language": "python",
                    "env": {"PYTORCH_ENABLE_MPS_FALLBACK": "1"}})JSON");
  scratch.write("share/jupyter/kernels/broken/kernel.json", R"({"display_name": "no argv"})");
  ScopedVariable jupyter_path("JUPYTER_PATH", (scratch.path() / "share/jupyter").string());
  std::string error;
  const auto kernel = find_kernel("lab-mps", error);
  REQUIRE(kernel);
  CHECK(kernel->interpreter == "/usr/bin/python3");
  CHECK(kernel->environment.at("PYTORCH_ENABLE_MPS_FALLBACK") == "1");

  CHECK_FALSE(find_kernel("broken", error));
  CHECK(error.find("argv") != std::string::npos);
  CHECK_FALSE(find_kernel("mpsaudit-no-such-kernel", error));
  CHECK(error.find("no Jupyter kernel named") != std::string::npos);
  CHECK_FALSE(find_kernel("../etc", error));
}

TEST_CASE("machine names and torch versions are compared as PyTorch users mean them", "[env]") {
  check_cases(normalize_machine, {{"aarch64", "arm64"}, {"AMD64", "x86_64"}, {"ppc64le", "ppc64le"}});
  check_cases(torch_release,
              {{"2.4.0+cu121", "2.4.0"}, {"1.13.0a0+gitunknown", "1.13.0a0"}, {"2.4.0", "2.4.0"}});
}

// Finding 16 of the security review: `env --import` of a whole `env -o`
// record failed with "no MPSAUDIT-ENV-BEGIN marker", which named neither what
// the file was nor what --import reads.
TEST_CASE("env --import reads a whole env -o record, and names any other file for what it is",
          "[env][security]") {
  InterpreterRecord cell;
  REQUIRE(apply_query_output(R"({"python": {"executable": "/usr/bin/python3", "version": "3.11.2"},
      "platform": {"system": "Darwin", "machine": "arm64", "native_machine": "arm64"},
      "torch": {"importable": true, "version": "2.4.0", "mps_built": true, "mps_available": true}})",
                             cell));
  cell.requested = "python3";
  InterpreterRecord missing;
  missing.requested = "python3.9";
  missing.status = "not-found";
  missing.error = "no python3.9 on PATH";
  EnvRecord record;
  record.interpreters = {cell, missing};
  const std::string full = to_json(record).dump(2);

  const auto imported = import_env_file(full, "runs/mac/env.json");
  REQUIRE(imported.size() == 2);
  CHECK(imported[0].status == "ok");
  CHECK(imported[0].source == "imported");
  CHECK(imported[0].requested == "runs/mac/env.json: python3");
  CHECK(imported[0].executable == "/usr/bin/python3");
  CHECK(imported[0].torch.mps_available == std::optional<bool>(true));
  CHECK(imported[1].status == "not-found"); // kept as recorded: `env` exits 3 for it
  CHECK(imported[1].error == "no python3.9 on PATH");

  // The query script's output still works, with or without its marker lines.
  const auto bare = import_env_file(to_json(cell).dump(), "cell.json");
  REQUIRE(bare.size() == 1);
  CHECK(bare[0].status == "ok");

  const auto expect_bad = [](const std::string &text, const std::string &what) {
    INFO(text);
    const auto bad = import_env_file(text, "f.json");
    REQUIRE(bad.size() == 1);
    CHECK(bad[0].status == "bad-output");
    CHECK(bad[0].source == "imported");
    CHECK(bad[0].error.rfind("f.json: " + what, 0) == 0);
    CHECK(bad[0].error.find("or a record written by `mpsaudit env -o`") != std::string::npos);
  };
  expect_bad(R"({"schema": "mpsaudit-report", "findings": []})",
             "JSON whose \"schema\" is \"mpsaudit-report\", not an environment record; --import expects");
  expect_bad(R"({"findings": []})", "JSON without a \"python\" object");
  expect_bad(R"({"tool": {}, "findings": []})", "an `mpsaudit scan` report, not an environment record");
  expect_bad(R"({"environment": {"torch": "2.4.0"}})",
             "an mpsaudit-probe report (give it to --probe-report)");
  expect_bad("Traceback (most recent call last):\n", "not JSON and no MPSAUDIT-ENV-BEGIN line");

  const auto newer = import_env_file(R"({"schema": "mpsaudit-env-record", "schema_version": 9})", "f.json");
  REQUIRE(newer.size() == 1);
  CHECK(newer[0].status == "bad-output");
  CHECK(newer[0].error.find("schema version 9 is newer") != std::string::npos);
  const auto empty = import_env_file(R"({"schema": "mpsaudit-env-record", "interpreters": []})", "f.json");
  REQUIRE(empty.size() == 1);
  CHECK(empty[0].error == "f.json: an `mpsaudit env -o` record with no interpreters");
  const auto odd = import_env_file(
      R"({"schema": "mpsaudit-env-record", "interpreters": [{"status": "great\u001b[2J"}]})", "f.json");
  REQUIRE(odd.size() == 1);
  CHECK(odd[0].status == "bad-output");
  CHECK(odd[0].error == "f.json: interpreter 1 of the record has an unknown status `great?[2J`");
}
