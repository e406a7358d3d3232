// pyproject.toml (PEP 621, PEP 735 dependency groups, [build-system], Poetry,
// uv indexes) and setup.cfg ([options] install_requires, extras_require).
#include <map>
#include <toml++/toml.h>

#include "core/text.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/requirement.h"

namespace mpsaudit {
using namespace manifest;

namespace {

std::uint32_t line_of(const toml::source_region &region) {
  return static_cast<std::uint32_t>(region.begin.line);
}
std::uint32_t column_of(const toml::source_region &region) {
  return static_cast<std::uint32_t>(region.begin.column);
}

class PyprojectReader {
public:
  PyprojectReader(const std::string &path, FileFacts &facts) : path_(path), facts_(facts) {}

  void read(const toml::table &root) {
    read_indexes(root);
    if (const auto *project = root["project"].as_table()) {
      read_requirement_array((*project)["dependencies"].as_array(), "pyproject", {}, {});
      if (const auto *optional = (*project)["optional-dependencies"].as_table())
        for (const auto &[extra, list] : *optional)
          read_requirement_array(list.as_array(), "pyproject", std::string(extra.str()), {});
      read_scripts((*project)["scripts"].as_table());
      read_scripts((*project)["gui-scripts"].as_table());
    }
    if (const auto *build = root["build-system"].as_table())
      read_requirement_array((*build)["requires"].as_array(), "build-system", {}, {});
    if (const auto *groups = root["dependency-groups"].as_table())
      for (const auto &[group, list] : *groups)
        read_requirement_array(list.as_array(), "pyproject", {}, std::string(group.str()));
    if (const auto *poetry = root["tool"]["poetry"].as_table())
      read_poetry(*poetry);
    if (const auto *uv_sources = root["tool"]["uv"]["sources"].as_table())
      read_uv_sources(*uv_sources);
  }

private:
  // [project.scripts]: command = "pkg.mod:func", an entry point of the project.
  void read_scripts(const toml::table *scripts) {
    if (!scripts)
      return;
    for (const auto &[command, target] : *scripts) {
      const auto *reference = target.as_string();
      if (!reference)
        continue;
      Fact fact =
          make_fact(manifest_fact_kind::EntryPoint, reference->get(), line_of(reference->source()),
                    column_of(reference->source()) + 1, static_cast<std::uint32_t>(reference->get().size()));
      fact.set_attribute("script", std::string(command.str()));
      facts_.facts.push_back(std::move(fact));
    }
  }

  // [[tool.poetry.source]] and [[tool.uv.index]]: index name -> URL.
  void read_indexes(const toml::table &root) {
    const auto read_list = [&](const toml::array *list, std::string_view option) {
      if (!list)
        return;
      for (const auto &entry : *list) {
        const auto *table = entry.as_table();
        if (!table)
          continue;
        const auto *url = (*table)["url"].as_string();
        if (!url)
          continue;
        const std::string name = (*table)["name"].value_or(std::string{});
        indexes_[name] = url->get();
        Fact fact = make_fact(manifest_fact_kind::PackageIndex, url->get(), line_of(url->source()),
                              column_of(url->source()) + 1, static_cast<std::uint32_t>(url->get().size()));
        fact.set_attribute("option", std::string(option));
        fact.set_attribute("index_name", name);
        fact.set_attribute("source", "pyproject");
        fact.set_attribute("value", "url = \"" + url->get() + "\"");
        const std::string tag = cuda_tag_of(url->get());
        if (!tag.empty())
          fact.set_attribute("cuda_tag", tag);
        // An index only used through `explicit = true` / priority explicit
        // serves just the packages that name it.
        if ((*table)["explicit"].value_or(false) ||
            (*table)["priority"].value_or(std::string{}) == "explicit")
          fact.set_attribute("explicit", "true");
        facts_.facts.push_back(std::move(fact));
      }
    };
    read_list(root["tool"]["poetry"]["source"].as_array(), "poetry-source");
    read_list(root["tool"]["uv"]["index"].as_array(), "uv-index");
  }

