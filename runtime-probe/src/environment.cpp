#include "environment.h"

#include <cstdlib>
#include <string>

#include <sys/utsname.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

#include <ATen/Context.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/version.h>

extern char **environ;

namespace mpsaudit::probe {

namespace {

bool starts_with(const std::string &text, const char *prefix) {
  return text.rfind(prefix, 0) == 0;
}

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> variables;
  for (char **entry = environ; entry && *entry; ++entry) {
    std::string text = *entry;
    std::size_t equals = text.find('=');
    if (equals != std::string::npos)
      variables[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return variables;
}

#if defined(__APPLE__)
std::string sysctl_string(const char *name) {
  char buffer[256] = {};
  size_t size = sizeof buffer;
  if (sysctlbyname(name, buffer, &size, nullptr, 0) != 0)
    return {};
  return std::string(buffer);
}
#endif

} // namespace

std::map<std::string, std::string> mps_variables(const std::map<std::string, std::string> &variables) {
  std::map<std::string, std::string> selected;
  for (const auto &[name, value] : variables)
    if (name == "PYTORCH_ENABLE_MPS_FALLBACK" || starts_with(name, "PYTORCH_MPS_") ||
        starts_with(name, "PYTORCH_DEBUG_MPS_"))
      selected[name] = value;
  return selected;
}

bool fallback_enabled(const std::map<std::string, std::string> &variables) {
  auto it = variables.find("PYTORCH_ENABLE_MPS_FALLBACK");
  if (it == variables.end())
    return false;
  try {
    return std::stoi(it->second) != 0;
  } catch (const std::exception &) {
    return false; // std::stoi throws on non-numbers; MPSFallback.mm would not enable it either
  }
}

namespace {
constexpr const char *kUserFallbackVariable = "MPSAUDIT_PROBE_USER_MPS_FALLBACK";
}

bool reexec_without_fallback(char **argv) {
  const char *value = std::getenv("PYTORCH_ENABLE_MPS_FALLBACK");
  if (!value || std::getenv(kUserFallbackVariable))
    return false;
  setenv(kUserFallbackVariable, value, 1);
  unsetenv("PYTORCH_ENABLE_MPS_FALLBACK");
#if defined(__linux__)
  execv("/proc/self/exe", argv);
#endif
  execvp(argv[0], argv);
  // The exec failed: carry on in-process, which still clears it for CPU/CUDA.
  return false;
}

std::map<std::string, std::string> user_environment(bool &cleared) {
  auto variables = process_environment();
  cleared = false;
  if (auto it = variables.find(kUserFallbackVariable); it != variables.end()) {
    variables["PYTORCH_ENABLE_MPS_FALLBACK"] = it->second;
    variables.erase(it);
    cleared = true;
  }
  return variables;
}

EnvironmentReport probe_environment(const std::map<std::string, std::string> &user_variables,
                                    bool fallback_cleared) {
  EnvironmentReport report;
  report.libtorch_version = TORCH_VERSION;
  // "Built" means the MPS backend is compiled into this LibTorch: it registers
  // a device guard for DeviceType::MPS (MPSGuardImpl). "Available" asks the
  // MPS hooks whether a Metal device answers, the way is_available() does.
  report.mps_built = c10::impl::hasDeviceGuardImpl(c10::DeviceType::MPS);
  report.mps_available = at::hasMPS();
  report.cuda_built = c10::impl::hasDeviceGuardImpl(c10::DeviceType::CUDA);
  report.cuda_available = at::hasCUDA();
  report.cuda_device_count = report.cuda_available ? static_cast<int>(at::getNumGPUs()) : 0;

  struct utsname names {};
  if (uname(&names) == 0) {
    report.os_name = names.sysname;
    report.os_version = names.release;
    report.arch = names.machine;
  }
#if defined(__APPLE__)
  report.os_name = "macOS";
  if (std::string product = sysctl_string("kern.osproductversion"); !product.empty())
    report.os_version = product;
  int translated = 0;
  size_t size = sizeof translated;
  // 1 under Rosetta, 0 native; the call fails on Intel Macs (no translation exists).
  if (sysctlbyname("sysctl.proc_translated", &translated, &size, nullptr, 0) == 0)
    report.rosetta = translated == 1;
  else
    report.rosetta = false;
#endif

  report.mps_variables = mps_variables(user_variables);
  report.mps_fallback_enabled = fallback_enabled(user_variables);
  report.fallback_cleared_for_probe = fallback_cleared;
  add_environment_warnings(report);
  return report;
}

} // namespace mpsaudit::probe
