#include "core/fact.h"

#include <algorithm>
#include <tuple>

#include "core/edit_distance.h"
#include "core/fact_kinds.h"
#include "core/finding.h"

namespace mpsaudit {

std::string_view to_string(Guard guard) {
  switch (guard) {
  case Guard::None:
    return "none";
  case Guard::ImportFallback:
    return "import-fallback";
  case Guard::CudaCheck:
    return "cuda-check";
  case Guard::PlatformCheck:
    return "platform-check";
  case Guard::OptionalExtra:
    return "optional-extra";
  case Guard::OptionalPath:
    return "optional-path";
  case Guard::CpuFallback:
    return "cpu-fallback";
  }
  return "none";
}

std::string_view to_string(DiagnosticLevel level) {
  switch (level) {
  case DiagnosticLevel::Note:
    return "note";
  case DiagnosticLevel::Warning:
    return "warning";
  case DiagnosticLevel::Error:
    return "error";
  }
  return "error";
}

const std::string *Fact::attribute(std::string_view key) const {
  for (const auto &[k, v] : attributes)
    if (k == key)
      return &v;
  return nullptr;
}

void Fact::set_attribute(std::string key, std::string value) {
  for (auto &[k, v] : attributes)
    if (k == key) {
      v = std::move(value);
      return;
    }
  attributes.emplace_back(std::move(key), std::move(value));
}

const Argument *Fact::keyword_argument(std::string_view keyword) const {
  for (const auto &argument : arguments)
    if (argument.keyword == keyword)
      return &argument;
  return nullptr;
}

Fact fact_at(const Fact &place, std::string kind, std::string name) {
  Fact fact;
  fact.kind = std::move(kind);
  fact.name = std::move(name);
  fact.span = place.span;
  fact.guard = place.guard;
  fact.scope = place.scope;
  fact.in_forward = place.in_forward;
  fact.cell = place.cell;
  fact.cell_line = place.cell_line;
  return fact;
}

const Argument *Fact::positional_argument(std::size_t index) const {
  std::size_t seen = 0;
  for (const auto &argument : arguments) {
    if (!argument.keyword.empty())
      continue;
    if (seen++ == index)
      return &argument;
  }
  return nullptr;
}

bool finding_less(const Finding &a, const Finding &b) {
  return std::tie(a.path, a.span.line, a.span.column, a.rule_id, a.name) <
         std::tie(b.path, b.span.line, b.span.column, b.rule_id, b.name);
}

bool is_known_fact_kind(std::string_view kind) {
  return std::find(kAllFactKinds.begin(), kAllFactKinds.end(), kind) != kAllFactKinds.end();
}

std::string_view closest_fact_kind(std::string_view kind) {
  std::string_view closest;
  std::size_t best = 3; // farther than two edits is a different word
  for (const std::string_view known : kAllFactKinds) {
    const std::size_t distance = edit_distance(kind, known);
    if (distance < best) {
      best = distance;
      closest = known;
    }
  }
  return closest;
}

} // namespace mpsaudit
