#include "report/facts_report.h"

#include "core/text.h"

namespace mpsaudit {
namespace {

nlohmann::ordered_json span_to_json(const Span &span) {
  return {{"line", span.line},
          {"column", span.column},
          {"end_line", span.end_line},
          {"end_column", span.end_column}};
}

nlohmann::ordered_json argument_to_json(const Argument &argument) {
  nlohmann::ordered_json out = {{"text", sanitize_utf8(argument.text)}};
  if (!argument.keyword.empty())
    out["keyword"] = sanitize_utf8(argument.keyword);
  if (!argument.canonical.empty())
    out["canonical"] = sanitize_utf8(argument.canonical);
  if (argument.is_string)
    out["value"] = sanitize_utf8(argument.value);
  if (argument.written_at.line > 0)
    out["written_at"] = span_to_json(argument.written_at);
  return out;
}

nlohmann::ordered_json fact_to_json(const Fact &fact) {
  nlohmann::ordered_json out = {{"kind", fact.kind.str()}, {"name", sanitize_utf8(fact.name.str())}};
  if (!fact.scope.empty())
    out["scope"] = sanitize_utf8(fact.scope.str());
  out["span"] = span_to_json(fact.span);
  if (fact.guard != Guard::None)
    out["guard"] = std::string(to_string(fact.guard));
  if (fact.in_forward)
    out["in_forward"] = true;
  if (fact.cell >= 0) {
    out["cell"] = fact.cell + 1;
    out["cell_line"] = fact.cell_line;
  }
  if (!fact.arguments.empty()) {
    nlohmann::ordered_json arguments = nlohmann::ordered_json::array();
    for (const Argument &argument : fact.arguments)
      arguments.push_back(argument_to_json(argument));
    out["arguments"] = std::move(arguments);
  }
  if (!fact.attributes.empty()) {
    nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
    for (const auto &[key, value] : fact.attributes)
      attributes[sanitize_utf8(key)] = sanitize_utf8(value);
    out["attributes"] = std::move(attributes);
  }
  return out;
}

} // namespace

nlohmann::ordered_json facts_to_json(const ScanResult &result, const ProjectFile &file) {
  nlohmann::ordered_json facts = nlohmann::ordered_json::array();
  for (const Fact &fact : file.facts.facts)
    facts.push_back(fact_to_json(fact));
  nlohmann::ordered_json diagnostics = nlohmann::ordered_json::array();
  for (const Diagnostic &diagnostic : result.diagnostics)
    if (diagnostic.path == file.path)
      diagnostics.push_back({{"level", std::string(to_string(diagnostic.level))},
                             {"line", diagnostic.line},
                             {"code", diagnostic.code},
                             {"message", sanitize_utf8(diagnostic.message)}});
  return {{"path", sanitize_utf8(path_for_display(result, file.path))},
          {"kind", std::string(to_string(file.kind))},
          {"mode", file.facts.mode},
          {"facts", std::move(facts)},
          {"diagnostics", std::move(diagnostics)}};
}

} // namespace mpsaudit
