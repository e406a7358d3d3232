#include <catch2/catch.hpp>

#include <algorithm>

#include "acceptance/disagreements.h"

using namespace mpsaudit::acceptance;
using nlohmann::json;

namespace {

InterpreterRecord interpreter(const std::string &executable, const std::string &system,
                              const std::string &version, std::optional<bool> mps_built,
                              std::optional<bool> mps_available) {
  InterpreterRecord record;
  record.requested = executable;
  record.executable = executable;
  record.status = "ok";
  record.system = system;
  record.machine = system == "Darwin" ? "arm64" : "x86_64";
  record.native_machine = record.machine;
  record.torch.importable = true;
  record.torch.version = version;
  record.torch.mps_built = mps_built;
  record.torch.mps_available = mps_available;
  return record;
}

std::vector<std::string> codes(const std::vector<Disagreement> &disagreements) {
  std::vector<std::string> out;
  for (const auto &disagreement : disagreements)
    out.push_back(disagreement.code);
  return out;
}

const Disagreement &find(const std::vector<Disagreement> &disagreements, const std::string &code) {
  auto it = std::find_if(disagreements.begin(), disagreements.end(),
                         [&](const Disagreement &d) { return d.code == code; });
  REQUIRE(it != disagreements.end());
  return *it;
}

json probe_report(bool built, bool available, const std::string &version) {
  return json{{"environment",
               {{"libtorch_version", version},
                {"mps_built", built},
                {"mps_available", available},
                {"variables", json::object()}}}};
}

} // namespace

TEST_CASE("the probe says MPS is available but the notebook's torch was built without it",
          "[disagreements]") {
  const json probe = probe_report(true, true, "2.4.0");
  const auto found = find_disagreements(
      {interpreter("/Users/lab/notebook/bin/python", "Darwin", "2.4.0", false, false)}, &probe);
  const Disagreement &d = find(found, "mps-not-built");
  CHECK(d.severity == "error");
  CHECK(d.message.find("the probe's LibTorch 2.4.0 says MPS is available") != std::string::npos);
  CHECK(d.message.find("is_built() is False") != std::string::npos);
  CHECK(d.sources == std::vector<std::string>{"/Users/lab/notebook/bin/python", "probe"});
}

TEST_CASE("MPS facts are only flagged where MPS could exist", "[disagreements]") {
  // A Linux CUDA box without a probe: no MPS is normal there.
  CHECK(find_disagreements({interpreter("/usr/bin/python3", "Linux", "2.4.0", false, false)}).empty());
  // On macOS, a torch without MPS is flagged even without a probe.
  CHECK(codes(find_disagreements({interpreter("/usr/bin/python3", "Darwin", "2.4.0", false, false)})) ==
        std::vector<std::string>{"mps-not-built"});
  // Built in but not available on a Mac.
  CHECK(codes(find_disagreements({interpreter("/usr/bin/python3", "Darwin", "2.4.0", true, false)})) ==
        std::vector<std::string>{"mps-not-available"});
  // Both facts true: nothing to say.
  CHECK(find_disagreements({interpreter("/usr/bin/python3", "Darwin", "2.4.0", true, true)}).empty());
}

TEST_CASE("two interpreters with different torch versions", "[disagreements]") {
  const auto found = find_disagreements({interpreter("/venv-a/bin/python", "Darwin", "2.4.0", true, true),
                                         interpreter("/venv-b/bin/python", "Darwin", "2.1.2", true, true)});
  const Disagreement &d = find(found, "torch-version-differs");
  CHECK(d.severity == "warning");
  CHECK(d.message.find("/venv-a/bin/python: torch 2.4.0") != std::string::npos);
  CHECK(d.message.find("/venv-b/bin/python: torch 2.1.2") != std::string::npos);

  // The same release in two builds is a note, not a version difference.
  const auto builds = find_disagreements({interpreter("/a", "Linux", "2.4.0+cpu", false, false),
                                          interpreter("/b", "Linux", "2.4.0+cu121", false, false)});
  CHECK(codes(builds) == std::vector<std::string>{"torch-build-differs"});

  // The probe's LibTorch counts as one more torch.
  const json probe = probe_report(true, true, "2.6.0");
  const auto with_probe = find_disagreements({interpreter("/a", "Darwin", "2.4.0", true, true)}, &probe);
  CHECK(find(with_probe, "torch-version-differs").message.find("LibTorch 2.6.0 (the probe)") !=
        std::string::npos);
}

