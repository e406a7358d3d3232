#include "core/isolated_worker.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace mpsaudit {
namespace {

using Clock = std::chrono::steady_clock;

// How a child that did not answer says why.
constexpr int kOutOfMemoryStatus = 86;
constexpr int kFailedStatus = 87;
// A frame: the payload's size (8 bytes), a flag byte, the payload.
constexpr std::size_t kFrameHeaderBytes = 9;
constexpr char kRetiring = 1; // the child ends after this answer
// A longer frame is not one of ours: the channel is given up.
constexpr std::uint64_t kMaxFrameBytes = 256ull << 20;
// How long a child that closed its socket may take to end before it is
// killed.
constexpr std::chrono::milliseconds kLingerLimit{2000};
#ifdef MSG_NOSIGNAL
constexpr int kSendFlags = MSG_NOSIGNAL; // a closed peer is an error, not SIGPIPE
#else
constexpr int kSendFlags = 0; // SO_NOSIGPIPE is set on the socket instead
#endif

std::atomic<bool> in_isolated_child{false};

std::string frame_header(std::uint64_t size, char flags) {
  std::string header(kFrameHeaderBytes, '\0');
  std::memcpy(header.data(), &size, sizeof size);
  header[8] = flags;
  return header;
}

// --------------------------------------------------------------- the child

bool send_all(int fd, const char *data, std::size_t size) {
  while (size > 0) {
    const ssize_t sent = ::send(fd, data, size, kSendFlags);
    if (sent < 0 && errno == EINTR)
      continue;
    if (sent <= 0)
      return false;
    data += sent;
    size -= static_cast<std::size_t>(sent);
  }
  return true;
}

bool receive_all(int fd, char *data, std::size_t size) {
  while (size > 0) {
    const ssize_t got = ::recv(fd, data, size, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    data += got;
    size -= static_cast<std::size_t>(got);
  }
  return true;
}

// The next request; false when the parent has closed the channel.
bool receive_request(int fd, std::string &request) {
  char header[kFrameHeaderBytes];
  if (!receive_all(fd, header, sizeof header))
    return false;
  std::uint64_t size = 0;
  std::memcpy(&size, header, sizeof size);
  if (size > kMaxFrameBytes)
    return false;
  request.resize(size);
  return receive_all(fd, request.data(), request.size());
}

// Every descriptor but the standard streams (now /dev/null) and `keep`,
// which it returns (moved above them if it was one): a socket of another
// thread's child held open here would keep that child alive.
int close_other_descriptors(int keep) {
  if (keep <= 2)
    keep = ::fcntl(keep, F_DUPFD, 3);
  const int devnull = ::open("/dev/null", O_RDWR);
  for (int stream = 0; stream <= 2; ++stream)
    if (devnull >= 0 && devnull != stream)
      ::dup2(devnull, stream);
  if (devnull > 2 && devnull != keep)
    ::close(devnull);
#if defined(__linux__) && defined(CLOSE_RANGE_UNSHARE)
  if (::close_range(3, static_cast<unsigned>(keep) - 1, 0) == 0 &&
      ::close_range(static_cast<unsigned>(keep) + 1, ~0u, 0) == 0)
    return keep;
#endif
  const long open_max = std::min(::sysconf(_SC_OPEN_MAX), 65536L);
  for (int fd = 3; fd < open_max; ++fd)
    if (fd != keep)
      ::close(fd);
  return keep;
}

// The address space this process holds now, in bytes; 0 when unknown.
std::uint64_t address_space_now() {
#ifdef __linux__
  std::FILE *statm = std::fopen("/proc/self/statm", "r");
  if (!statm)
    return 0;
  unsigned long long pages = 0;
  const bool read = std::fscanf(statm, "%llu", &pages) == 1;
  std::fclose(statm);
  return read ? pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
#else
  return 0;
#endif
}

// Caps the address space at what the child holds now plus `memory_bytes`;
// returns what it holds now (0: unknown, no cap).
std::uint64_t cap_address_space(std::uint64_t memory_bytes) {
  const std::uint64_t held = address_space_now();
  rlimit current{};
  if (memory_bytes == 0 || held == 0 || ::getrlimit(RLIMIT_AS, &current) != 0)
    return 0;
  const rlim_t wanted = static_cast<rlim_t>(held + memory_bytes);
  if (current.rlim_cur == RLIM_INFINITY || wanted < current.rlim_cur) {
    current.rlim_cur = wanted;
    ::setrlimit(RLIMIT_AS, &current);
  }
  return held;
}

[[noreturn]] void serve_requests(int socket, IsolatedWorker::Handler handler, std::uint64_t memory_bytes) {
  in_isolated_child.store(true);
  const std::uint64_t started_with = cap_address_space(memory_bytes);
  std::set_new_handler([] { exit_isolated_out_of_memory(); });
  std::string request;
  while (receive_request(socket, request)) {
    std::string answer;
    try {
      answer = handler(request);
    } catch (const std::bad_alloc &) {
      exit_isolated_out_of_memory();
    } catch (...) {
      ::_exit(kFailedStatus);
    }
    // What one request left behind (fragments, the allocator's caches)
    // counts against the next: past half the cap, a fresh child does better.
    const bool retiring = started_with > 0 && address_space_now() > started_with + memory_bytes / 2;
    const std::string header = frame_header(answer.size(), retiring ? kRetiring : 0);
    if (!send_all(socket, header.data(), header.size()) || !send_all(socket, answer.data(), answer.size()) ||
        retiring)
      break;
  }
  ::_exit(0);
}

// In the child, right after the fork: what every child does first.
int detach_child(int socket) {
#ifdef __linux__
  // The child must not outlive the thread that started it (kept across exec).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  return close_other_descriptors(socket);
}

// In the child, right after the fork: replaces it with the worker program,
// its socket on kIsolatedWorkerSocket. Only async-signal-safe calls: another
// thread may have held any lock at the fork. `argv` was built before it.
[[noreturn]] void exec_worker_program(int socket, char *const argv[]) {
  socket = detach_child(socket);
  if (socket != kIsolatedWorkerSocket) {
    if (::dup2(socket, kIsolatedWorkerSocket) < 0)
      ::_exit(kFailedStatus);
    ::close(socket);
  }
  ::execv(argv[0], argv);
  ::_exit(kFailedStatus);
}

// -------------------------------------------------------------- the parent

// Waits until `fd` is ready for `events` or the deadline passes.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline)
      return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    pollfd ready{fd, events, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (polled > 0)
      return true;
    if (polled < 0 && errno != EINTR)
      return true; // the read or write below reports the error
  }
}

enum class Transfer { Done, TimedOut, Closed };

Transfer send_before(int fd, const std::string &data, Clock::time_point deadline) {
  std::size_t at = 0;
  while (at < data.size()) {
    if (!wait_for(fd, POLLOUT, deadline))
      return Transfer::TimedOut;
    const ssize_t sent = ::send(fd, data.data() + at, data.size() - at, kSendFlags | MSG_DONTWAIT);
    if (sent < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (sent <= 0)
      return Transfer::Closed;
    at += static_cast<std::size_t>(sent);
  }
  return Transfer::Done;
}

Transfer receive_before(int fd, char *data, std::size_t size, Clock::time_point deadline) {
  while (size > 0) {
    if (!wait_for(fd, POLLIN, deadline))
      return Transfer::TimedOut;
    const ssize_t got = ::recv(fd, data, size, MSG_DONTWAIT);
    if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (got <= 0)
      return Transfer::Closed;
    data += got;
    size -= static_cast<std::size_t>(got);
  }
  return Transfer::Done;
}

// Whether `pid` ended within `limit` (its status in `status`); polls,
// since a blocking waitpid has no timeout.
bool exited_within(pid_t pid, std::chrono::milliseconds limit, int &status) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    const pid_t ended = ::waitpid(pid, &status, WNOHANG);
    if (ended == pid || (ended < 0 && errno != EINTR))
      return true;
    if (Clock::now() >= deadline)
      return false;
    ::usleep(2000);
  }
}

} // namespace

