// .gitmodules: the libraries a repository vendors as git submodules. Each
// `[submodule "..."]` section becomes a `submodule` fact at its url line,
// named by the library (the url's last path component, lower case, without
// `.git`), with the url and path as attributes. Whether a library is
// CUDA-only is the rules' knowledge (rules/build.toml), not the reader's.
#include <string>

#include "core/text.h"
#include "frontend/manifest/manifest_frontend.h"

namespace mpsaudit {
namespace {

// "https://github.com/NVIDIA/cutlass.git" -> "cutlass".
std::string library_of(std::string_view url) {
  while (!url.empty() && (url.back() == '/' || url.back() == ' '))
    url.remove_suffix(1);
  const auto slash = url.find_last_of("/:");
  std::string_view leaf = slash == std::string_view::npos ? url : url.substr(slash + 1);
  if (ends_with(leaf, ".git"))
    leaf.remove_suffix(4);
  return to_lower(leaf);
}

struct Section {
  std::string name, path, url;
  std::uint32_t url_line = 0, header_line = 0;
};

void add_submodule(const Section &section, FileFacts &out) {
  if (section.header_line == 0 || (section.url.empty() && section.path.empty()))
    return;
  Fact fact;
  fact.kind = fact_kind::Submodule;
  fact.name = library_of(section.url.empty() ? section.path : section.url);
  const std::uint32_t line = section.url_line != 0 ? section.url_line : section.header_line;
  fact.span = Span{line, 1, line, 1};
  fact.set_attribute("url", section.url);
  fact.set_attribute("path", section.path);
  fact.set_attribute("submodule", section.name);
  out.facts.push_back(std::move(fact));
}

} // namespace

FileFacts extract_gitmodules(std::string_view text, const std::string & /*path*/) {
  FileFacts out;
  Section section;
  std::uint32_t line_number = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto end = text.find('\n', at);
    const std::string_view raw =
        text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    at = end == std::string_view::npos ? text.size() + 1 : end + 1;
    ++line_number;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';')
      continue;
    if (line.front() == '[') {
      add_submodule(section, out);
      section = Section{};
      section.header_line = line_number;
      const auto open = line.find('"'), close = line.rfind('"');
      if (open != std::string_view::npos && close > open)
        section.name = std::string(line.substr(open + 1, close - open - 1));
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string_view::npos)
      continue;
    const std::string key = to_lower(trim(line.substr(0, equals)));
    std::string_view value_text = line.substr(equals + 1);
    // git config ends an unquoted value at a comment: `url = u  # note`.
    const auto comment = value_text.find_first_of("#;");
    if (comment != std::string_view::npos)
      value_text = value_text.substr(0, comment);
    const std::string value(trim(value_text));
    if (key == "url") {
      section.url = value;
      section.url_line = line_number;
    } else if (key == "path") {
      section.path = value;
    }
  }
  add_submodule(section, out);
  return out;
}

} // namespace mpsaudit
