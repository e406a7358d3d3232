// The environment report on this machine (Linux, LibTorch without MPS or
// CUDA in CI), its variable handling, and the binary's re-exec that clears
// PYTORCH_ENABLE_MPS_FALLBACK for the probe's own calls.
#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include <sys/utsname.h>
#include <torch/version.h>

#include "environment.h"

// LibTorch (through glog) defines its own CHECK; Catch2's must win in tests.
#undef CHECK
#include <catch2/catch.hpp>

using namespace mpsaudit::probe;

namespace {

std::string run_command(const std::string &command) {
  std::string output;
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe.get()))
    output += buffer.data();
  return output;
}

} // namespace

TEST_CASE("the environment report describes this LibTorch and machine") {
  std::map<std::string, std::string> variables = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"},
                                                  {"PYTORCH_ENABLE_MPS_FALLBACK", "1"},
                                                  {"PYTORCH_DEBUG_MPS_ALLOCATOR", "1"},
                                                  {"PATH", "/usr/bin"}};
  EnvironmentReport report = probe_environment(variables, true);
  CHECK(report.libtorch_version == TORCH_VERSION);
  struct utsname names {};
  REQUIRE(uname(&names) == 0);
  CHECK(report.arch == names.machine);
#if defined(__APPLE__)
  CHECK(report.os_name == "macOS");
  CHECK(report.rosetta.has_value());
#else
  CHECK(report.os_name == names.sysname);
  CHECK(report.os_version == names.release);
  CHECK_FALSE(report.rosetta.has_value());
  // MPS exists only on macOS builds: built and available are both false here.
  CHECK_FALSE(report.mps_built);
  CHECK_FALSE(report.mps_available);
#endif
  CHECK(report.mps_available <= report.mps_built);
  CHECK(report.cuda_available == (report.cuda_device_count > 0));
  CHECK(report.mps_variables.size() == 3);
  CHECK(report.mps_variables.count("PATH") == 0);
  CHECK(report.mps_fallback_enabled);
  CHECK(report.fallback_cleared_for_probe);
  REQUIRE_FALSE(report.warnings.empty());
  CHECK(report.warnings[0].find("not proof") != std::string::npos);
}

TEST_CASE("the fallback variable is on only for a non-zero integer, as std::stoi reads it") {
  CHECK(fallback_enabled({{"PYTORCH_ENABLE_MPS_FALLBACK", "1"}}));
  CHECK(fallback_enabled({{"PYTORCH_ENABLE_MPS_FALLBACK", "2abc"}}));
  CHECK_FALSE(fallback_enabled({{"PYTORCH_ENABLE_MPS_FALLBACK", "0"}}));
  CHECK_FALSE(fallback_enabled({{"PYTORCH_ENABLE_MPS_FALLBACK", "yes"}}));
  CHECK_FALSE(fallback_enabled({{"PYTORCH_ENABLE_MPS_FALLBACK", ""}}));
  CHECK_FALSE(fallback_enabled({}));
}

TEST_CASE("mpsaudit-probe clears the fallback for itself and still reports the user's value") {
  std::string with = run_command("PYTORCH_ENABLE_MPS_FALLBACK=1 PYTORCH_MPS_FAST_MATH=1 '" +
                                 std::string(MPSAUDIT_PROBE_BINARY) + "' --environment");
  auto json = nlohmann::json::parse(with);
  CHECK(json["mps_fallback_enabled"] == true);
  CHECK(json["fallback_cleared_for_probe"] == true);
  CHECK(json["variables"]["PYTORCH_ENABLE_MPS_FALLBACK"] == "1");
  CHECK(json["variables"]["PYTORCH_MPS_FAST_MATH"] == "1");
  CHECK(json["libtorch_version"] == TORCH_VERSION);

  std::string without = run_command("env -u PYTORCH_ENABLE_MPS_FALLBACK '" +
                                    std::string(MPSAUDIT_PROBE_BINARY) + "' --environment");
  auto plain = nlohmann::json::parse(without);
  CHECK(plain["mps_fallback_enabled"] == false);
  CHECK(plain["fallback_cleared_for_probe"] == false);
  CHECK(plain["warnings"].empty());
}

TEST_CASE("mpsaudit-probe writes the verdict JSON and rejects an unreadable report") {
  const std::string binary = std::string("'") + MPSAUDIT_PROBE_BINARY + "'";
  const std::string report = std::string(MPSAUDIT_PROBE_DATA_DIR) + "/tests/data/sample-report.json";
  auto verdicts = nlohmann::json::parse(
      run_command(binary + " --target cpu --torch-version 2.6 --no-live '" + report + "'"));
  CHECK(verdicts["schema_version"] == 1);
  CHECK(verdicts["tool"] == "mpsaudit-probe");
  CHECK(verdicts["target"] == "cpu");
  CHECK(verdicts["coverage_table"] == "2.6.0");
  CHECK(verdicts["operators"].size() == 79);
  CHECK(verdicts["findings"].size() == 5);
  CHECK(verdicts["operators"][0]["live"]["evidence"] == "not-probeable"); // --no-live
  CHECK(verdicts["summary"]["headline"].get<std::string>().find("PyTorch 2.6.0") != std::string::npos);

  std::string status = run_command(binary + " /nonexistent/report.json >/dev/null 2>&1; echo $?");
  CHECK(status == "2\n");
  status = run_command(binary + " --bogus-flag x.json >/dev/null 2>&1; echo $?");
  CHECK(status == "2\n");
}
