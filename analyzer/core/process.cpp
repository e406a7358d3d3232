#include "core/process.h"

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace mpsaudit {

namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int read_end = -1, write_end = -1;
  bool open(bool close_on_exec) {
    int fds[2];
    if (::pipe(fds) != 0)
      return false;
    read_end = fds[0];
    write_end = fds[1];
    if (close_on_exec) {
      ::fcntl(read_end, F_SETFD, FD_CLOEXEC);
      ::fcntl(write_end, F_SETFD, FD_CLOEXEC);
    }
    return true;
  }
  void close_read() {
    if (read_end >= 0)
      ::close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0)
      ::close(write_end);
    write_end = -1;
  }
  ~Pipe() {
    close_read();
    close_write();
  }
};

// The environment block for the child, prepared before fork (no allocation
// between fork and exec).
std::vector<std::string> child_environment(const std::map<std::string, std::string> &extra) {
  std::vector<std::string> block;
  for (char **entry = environ; entry && *entry; ++entry) {
    const char *equals = std::strchr(*entry, '=');
    const std::string name =
        equals ? std::string(*entry, static_cast<std::size_t>(equals - *entry)) : std::string(*entry);
    if (!extra.count(name))
      block.emplace_back(*entry);
  }
  for (const auto &[name, value] : extra)
    block.push_back(name + "=" + value);
  return block;
}

// Reads what is there without blocking; false at end of stream.
bool drain(int fd, std::string &into, std::size_t limit, bool &truncated) {
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      const std::size_t room = into.size() < limit ? limit - into.size() : 0;
      const std::size_t keep = std::min<std::size_t>(room, static_cast<std::size_t>(got));
      into.append(buffer, keep);
      truncated = truncated || keep < static_cast<std::size_t>(got);
      continue;
    }
    if (got == 0)
      return false;
    if (errno == EINTR)
      continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

} // namespace

ProcessResult run_process(const ProcessRequest &request) {
  ProcessResult result;
  const auto start = Clock::now();
  if (request.argv.empty()) {
    result.launch_error = "no command";
    return result;
  }
  Pipe out, err, exec_status;
  if (!out.open(false) || !err.open(false) || !exec_status.open(true)) {
    result.launch_error = std::strerror(errno);
    return result;
  }
  std::vector<std::string> environment = child_environment(request.extra_environment);
  std::vector<char *> envp, argv;
  for (auto &entry : environment)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = request.argv;
  for (auto &argument : arguments)
    argv.push_back(argument.data());
  argv.push_back(nullptr);
  const bool search_path = request.argv.front().find('/') == std::string::npos;

  const pid_t pid = ::fork();
  if (pid < 0) {
    result.launch_error = std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here to exec.
    ::setpgid(0, 0);
    ::dup2(out.write_end, STDOUT_FILENO);
    ::dup2(err.write_end, STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0)
      ::dup2(devnull, STDIN_FILENO);
    if (!request.working_directory.empty() && ::chdir(request.working_directory.c_str()) != 0) {
      const int error = errno;
      (void)!::write(exec_status.write_end, &error, sizeof error);
      ::_exit(127);
    }
    environ = envp.data();
    if (search_path)
      ::execvp(argv[0], argv.data());
    else
      ::execv(argv[0], argv.data());
    const int error = errno;
    (void)!::write(exec_status.write_end, &error, sizeof error);
    ::_exit(127);
  }
  ::setpgid(pid, pid); // also from the parent, so the kill below cannot race the child's own call
  out.close_write();
  err.close_write();
  exec_status.close_write();

  int exec_error = 0;
  ssize_t got;
  do
    got = ::read(exec_status.read_end, &exec_error, sizeof exec_error);
  while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.launch = exec_error == ENOENT || exec_error == ENOTDIR                          ? "not-found"
                    : exec_error == EACCES || exec_error == ENOEXEC || exec_error == EPERM ? "not-executable"
                                                                                           : "spawn-failed";
    result.launch_error = std::strerror(exec_error);
    return result;
  }
  result.launch = "started";

  ::fcntl(out.read_end, F_SETFL, ::fcntl(out.read_end, F_GETFL) | O_NONBLOCK);
  ::fcntl(err.read_end, F_SETFL, ::fcntl(err.read_end, F_GETFL) | O_NONBLOCK);
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(request.timeout_seconds));
  bool out_open = true, err_open = true;
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) {
      result.timed_out = true;
      break;
    }
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const int wait = static_cast<int>(std::min<long long>(wait_ms + 1, 100));
    pollfd fds[2];
    nfds_t count = 0;
    if (out_open)
      fds[count++] = {out.read_end, POLLIN, 0};
    if (err_open)
      fds[count++] = {err.read_end, POLLIN, 0};
    if (count > 0) {
      if (::poll(fds, count, wait) < 0 && errno != EINTR)
        break;
    } else {
      ::usleep(10000);
    }
    if (out_open)
      out_open = drain(out.read_end, result.out, request.max_output_bytes, result.output_truncated);
    if (err_open)
      err_open = drain(err.read_end, result.err, request.max_output_bytes, result.output_truncated);
    // Exited? WNOWAIT leaves the child a zombie, which keeps its process
    // group ID reserved for the kill below.
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      // A grandchild may still hold the pipes open; what was written is read.
      if (out_open)
        drain(out.read_end, result.out, request.max_output_bytes, result.output_truncated);
      if (err_open)
        drain(err.read_end, result.err, request.max_output_bytes, result.output_truncated);
      break;
    }
  }
  // The whole group: a hung child, or what a wrapper script left behind.
  ::kill(-pid, SIGKILL);
  if (result.timed_out)
    ::kill(pid, SIGKILL); // in case it never got its own group
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!result.timed_out) {
    if (WIFEXITED(status)) {
      result.exited = true;
      result.exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

} // namespace mpsaudit