TEST_CASE("the MPS fallback variable is flagged as PyTorch reads it", "[disagreements]") {
  InterpreterRecord on = interpreter("/a", "Darwin", "2.4.0", true, true);
  on.variables["PYTORCH_ENABLE_MPS_FALLBACK"] = "1";
  const auto with_fallback = find_disagreements({on}); // find() returns a reference into it
  const Disagreement &warning = find(with_fallback, "mps-fallback-set");
  CHECK(warning.severity == "warning");
  CHECK(warning.message.find("silently run on the CPU") != std::string::npos);

  InterpreterRecord off = on;
  off.variables["PYTORCH_ENABLE_MPS_FALLBACK"] = "true"; // std::stoi("true") fails: off
  CHECK(find(find_disagreements({off}), "mps-fallback-set").severity == "note");

  CHECK(fallback_enabled("1"));
  CHECK(fallback_enabled(" 2"));
  CHECK(fallback_enabled("1abc")); // std::stoi reads the leading integer
  CHECK_FALSE(fallback_enabled("0"));
  CHECK_FALSE(fallback_enabled("00"));
  CHECK_FALSE(fallback_enabled("true"));
  CHECK_FALSE(fallback_enabled(""));

  // Set where the probe ran.
  json probe = probe_report(true, true, "2.4.0");
  probe["environment"]["variables"]["PYTORCH_ENABLE_MPS_FALLBACK"] = "1";
  const auto found = find_disagreements({interpreter("/a", "Darwin", "2.4.0", true, true)}, &probe);
  CHECK(find(found, "mps-fallback-set").sources == std::vector<std::string>{"probe"});
}

TEST_CASE("Rosetta, missing torch and unreachable interpreters are flagged", "[disagreements]") {
  InterpreterRecord rosetta = interpreter("/usr/local/bin/python3", "Darwin", "2.2.2", true, false);
  rosetta.machine = "x86_64";
  rosetta.native_machine = "arm64";
  rosetta.rosetta = true;
  const auto found = find_disagreements({rosetta});
  CHECK(find(found, "translated").message.find("Rosetta") != std::string::npos);

  InterpreterRecord no_torch;
  no_torch.executable = "/venv/bin/python";
  no_torch.status = "no-torch";
  no_torch.error = "cannot import torch";
  InterpreterRecord missing;
  missing.requested = "/nope/python";
  missing.status = "not-found";
  missing.error = "interpreter '/nope/python' not found";
  const auto both = find_disagreements({no_torch, missing});
  CHECK(codes(both) == std::vector<std::string>{"no-torch", "interpreter-unavailable"});
}

TEST_CASE("interpreters that see different PYTORCH_MPS_* settings", "[disagreements]") {
  InterpreterRecord a = interpreter("/a", "Darwin", "2.4.0", true, true);
  InterpreterRecord b = interpreter("/b", "Darwin", "2.4.0", true, true);
  a.variables["PYTORCH_MPS_HIGH_WATERMARK_RATIO"] = "0.0";
  CHECK(codes(find_disagreements({a, b})) == std::vector<std::string>{"mps-variables-differ"});
}

TEST_CASE("the probe's environment is found in a probe report or given directly", "[disagreements]") {
  const json report = probe_report(true, false, "2.4.0");
  REQUIRE(probe_environment_of(report) != nullptr);
  CHECK((*probe_environment_of(report))["libtorch_version"] == "2.4.0");
  CHECK(probe_environment_of(report["environment"]) == &report["environment"]);
  CHECK(probe_environment_of(json{{"findings", json::array()}}) == nullptr);
  CHECK(probe_environment_of(json::array()) == nullptr);
}