void serve_isolated_requests(int socket, IsolatedWorker::Handler handler, std::uint64_t memory_bytes) {
  serve_requests(socket, handler, memory_bytes);
}

void exit_isolated_out_of_memory() {
  if (in_isolated_child.load())
    ::_exit(kOutOfMemoryStatus);
  std::abort();
}

bool IsolatedWorker::start(std::uint64_t memory_bytes) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0)
    return false;
  for (const int end : ends) {
    // Another thread's exec'd child (git, an interpreter) must not hold it.
    ::fcntl(end, F_SETFD, FD_CLOEXEC);
#ifdef SO_NOSIGPIPE
    const int on = 1;
    ::setsockopt(end, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
  }
  // The program's arguments, the cap last, built before the fork.
  std::vector<std::string> arguments = program_;
  if (!arguments.empty())
    arguments.push_back(std::to_string(memory_bytes));
  std::vector<char *> argv;
  for (std::string &argument : arguments)
    argv.push_back(argument.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(ends[0]);
    ::close(ends[1]);
    return false;
  }
  if (pid == 0) {
    ::close(ends[0]);
    if (!program_.empty())
      exec_worker_program(ends[1], argv.data());
    serve_requests(detach_child(ends[1]), handler_, memory_bytes);
  }
  ::close(ends[1]);
  pid_ = pid;
  socket_ = ends[0];
  memory_bytes_ = memory_bytes;
  return true;
}

