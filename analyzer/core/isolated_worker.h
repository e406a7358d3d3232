// Running a piece of this program in a child process that can be killed.
//
// Some work on attacker-controlled input cannot be bounded from inside:
// clang's preprocessor, given `B(B(B(...)))` with `#define B(x) x x`,
// doubles its token buffer at every level without calling back into us, and
// no callback can stop a Sema that is busy instantiating. Such work runs in
// a worker: a fork of this process (no exec: it already holds the loaded
// libraries) that answers requests one at a time, each under a deadline,
// the whole child under a cap on the address space it may add. A request
// that runs past its deadline, or an allocation refused under the cap, ends
// the child; the next request starts another. Whatever happens in the
// child, the caller gets a result: the answer, or why there is none.
//
// The child is long-lived because a fresh process per request costs about a
// millisecond of page faults (docs/performance.md, "Bounds on a clang
// parse"). Its standard streams are /dev/null and it holds no descriptor of
// ours but its socket, so it can neither write to the terminal nor keep
// another child's socket open; it ends when its socket closes, and on
// Linux when the thread that started it ends.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace mpsaudit {

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

  explicit IsolatedWorker(Handler handler) : handler_(handler) {}
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
  mutable std::mutex mutex_;
  pid_t pid_ = -1;
  int socket_ = -1;
  std::uint64_t memory_bytes_ = 0;
};

// Ends the worker's child, reported as OutOfMemory; for allocation-failure
// handlers (LLVM's bad-alloc handler). Outside a child it aborts.
[[noreturn]] void exit_isolated_out_of_memory();

} // namespace mpsaudit
