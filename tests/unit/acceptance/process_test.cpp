#include <catch2/catch.hpp>

#include "acceptance_test_support.h"
#include "core/process.h"

using namespace mpsaudit;
using mpsaudit::testing::ScratchDirectory;

TEST_CASE("run_process captures both streams and the exit status", "[process]") {
  ProcessRequest request;
  request.argv = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3"};
  const ProcessResult result = run_process(request);
  CHECK(result.launch == "started");
  CHECK(result.exited);
  CHECK(result.exit_status == 3);
  CHECK(result.out == "out\n");
  CHECK(result.err == "err\n");
  CHECK_FALSE(result.timed_out);
}

TEST_CASE("run_process passes extra variables and the working directory", "[process]") {
  ScratchDirectory scratch;
  ProcessRequest request;
  request.argv = {"sh", "-c", "echo \"$MPSAUDIT_TEST_VALUE\"; pwd -P"}; // found on PATH
  request.extra_environment = {{"MPSAUDIT_TEST_VALUE", "from-kernel-json"}};
  request.working_directory = scratch.path().string();
  const ProcessResult result = run_process(request);
  REQUIRE(result.exited);
  CHECK(result.out == "from-kernel-json\n" + std::filesystem::canonical(scratch.path()).string() + "\n");
}

TEST_CASE("run_process reports a missing program and one that cannot be executed", "[process]") {
  ProcessRequest missing;
  missing.argv = {"/nonexistent/bin/python3"};
  CHECK(run_process(missing).launch == "not-found");

  ProcessRequest missing_on_path;
  missing_on_path.argv = {"mpsaudit-no-such-interpreter"};
  CHECK(run_process(missing_on_path).launch == "not-found");

  ScratchDirectory scratch;
  ProcessRequest not_executable;
  not_executable.argv = {scratch.write("python", "#!/bin/sh\necho hi\n", false)};
  CHECK(run_process(not_executable).launch == "not-executable");
}

TEST_CASE("run_process stops a child that does not finish in time", "[process]") {
  ProcessRequest request;
  request.argv = {"/bin/sh", "-c", "echo started; sleep 600"};
  request.timeout_seconds = 0.5;
  const ProcessResult result = run_process(request);
  CHECK(result.launch == "started");
  CHECK(result.timed_out);
  CHECK_FALSE(result.exited);
  CHECK(result.out == "started\n");
}

TEST_CASE("run_process keeps at most max_output_bytes of a stream", "[process]") {
  ProcessRequest request;
  request.argv = {"/bin/sh", "-c", "i=0; while [ $i -lt 200 ]; do echo 0123456789; i=$((i+1)); done"};
  request.max_output_bytes = 100;
  const ProcessResult result = run_process(request);
  CHECK(result.exited);
  CHECK(result.out.size() == 100);
  CHECK(result.output_truncated);
}
