// Running a piece of this program in a child process that can be killed.
//
// Some work on attacker-controlled input cannot be bounded from inside:
// clang's preprocessor, given `B(B(B(...)))` with `#define B(x) x x`,
// doubles its token buffer at every level without calling back into us, and
// no callback can stop a Sema that is busy instantiating. Such work runs in
// a worker: a child process that answers requests one at a time, each under
// a deadline, the whole child under a cap on the address space it may add.
// A request that runs past its deadline, or an allocation refused under the
// cap, ends the child; the next request starts another. Whatever happens in
// the child, the caller gets a result: the answer, or why there is none.
//
// How the child starts:
// - a worker program (mpsaudit-parse-worker, beside the C++ plugin): fork,
//   then exec at once. The new process holds no lock. A bare fork of
//   a scan, whose other threads may hold the allocator's or LLVM's locks at
//   that instant, can hang in its first allocation: GCC 12's
//   AddressSanitizer allocator did, once in a few scans (docs/robustness.md).
// - no program (tests, fuzzers, single-threaded tools): a fork of this
//   process that serves the handler itself. Safe only where no other thread
//   can hold a lock the handler takes.
//
// The child is long-lived because a fresh process per request costs a
// millisecond of page faults for a fork, and about 20 ms for an exec that
// loads Clang (docs/performance.md, "Bounds on a clang parse"). Its standard
// streams are /dev/null and it holds no descriptor of ours but its socket,
// so it can neither write to the terminal nor keep another child's socket
// open; it ends when its socket closes, and on Linux when the thread that
// started it ends.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mpsaudit {

// The descriptor a worker program finds its socket on.
inline constexpr int kIsolatedWorkerSocket = 3;

struct IsolationLimits {
  // The request is abandoned, and the child killed, when it has not
  // answered by then.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Address space the child may add to what it starts with (RLIMIT_AS,
  // enforced on Linux); 0: no cap. A child started with another cap is
  // replaced.
  std::uint64_t memory_bytes = 0;
};

enum class IsolationOutcome {
  Finished,    // `answer` is what the handler returned
  TimedOut,    // no answer by the deadline
  OutOfMemory, // an allocation failed under the cap (or the handler said so)
  Crashed,     // the child died some other way
  NotStarted,  // no child could be started (no process or memory left)
};

struct IsolationResult {
  IsolationOutcome outcome = IsolationOutcome::NotStarted;
  std::string answer;
};

class IsolatedWorker {
public:
  // Runs in the child, once per request; it may call
  // exit_isolated_out_of_memory() from an allocation-failure handler.
  using Handler = std::string (*)(const std::string &request);

  // `program`, when given, is what the child execs, with the cap in bytes
  // appended as its last argument; it must call serve_isolated_requests
  // with the same handler. Empty: the fork serves `handler` itself.
  explicit IsolatedWorker(Handler handler, std::vector<std::string> program = {})
      : handler_(handler), program_(std::move(program)) {}
  ~IsolatedWorker() { stop(); }
  IsolatedWorker(const IsolatedWorker &) = delete;
  IsolatedWorker &operator=(const IsolatedWorker &) = delete;

  // The handler's answer to `request`, from the child.
  IsolationResult call(const std::string &request, const IsolationLimits &limits);
  // Ends the child, if any; a later call starts another. Waits for a call
  // in progress on another thread.
  void stop();
  // The child's process ID, or -1 (tests).
  pid_t child() const;

private:
  bool start(std::uint64_t memory_bytes);
  void stop_locked();
  IsolationOutcome reap(bool killed);

  Handler handler_;
  std::vector<std::string> program_;
  mutable std::mutex mutex_;
  pid_t pid_ = -1;
  int socket_ = -1;
  std::uint64_t memory_bytes_ = 0;
};

// A worker program's loop: answers the requests on `socket` with `handler`
// until the parent closes it, under a cap of `memory_bytes` more address
// space (0: none). Never returns.
[[noreturn]] void serve_isolated_requests(int socket, IsolatedWorker::Handler handler,
                                          std::uint64_t memory_bytes);

// Ends the worker's child, reported as OutOfMemory; for allocation-failure
// handlers (LLVM's bad-alloc handler). Outside a child it aborts.
[[noreturn]] void exit_isolated_out_of_memory();

} // namespace mpsaudit