  void read_requirement_array(const toml::array *list, std::string_view source, const std::string &extra,
                              const std::string &group) {
    if (!list)
      return;
    for (const auto &element : *list) {
      const auto *text = element.as_string();
      if (!text)
        continue; // {include-group = "..."} tables in dependency groups
      std::string error;
      const auto requirement = parse_requirement(text->get(), error);
      const std::uint32_t line = line_of(text->source());
      if (!requirement) {
        add_diagnostic(facts_, DiagnosticLevel::Warning, path_, line, "invalid-requirement",
                       "cannot read requirement '" + text->get() + "': " + error);
        continue;
      }
      // Column: one past the opening quote, plus the name's offset.
      Fact fact = dependency_fact(*requirement, text->get(), source, line,
                                  column_of(text->source()) + 1 +
                                      static_cast<std::uint32_t>(requirement->name_offset));
      if (!extra.empty()) {
        fact.set_attribute("extra", extra);
        if (fact.guard == Guard::None)
          fact.guard = Guard::OptionalExtra;
      }
      if (!group.empty())
        fact.set_attribute("group", group);
      facts_.facts.push_back(std::move(fact));
    }
  }

  void read_poetry_table(const toml::table *dependencies, const std::string &group, bool optional_group) {
    if (!dependencies)
      return;
    for (const auto &[key, value] : *dependencies) {
      const std::string name(key.str());
      if (to_lower(name) == "python")
        continue;
      Requirement requirement;
      requirement.name = name;
      std::string marker, source_name, raw;
      bool optional = optional_group;
      std::string version;
      if (const auto *text = value.as_string()) {
        version = text->get();
        raw = name + " = \"" + version + "\"";
      } else if (const auto *table = value.as_table()) {
        version = (*table)["version"].value_or(std::string{});
        marker = (*table)["markers"].value_or(std::string{});
        source_name = (*table)["source"].value_or(std::string{});
        optional = optional || (*table)["optional"].value_or(false);
        if (const auto platform = (*table)["platform"].value<std::string>())
          marker = marker.empty() ? "sys_platform == \"" + *platform + "\""
                                  : "(" + marker + ") and sys_platform == \"" + *platform + "\"";
        if (const auto url = (*table)["url"].value<std::string>())
          requirement.url = *url;
        if (const auto git = (*table)["git"].value<std::string>())
          requirement.url = *git;
        if (const auto *extras = (*table)["extras"].as_array()) {
          for (const auto &extra : *extras)
            if (const auto *e = extra.as_string())
              requirement.extras += (requirement.extras.empty() ? "" : ",") + e->get();
        }
        raw = version.empty() ? name : name + " = \"" + version + "\"";
      } else if (value.is_array()) {
        raw = name + " = [ ... ]"; // multiple constraints: read the name only
      }
      requirement.specifier = version;
      requirement.marker = marker;
      // Poetry writes "2.1.0" for ==2.1.0, "^2.1" and "~2.1" for ranges.
      if (!version.empty() && std::string_view("^~<>=!*").find(version.front()) == std::string_view::npos)
        requirement.version = version;
      else if (starts_with(version, "=="))
        requirement.version = version.substr(2);
      const auto plus = version.find('+');
      if (plus != std::string::npos)
        requirement.local_version = version.substr(plus + 1);
      Fact fact = dependency_fact(requirement, raw, "poetry", line_of(key.source()), column_of(key.source()));
      if (!group.empty())
        fact.set_attribute("group", group);
      if (!source_name.empty()) {
        fact.set_attribute("index", source_name);
        const auto index = indexes_.find(source_name);
        if (index != indexes_.end()) {
          fact.set_attribute("index_url", index->second);
          const std::string tag = cuda_tag_of(index->second);
          if (!tag.empty())
            fact.set_attribute("cuda_tag", tag);
        }
      }
      if (optional && fact.guard == Guard::None)
        fact.guard = Guard::OptionalExtra;
      if (optional)
        fact.set_attribute("optional", "true");
      facts_.facts.push_back(std::move(fact));
    }
  }

  void read_poetry(const toml::table &poetry) {
    read_poetry_table(poetry["dependencies"].as_table(), {}, false);
    read_poetry_table(poetry["dev-dependencies"].as_table(), "dev", false);
    read_scripts(poetry["scripts"].as_table());
    if (const auto *groups = poetry["group"].as_table())
      for (const auto &[group, group_node] : *groups) {
        const auto *group_table = group_node.as_table();
        if (!group_table)
          continue;
        read_poetry_table((*group_table)["dependencies"].as_table(), std::string(group.str()),
                          (*group_table)["optional"].value_or(false));
      }
  }

