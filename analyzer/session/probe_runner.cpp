#include "session/probe_runner.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace mpsaudit {
namespace fs = std::filesystem;

std::string find_probe_binary(const std::string &executable) {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error)
    self = fs::weakly_canonical(executable, error);
  const fs::path beside = self.parent_path() / "mpsaudit-probe";
  if (fs::is_regular_file(beside, error))
    return beside.string();
  if (const char *path = std::getenv("PATH")) {
    std::string directories(path);
    std::size_t start = 0;
    while (start <= directories.size()) {
      const std::size_t end = std::min(directories.find(':', start), directories.size());
      const fs::path candidate = fs::path(directories.substr(start, end - start)) / "mpsaudit-probe";
      if (end > start && access(candidate.c_str(), X_OK) == 0)
        return candidate.string();
      start = end + 1;
    }
  }
  return {};
}

namespace {

// The probe being waited for, to which run_program passes SIGTERM and SIGHUP.
volatile sig_atomic_t running_child = 0;
// Set once such a signal has been passed on.
volatile sig_atomic_t forwarded_termination = 0;

void forward_to_child(int signal) {
  forwarded_termination = 1;
  if (running_child > 0)
    ::kill(static_cast<pid_t>(running_child), signal);
}

// While the probe runs, mpsaudit outlives it whatever the signal, so that it
// returns and its temporary files are removed (session/session.cpp): Ctrl-C
// and Ctrl-\, which reach the whole process group, stop the probe and are
// ignored here, as system() does; SIGTERM and SIGHUP are passed on to it.
class ProbeSignals {
public:
  ProbeSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    struct sigaction forward {};
    forward.sa_handler = forward_to_child;
    sigemptyset(&forward.sa_mask);
    ::sigaction(SIGINT, &ignore, &saved_[0]);
    ::sigaction(SIGQUIT, &ignore, &saved_[1]);
    ::sigaction(SIGTERM, &forward, &saved_[2]);
    ::sigaction(SIGHUP, &forward, &saved_[3]);
  }
  ~ProbeSignals() { restore(); }
  ProbeSignals(const ProbeSignals &) = delete;
  ProbeSignals &operator=(const ProbeSignals &) = delete;
  // The dispositions from before, also in the child before it execs the
  // probe; SIGINT and SIGQUIT stay ignored once they have stopped the probe
  // (keep_ignoring_interrupts).
  void restore() const {
    if (!interrupted_) {
      ::sigaction(SIGINT, &saved_[0], nullptr);
      ::sigaction(SIGQUIT, &saved_[1], nullptr);
    }
    if (!terminated_) {
      ::sigaction(SIGTERM, &saved_[2], nullptr);
      ::sigaction(SIGHUP, &saved_[3], nullptr);
    }
  }
  // After Ctrl-C has stopped the probe, mpsaudit goes on ignoring SIGINT and
  // SIGQUIT while it cleans up and returns: a wrapper such as timeout(1)
  // passes the same Ctrl-C on a moment later, and that repeat must not kill
  // mpsaudit before its temporary directory is removed.
  void keep_ignoring_interrupts() { interrupted_ = true; }
  // The same for SIGTERM and SIGHUP once one was passed on, for the rest of
  // the process (it cleans up and returns): timeout(1) sends its SIGTERM to
  // mpsaudit and then to the whole process group, and under load the second
  // arrives after the probe has gone.
  void keep_ignoring_terminations() {
    terminated_ = true;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGTERM, &ignore, nullptr);
    ::sigaction(SIGHUP, &ignore, nullptr);
  }

private:
  struct sigaction saved_[4]{};
  bool interrupted_ = false;
  bool terminated_ = false;
};

} // namespace

int run_program(const std::string &binary, const std::vector<std::string> &arguments) {
  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(binary.c_str()));
  for (const auto &argument : arguments)
    argv.push_back(const_cast<char *>(argument.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  // SIGTERM and SIGHUP wait until the child's pid is known.
  sigset_t forwarded, saved_mask;
  sigemptyset(&forwarded);
  sigaddset(&forwarded, SIGTERM);
  sigaddset(&forwarded, SIGHUP);
  ::sigprocmask(SIG_BLOCK, &forwarded, &saved_mask);
  forwarded_termination = 0;
  ProbeSignals signals;
  const pid_t child = fork();
  if (child == 0) {
    signals.restore();
    ::sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  running_child = child > 0 ? child : 0;
  ::sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
  if (child < 0)
    return -1;
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(child, &status, 0)) < 0 && errno == EINTR) {
  }
  running_child = 0;
  if (forwarded_termination)
    signals.keep_ignoring_terminations();
  if (waited < 0)
    return -1;
  if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGQUIT))
    signals.keep_ignoring_interrupts();
  if (WIFEXITED(status))
    return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

} // namespace mpsaudit
