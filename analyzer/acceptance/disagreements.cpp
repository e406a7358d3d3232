#include "acceptance/disagreements.h"

#include <cctype>
#include <set>

namespace mpsaudit::acceptance {

using nlohmann::json;

namespace {

std::string name_of(const InterpreterRecord &interpreter) {
  return interpreter.executable.empty() ? interpreter.requested : interpreter.executable;
}

std::optional<bool> probe_bool(const json &probe, const char *key) {
  auto it = probe.find(key);
  if (it == probe.end() || !it->is_boolean())
    return std::nullopt;
  return it->get<bool>();
}

std::string probe_text(const json &probe, const char *key) {
  auto it = probe.find(key);
  return it != probe.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Disagreement make(std::string code, std::string severity, std::string message,
                  std::vector<std::string> sources) {
  return Disagreement{std::move(code), std::move(severity), std::move(message), std::move(sources)};
}

} // namespace

bool fallback_enabled(const std::string &value) {
  std::size_t at = 0;
  while (at < value.size() && std::isspace(static_cast<unsigned char>(value[at])))
    ++at;
  if (at < value.size() && (value[at] == '+' || value[at] == '-'))
    ++at;
  bool digits = false, non_zero = false;
  for (; at < value.size() && std::isdigit(static_cast<unsigned char>(value[at])); ++at) {
    digits = true;
    non_zero = non_zero || value[at] != '0';
  }
  return digits && non_zero;
}

const json *probe_environment_of(const json &probe) {
  if (!probe.is_object())
    return nullptr;
  if (auto it = probe.find("environment"); it != probe.end() && it->is_object())
    return &*it;
  if (probe.contains("mps_built") || probe.contains("mps_available") || probe.contains("libtorch_version"))
    return &probe;
  return nullptr;
}

std::vector<Disagreement> find_disagreements(const std::vector<InterpreterRecord> &interpreters,
                                             const json *probe_input) {
  std::vector<Disagreement> out;
  const json *probe = probe_input ? probe_environment_of(*probe_input) : nullptr;
  const bool probe_available = probe && probe_bool(*probe, "mps_available").value_or(false);
  const std::string probe_version = probe ? probe_text(*probe, "libtorch_version") : std::string();
  const std::string probe_label =
      "the probe's LibTorch" + (probe_version.empty() ? std::string() : " " + probe_version);

  for (const InterpreterRecord &interpreter : interpreters) {
    const std::string who = name_of(interpreter);
    if (!interpreter.queried()) {
      out.push_back(make("interpreter-unavailable", "error", interpreter.error, {who}));
      continue;
    }
    if (interpreter.machine_differs() || interpreter.rosetta.value_or(false)) {
      out.push_back(make(
          "translated", "error",
          who + " is a " + interpreter.machine + " Python on a " +
              (interpreter.native_machine.empty() ? std::string("different") : interpreter.native_machine) +
              " machine" + (interpreter.rosetta.value_or(false) ? " (Rosetta translation)" : "") +
              ": MPS cannot be used from it. Install an arm64 Python and torch.",
          {who}));
    }
    if (auto it = interpreter.variables.find("PYTORCH_ENABLE_MPS_FALLBACK");
        it != interpreter.variables.end()) {
      const bool enabled = fallback_enabled(it->second);
      out.push_back(make(
          "mps-fallback-set", enabled ? "warning" : "note",
          enabled ? "PYTORCH_ENABLE_MPS_FALLBACK=" + it->second + " in " + who +
                        "'s environment: operators without an MPS kernel silently run on the CPU, so a run "
                        "that passes there is no proof that it ran on MPS"
                  : "PYTORCH_ENABLE_MPS_FALLBACK=" + it->second + " in " + who +
                        "'s environment reads as off (PyTorch parses it as an integer): missing operators "
                        "raise NotImplementedError",
          {who}));
    }
    if (interpreter.status == "no-torch") {
      out.push_back(make("no-torch", "warning", interpreter.error, {who}));
      continue;
    }
    if (interpreter.status != "ok")
      continue;
    const TorchFacts &torch = interpreter.torch;
    // MPS facts only matter where MPS could exist: on a Mac, or where the
    // probe (run on the Mac) says it does.
    const bool mps_expected = interpreter.on_macos() || probe_available;
    const std::string torch_text = who + "'s torch " + torch.version;
    if (mps_expected && torch.mps_built && !*torch.mps_built) {
      std::string message =
          probe_available ? probe_label + " says MPS is available, but " + torch_text +
                                " was built without MPS (torch.backends.mps.is_built() is False)"
                          : torch_text + " on macOS was built without MPS (torch.backends.mps.is_built() "
                                         "is False)";
      message += ": code run from this interpreter runs on the CPU. Install the macOS arm64 build of torch "
                 "into it.";
      std::vector<std::string> sources{who};
      if (probe_available)
        sources.push_back("probe");
      out.push_back(make("mps-not-built", "error", message, sources));
    } else if (mps_expected && torch.mps_built.value_or(false) && torch.mps_available &&
               !*torch.mps_available) {
      std::string message =
          probe_available ? probe_label + " says MPS is available, but " + torch_text +
                                " has MPS built in and reports it not available"
                          : torch_text + " has MPS built in, but torch.backends.mps.is_available() is False";
      message += " (macOS older than torch needs, a virtual machine, or an x86_64 process)";
      std::vector<std::string> sources{who};
      if (probe_available)
        sources.push_back("probe");
      out.push_back(make("mps-not-available", "error", message, sources));
    }
  }

  // Versions: every pair of distinct releases among the interpreters and the
  // probe, reported once per distinct version.
  std::vector<std::pair<std::string, std::string>> versions; // (label, version)
  for (const InterpreterRecord &interpreter : interpreters)
    if (interpreter.status == "ok" && !interpreter.torch.version.empty())
      versions.emplace_back(name_of(interpreter), interpreter.torch.version);
  if (!probe_version.empty())
    versions.emplace_back("probe", probe_version);
  std::set<std::string> releases, builds;
  for (const auto &[label, version] : versions) {
    releases.insert(torch_release(version));
    builds.insert(version);
  }
  auto listing = [&versions]() {
    std::string text;
    for (const auto &[label, version] : versions)
      text += (text.empty() ? "" : ", ") +
              (label == "probe" ? "LibTorch " + version + " (the probe)" : label + ": torch " + version);
    return text;
  };
  std::vector<std::string> version_sources;
  for (const auto &[label, version] : versions)
    version_sources.push_back(label);
  if (releases.size() > 1) {
    out.push_back(make("torch-version-differs", "warning",
                       "different torch releases: " + listing() +
                           ". Operator coverage and numerics differ between releases; evidence from one "
                           "does not carry over to the other.",
                       version_sources));
  } else if (builds.size() > 1) {
    out.push_back(make("torch-build-differs", "note",
                       "the same torch release in different builds: " + listing(), version_sources));
  }

  // PYTORCH_MPS_* (allocator limits, profiling): the same code behaves
  // differently when interpreters see different values.
  std::set<std::map<std::string, std::string>> variable_sets;
  std::vector<std::string> variable_sources;
  for (const InterpreterRecord &interpreter : interpreters) {
    if (!interpreter.queried())
      continue;
    std::map<std::string, std::string> others;
    for (const auto &[name, value] : interpreter.variables)
      if (name != "PYTORCH_ENABLE_MPS_FALLBACK")
        others[name] = value;
    variable_sets.insert(others);
    variable_sources.push_back(name_of(interpreter));
  }
  if (variable_sets.size() > 1)
    out.push_back(make("mps-variables-differ", "note",
                       "the interpreters see different PYTORCH_MPS_* / PYTORCH_DEBUG_MPS_* settings (memory "
                       "limits and profiling): compare the \"variables\" of each record",
                       variable_sources));

  if (probe) {
    auto variables = probe->find("variables");
    if (variables != probe->end() && variables->is_object()) {
      auto it = variables->find("PYTORCH_ENABLE_MPS_FALLBACK");
      if (it != variables->end() && it->is_string() && fallback_enabled(it->get<std::string>()))
        out.push_back(make("mps-fallback-set", "warning",
                           "PYTORCH_ENABLE_MPS_FALLBACK=" + it->get<std::string>() +
                               " was set where the probe ran (the probe clears it for its own calls, but "
                               "a training run from that shell falls back to the CPU silently)",
                           {"probe"}));
    }
  }
  return out;
}

} // namespace mpsaudit::acceptance
