// Component roles: what a part of the repository is for. One table for the
// config's [roles] validation and the assessment (assess/roles.h classifies
// files into them).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mpsaudit {

enum class Role : std::uint8_t {
  Model,      // nn.Module definitions, kernels the model calls
  Training,   // training loops: optimizers, backward, launchers
  Data,       // datasets, loaders, preprocessing
  Inference,  // inference, prediction, demos
  Evaluation, // evaluation on benchmarks, validation and speed benchmarks
  Tooling,    // scripts, utilities, export, build and environment files
  Tests,
  Docs, // documentation and examples
};
inline constexpr int kRoleCount = 8;

struct RoleName {
  Role role;
  std::string_view name;  // as configs and JSON write it
  std::string_view title; // as reports head it
};
// Every role, in the enum's order.
inline constexpr std::array<RoleName, kRoleCount> kRoleNames{{
    {Role::Model, "model", "Model"},
    {Role::Training, "training", "Training loop"},
    {Role::Data, "data", "Data pipeline"},
    {Role::Inference, "inference", "Inference / demos"},
    {Role::Evaluation, "evaluation", "Evaluation / benchmarks"},
    {Role::Tooling, "tooling", "Tooling / scripts"},
    {Role::Tests, "tests", "Tests"},
    {Role::Docs, "docs", "Docs / examples"},
}};

inline std::string_view to_string(Role role) { // "model", "training", ...
  return kRoleNames[static_cast<std::size_t>(role)].name;
}
inline std::string_view role_title(Role role) { // "Model", "Training loop", ...
  return kRoleNames[static_cast<std::size_t>(role)].title;
}
inline std::optional<Role> role_from_string(std::string_view text) {
  for (const auto &entry : kRoleNames)
    if (entry.name == text)
      return entry.role;
  return std::nullopt;
}

// "model, training, data, ..., docs": every role, for error messages.
inline std::string known_roles_text() {
  std::string text;
  for (const auto &entry : kRoleNames)
    text += (text.empty() ? "" : ", ") + std::string(entry.name);
  return text;
}

} // namespace mpsaudit
