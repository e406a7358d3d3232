#include "core/isolated_worker.h"

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

using namespace mpsaudit;
using namespace std::chrono_literals;

namespace {

// The request names what the child does.
std::string obey(const std::string &request) {
  if (request == "sleep")
    std::this_thread::sleep_for(60s);
  if (request == "abort")
    std::abort();
  if (request == "linger") {
    // Closes its socket, then lives on without answering.
    for (int fd = 3; fd < 1024; ++fd)
      ::close(fd);
    std::this_thread::sleep_for(60s);
  }
  if (request == "allocate") {
    std::vector<std::string> hoard;
    for (;;)
      hoard.emplace_back(64u << 20, 'x');
  }
  if (request == "out of memory")
    exit_isolated_out_of_memory();
  if (request == "throw")
    throw std::runtime_error("no");
  if (request.rfind("big ", 0) == 0)
    return std::string(std::stoul(request.substr(4)), 'y');
  return "echo:" + request;
}

IsolationLimits within(std::chrono::milliseconds time, std::uint64_t memory_bytes = 0) {
  IsolationLimits limits;
  limits.deadline = std::chrono::steady_clock::now() + time;
  limits.memory_bytes = memory_bytes;
  return limits;
}

} // namespace

TEST_CASE("a worker answers requests from one long-lived child", "[core][isolation]") {
  IsolatedWorker worker(&obey);
  const IsolationResult first = worker.call("one", within(10s));
  CHECK(first.outcome == IsolationOutcome::Finished);
  CHECK(first.answer == "echo:one");
  const pid_t child = worker.child();
  CHECK(child > 0);
  const IsolationResult second = worker.call("two", within(10s));
  CHECK(second.answer == "echo:two");
  CHECK(worker.child() == child);
  // An answer larger than the socket's buffers, and a request as large.
  CHECK(worker.call("big 5000000", within(10s)).answer.size() == 5000000);
  CHECK(worker.call(std::string(3000000, 'r'), within(10s)).answer.size() == 3000005);
  worker.stop();
  CHECK(worker.child() == -1);
}

TEST_CASE("a request past its deadline kills the child, and the next starts another", "[core][isolation]") {
  IsolatedWorker worker(&obey);
  REQUIRE(worker.call("warm", within(10s)).outcome == IsolationOutcome::Finished);
  const pid_t before = worker.child();
  const auto started = std::chrono::steady_clock::now();
  const IsolationResult slow = worker.call("sleep", within(300ms));
  CHECK(slow.outcome == IsolationOutcome::TimedOut);
  CHECK(slow.answer.empty());
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  CHECK(worker.child() == -1);
  CHECK(::kill(before, 0) != 0); // gone, and reaped
  const IsolationResult next = worker.call("after", within(10s));
  CHECK(next.answer == "echo:after");
  CHECK(worker.child() != before);
}

TEST_CASE("a child that dies is reported, never its parent", "[core][isolation]") {
  IsolatedWorker worker(&obey);
  CHECK(worker.call("abort", within(10s)).outcome == IsolationOutcome::Crashed);
  CHECK(worker.call("throw", within(10s)).outcome == IsolationOutcome::Crashed);
  CHECK(worker.call("out of memory", within(10s)).outcome == IsolationOutcome::OutOfMemory);
  CHECK(worker.call("still here", within(10s)).answer == "echo:still here");
}

TEST_CASE("a child that closes its socket and lives on is killed, not waited for", "[core][isolation]") {
  IsolatedWorker worker(&obey);
  REQUIRE(worker.call("warm", within(10s)).outcome == IsolationOutcome::Finished);
  const pid_t lingering = worker.child();
  const auto started = std::chrono::steady_clock::now();
  CHECK(worker.call("linger", within(30s)).outcome == IsolationOutcome::Crashed);
  CHECK(std::chrono::steady_clock::now() - started < 10s);
  CHECK(::kill(lingering, 0) != 0); // gone, and reaped
  CHECK(worker.call("next", within(10s)).answer == "echo:next");
}

// (Not under AddressSanitizer, whose allocator reports a refused
// allocation as its own error rather than to new's handler.)
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
TEST_CASE("the memory cap stops a child that allocates without end", "[core][isolation]") {
  IsolatedWorker worker(&obey);
  const IsolationResult hoarder = worker.call("allocate", within(30s, 256ull << 20));
  CHECK(hoarder.outcome == IsolationOutcome::OutOfMemory);
  CHECK(worker.call("small", within(10s, 256ull << 20)).answer == "echo:small");
}
#endif

TEST_CASE("a child killed between requests is replaced", "[core][isolation]") {
  IsolatedWorker worker(&obey);
  REQUIRE(worker.call("first", within(10s)).outcome == IsolationOutcome::Finished);
  const pid_t child = worker.child();
  REQUIRE(::kill(child, SIGKILL) == 0);
  std::this_thread::sleep_for(100ms);
  const IsolationResult next = worker.call("second", within(10s));
  CHECK(next.outcome == IsolationOutcome::Finished);
  CHECK(next.answer == "echo:second");
  CHECK(worker.child() != child);
}

namespace {

// A worker program in Python: answers each frame on descriptor 3 with the
// cap it was given and the request (frames: a little-endian size, a flag
// byte, the payload).
const char *kEchoProgram = R"(
import os, socket, struct, sys
channel = socket.socket(fileno=3)
def read(n):
    data = b''
    while len(data) < n:
        part = channel.recv(n - len(data))
        if not part:
            sys.exit(0)
        data += part
    return data
while True:
    size = struct.unpack('<Q', read(9)[:8])[0]
    answer = ('program:' + sys.argv[-1] + ':').encode() + read(size)
    channel.sendall(struct.pack('<Q', len(answer)) + b'\0' + answer)
)";

} // namespace

TEST_CASE("a worker program gets its requests on descriptor 3 and the cap as its last argument",
          "[core][isolation]") {
  IsolatedWorker worker(&obey, {"/usr/bin/env", "python3", "-c", kEchoProgram});
  const IsolationResult first = worker.call("one", within(20s, 123456789));
  REQUIRE(first.outcome == IsolationOutcome::Finished);
  CHECK(first.answer == "program:123456789:one");
  const pid_t child = worker.child();
  CHECK(worker.call("two", within(20s, 123456789)).answer == "program:123456789:two");
  CHECK(worker.child() == child);
  // Another cap: another program, started with it.
  CHECK(worker.call("three", within(20s)).answer == "program:0:three");
  CHECK(worker.child() != child);
}

TEST_CASE("a worker program that cannot be run is reported as a crashed child", "[core][isolation]") {
  IsolatedWorker worker(&obey, {"/nonexistent/mpsaudit-worker", "__parse-worker"});
  CHECK(worker.call("one", within(10s)).outcome == IsolationOutcome::Crashed);
  CHECK(worker.call("two", within(10s)).outcome == IsolationOutcome::Crashed);
}