IsolationOutcome IsolatedWorker::reap(bool killed) {
  if (killed)
    ::kill(pid_, SIGKILL);
  int status = 0;
  bool lingered = false;
  if (!killed && !exited_within(pid_, kLingerLimit, status)) {
    // It closed its socket but lives on (a sanitizer's report stuck on a
    // lock): the scan must not wait for it.
    ::kill(pid_, SIGKILL);
    lingered = true;
  }
  while ((killed || lingered) && ::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(socket_);
  pid_ = -1;
  socket_ = -1;
  if (killed)
    return IsolationOutcome::TimedOut;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemoryStatus)
    return IsolationOutcome::OutOfMemory;
  return IsolationOutcome::Crashed;
}

void IsolatedWorker::stop_locked() {
  if (pid_ >= 0)
    reap(/*killed=*/true);
}

void IsolatedWorker::stop() {
  const std::lock_guard<std::mutex> lock(mutex_);
  stop_locked();
}

pid_t IsolatedWorker::child() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return pid_;
}

IsolationResult IsolatedWorker::call(const std::string &request, const IsolationLimits &limits) {
  const std::lock_guard<std::mutex> lock(mutex_);
  IsolationResult result;
  // A child that ended between requests (killed from outside) is replaced,
  // as is one started with another cap.
  if (pid_ >= 0 && (memory_bytes_ != limits.memory_bytes || ::waitpid(pid_, nullptr, WNOHANG) != 0)) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    ::close(socket_);
    pid_ = -1;
    socket_ = -1;
  }
  if (pid_ < 0 && !start(limits.memory_bytes))
    return result; // NotStarted
  Transfer sent = send_before(socket_, frame_header(request.size(), 0), limits.deadline);
  if (sent == Transfer::Done)
    sent = send_before(socket_, request, limits.deadline);
  char header[kFrameHeaderBytes];
  Transfer got =
      sent == Transfer::Done ? receive_before(socket_, header, sizeof header, limits.deadline) : sent;
  std::uint64_t size = 0;
  if (got == Transfer::Done) {
    std::memcpy(&size, header, sizeof size);
    if (size > kMaxFrameBytes) { // not an answer of ours
      reap(/*killed=*/true);
      result.outcome = IsolationOutcome::Crashed;
      return result;
    }
    result.answer.resize(size);
    got = receive_before(socket_, result.answer.data(), result.answer.size(), limits.deadline);
  }
  if (got == Transfer::Done) {
    result.outcome = IsolationOutcome::Finished;
    if (header[8] == kRetiring)
      reap(/*killed=*/false);
    return result;
  }
  result.answer.clear();
  result.outcome = reap(/*killed=*/got == Transfer::TimedOut);
  return result;
}

} // namespace mpsaudit