  // [tool.uv.sources] torch = { index = "pytorch-cu118", marker = "..." }:
  // annotate the dependency facts already read.
  void read_uv_sources(const toml::table &sources) {
    for (const auto &[key, value] : sources) {
      const std::string name = normalize_package_name(key.str());
      std::vector<const toml::table *> entries;
      if (const auto *table = value.as_table())
        entries.push_back(table);
      else if (const auto *list = value.as_array())
        for (const auto &entry : *list)
          if (const auto *entry_table = entry.as_table())
            entries.push_back(entry_table);
      for (const auto *entry : entries) {
        const std::string index = (*entry)["index"].value_or(std::string{});
        const std::string marker = (*entry)["marker"].value_or(std::string{});
        const auto found = indexes_.find(index);
        if (index.empty() || found == indexes_.end())
          continue;
        const std::string tag = cuda_tag_of(found->second);
        // A source limited to Linux by its marker leaves the Mac on PyPI.
        if (!marker.empty() && evaluate_marker_on_mac(marker) == MarkerOutcome::False)
          continue;
        for (Fact &fact : facts_.facts)
          if (fact.kind == fact_kind::Dependency && fact.name == name) {
            fact.set_attribute("index", index);
            fact.set_attribute("index_url", found->second);
            if (!tag.empty())
              fact.set_attribute("cuda_tag", tag);
          }
      }
    }
  }

  const std::string &path_;
  FileFacts &facts_;
  std::map<std::string, std::string> indexes_;
};

} // namespace

FileFacts extract_pyproject(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "ast";
#if TOML_EXCEPTIONS
  try {
    const toml::table root = toml::parse(text, path);
    PyprojectReader(path, facts).read(root);
  } catch (const toml::parse_error &error) {
    add_diagnostic(facts, DiagnosticLevel::Error, path, static_cast<std::uint32_t>(error.source().begin.line),
                   "parse-error", "invalid TOML: " + std::string(error.description()));
    facts.mode = "error";
  }
#else
  toml::parse_result result = toml::parse(text, path);
  if (!result) {
    add_diagnostic(facts, DiagnosticLevel::Error, path,
                   static_cast<std::uint32_t>(result.error().source().begin.line), "parse-error",
                   "invalid TOML: " + std::string(result.error().description()));
    facts.mode = "error";
  } else {
    PyprojectReader(path, facts).read(result.table());
  }
#endif
  return facts;
}

// setup.cfg: an INI file; requirement lists are multi-line values whose
// continuation lines are indented.
FileFacts extract_setup_cfg(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "lexical";
  std::string section, key;
  std::uint32_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    const std::string_view stripped = trim(line);
    if (stripped.empty() || stripped.front() == '#' || stripped.front() == ';')
      continue;
    const bool continuation = line.front() == ' ' || line.front() == '\t';
    std::string_view value;
    std::size_t value_offset = 0;
    if (!continuation) {
      if (stripped.front() == '[') {
        const auto close = stripped.find(']');
        if (close == std::string_view::npos)
          add_diagnostic(facts, DiagnosticLevel::Warning, path, line_number, "parse-error",
                         "unterminated section header");
        section = std::string(
            trim(stripped.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1)));
        key.clear();
        continue;
      }
      const auto separator = line.find_first_of("=:");
      if (separator == std::string_view::npos) {
        add_diagnostic(facts, DiagnosticLevel::Warning, path, line_number, "parse-error",
                       "expected 'key = value' or a [section]");
        key.clear();
        continue;
      }
      key = std::string(trim(line.substr(0, separator)));
      value = line.substr(separator + 1);
      value_offset = separator + 1;
    } else {
      value = line;
    }
    const bool install = section == "options" && (key == "install_requires" || key == "setup_requires");
    const bool extra = section == "options.extras_require" && !key.empty();
    if (!install && !extra)
      continue;
    // Strip an inline comment and surrounding blanks, keep the offset.
    const auto comment = value.find(" #");
    if (comment != std::string_view::npos)
      value = value.substr(0, comment);
    std::size_t lead = 0;
    while (lead < value.size() && (value[lead] == ' ' || value[lead] == '\t'))
      ++lead;
    const std::string_view requirement_text = trim(value);
    // install_requires = a; b on one line is rare; lists are one per line.
    if (requirement_text.empty())
      continue;
    std::string error;
    const auto requirement = parse_requirement(requirement_text, error);
    if (!requirement) {
      add_diagnostic(facts, DiagnosticLevel::Warning, path, line_number, "invalid-requirement",
                     "cannot read requirement '" + std::string(requirement_text) + "': " + error);
      continue;
    }
    const auto column = static_cast<std::uint32_t>(value_offset + lead + requirement->name_offset + 1);
    Fact fact = dependency_fact(*requirement, requirement_text,
                                key == "setup_requires" ? "build-system" : "setup-cfg", line_number, column);
    if (extra) {
      fact.set_attribute("extra", key);
      if (fact.guard == Guard::None)
        fact.guard = Guard::OptionalExtra;
    }
    facts.facts.push_back(std::move(fact));
  }
  return facts;
}

} // namespace mpsaudit
