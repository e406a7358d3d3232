// Conda environment files (environment*.yml): channels, conda match specs
// (`pytorch-cuda=11.8`, `nvidia::cudnn`, build strings), and the `pip:`
// subsection, which is a requirements list read by the requirements reader.
#include <yaml-cpp/yaml.h>

#include "core/text.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/package_knowledge.h"
#include "frontend/manifest/requirement.h"
#include "frontend/manifest/requirements_reader.h"

namespace mpsaudit {
using namespace manifest;

namespace {

std::uint32_t line_of(const YAML::Node &node) {
  return static_cast<std::uint32_t>(node.Mark().line + 1);
}
std::uint32_t column_of(const YAML::Node &node) {
  return static_cast<std::uint32_t>(node.Mark().column + 1);
}

// yaml-cpp's mark for a quoted scalar points at the quote.
std::uint32_t value_column(const YAML::Node &node, const LineIndex &lines) {
  const std::uint32_t line = line_of(node);
  const std::uint32_t column = column_of(node);
  const std::string_view line_text = lines.line_text(line);
  if (column >= 1 && column <= line_text.size() &&
      (line_text[column - 1] == '"' || line_text[column - 1] == '\''))
    return column + 1;
  return column;
}

// A conda match spec: [channel::]name[ version[ build]] or name=version=build
// or name>=version. Returns false when there is no name.
struct CondaSpec {
  std::string channel, name, version, build;
};

bool parse_conda_spec(std::string_view spec, CondaSpec &out) {
  spec = trim(spec);
  const auto colons = spec.find("::");
  if (colons != std::string_view::npos) {
    out.channel = std::string(spec.substr(0, colons));
    spec = spec.substr(colons + 2);
  }
  std::size_t i = 0;
  while (i < spec.size() && (std::isalnum(static_cast<unsigned char>(spec[i])) || spec[i] == '-' ||
                             spec[i] == '_' || spec[i] == '.'))
    ++i;
  if (i == 0)
    return false;
  out.name = std::string(spec.substr(0, i));
  std::string_view rest = trim(spec.substr(i));
  if (rest.empty())
    return true;
  if (rest.front() == '=' && !starts_with(rest, "==")) {
    rest.remove_prefix(1);
    const auto second = rest.find('=');
    out.version = std::string(trim(rest.substr(0, second)));
    if (second != std::string_view::npos)
      out.build = std::string(trim(rest.substr(second + 1)));
    return true;
  }
  if (starts_with(rest, "=="))
    rest.remove_prefix(2);
  const auto space = rest.find(' ');
  out.version = std::string(trim(rest.substr(0, space)));
  if (space != std::string_view::npos)
    out.build = std::string(trim(rest.substr(space + 1)));
  return true;
}

void read_pip_section(const YAML::Node &pip, const LineIndex &lines, const std::string &path,
                      FileFacts &facts) {
  for (const auto &item : pip) {
    if (!item.IsScalar())
      continue;
    // Each item is one requirements-file line at the item's position.
    auto parse = parse_requirements_text(item.Scalar(), path, "conda-pip", line_of(item));
    const std::uint32_t column = value_column(item, lines);
    for (Fact &fact : parse.facts.facts) {
      const std::uint32_t length = fact.span.end_column - fact.span.column;
      fact.span.column += column - 1;
      fact.span.end_column = fact.span.column + length;
      facts.facts.push_back(std::move(fact));
    }
    for (auto &diagnostic : parse.facts.diagnostics)
      facts.diagnostics.push_back(std::move(diagnostic));
    for (const auto &include : parse.includes)
      add_diagnostic(facts, DiagnosticLevel::Note, path, include.line, "pip-include",
                     "pip section includes '" + include.target + "'; it is scanned as its own file");
  }
}

} // namespace

FileFacts extract_conda_env(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "ast";
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception &error) {
    add_diagnostic(facts, DiagnosticLevel::Error, path,
                   error.mark.is_null() ? 0 : static_cast<std::uint32_t>(error.mark.line + 1), "parse-error",
                   "invalid YAML: " + error.msg);
    facts.mode = "error";
    return facts;
  }
  if (!root.IsMap()) {
    if (!root.IsNull())
      add_diagnostic(facts, DiagnosticLevel::Warning, path, line_of(root), "parse-error",
                     "a conda environment file is a mapping with channels and dependencies");
    return facts;
  }
  const LineIndex lines(text);
  try {
    if (const YAML::Node channels = root["channels"]; channels && channels.IsSequence())
      for (const auto &channel : channels) {
        if (!channel.IsScalar())
          continue;
        Fact fact =
            make_fact(manifest_fact_kind::CondaChannel, channel.Scalar(), line_of(channel),
                      value_column(channel, lines), static_cast<std::uint32_t>(channel.Scalar().size()));
        fact.set_attribute("value", channel.Scalar());
        facts.facts.push_back(std::move(fact));
      }
    const YAML::Node dependencies = root["dependencies"];
    if (dependencies && dependencies.IsSequence()) {
      for (const auto &item : dependencies) {
        if (item.IsMap()) {
          if (const YAML::Node pip = item["pip"]; pip && pip.IsSequence())
            read_pip_section(pip, lines, path, facts);
          continue;
        }
        if (!item.IsScalar())
          continue;
        CondaSpec spec;
        if (!parse_conda_spec(item.Scalar(), spec)) {
          add_diagnostic(facts, DiagnosticLevel::Warning, path, line_of(item), "invalid-requirement",
                         "cannot read conda package spec '" + item.Scalar() + "'");
          continue;
        }
        const std::uint32_t column =
            value_column(item, lines) +
            (spec.channel.empty() ? 0 : static_cast<std::uint32_t>(spec.channel.size() + 2));
        Fact fact = make_fact(fact_kind::Dependency, normalize_package_name(spec.name), line_of(item), column,
                              static_cast<std::uint32_t>(spec.name.size()));
        fact.set_attribute("value", item.Scalar());
        fact.set_attribute("source", "conda");
        if (!spec.version.empty())
          fact.set_attribute("version", spec.version);
        if (!spec.build.empty())
          fact.set_attribute("build", to_lower(spec.build));
        if (!spec.channel.empty())
          fact.set_attribute("channel", spec.channel);
        const std::string tag = cuda_tag_of(spec.build);
        if (!tag.empty() || to_lower(spec.build).find("cuda") != std::string::npos)
          fact.set_attribute("cuda_tag", tag.empty() ? "cuda" : tag);
        annotate_dependency(fact);
        facts.facts.push_back(std::move(fact));
      }
    }
  } catch (const YAML::Exception &error) {
    add_diagnostic(facts, DiagnosticLevel::Warning, path,
                   error.mark.is_null() ? 0 : static_cast<std::uint32_t>(error.mark.line + 1), "parse-error",
                   "unexpected YAML structure: " + error.msg);
  }
  return facts;
}

} // namespace mpsaudit
