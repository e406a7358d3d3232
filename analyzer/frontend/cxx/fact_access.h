// Readers of facts that the C++/CUDA front end and its project passes share.
#pragma once

#include <string>
#include <string_view>

#include "core/fact.h"

namespace mpsaudit::cxx {

// "ns::Class::f" -> "f": facts name functions as written, registrations and
// dispatches compare by the last component.
inline std::string last_component(const std::string &qualified) {
  const auto scope = qualified.rfind("::");
  return scope == std::string::npos ? qualified : qualified.substr(scope + 2);
}

// The attribute `key` of `fact`, or `fallback` when it has none.
inline std::string attribute_or(const Fact &fact, std::string_view key, const std::string &fallback = {}) {
  const std::string *value = fact.attribute(key);
  return value ? *value : fallback;
}

} // namespace mpsaudit::cxx
