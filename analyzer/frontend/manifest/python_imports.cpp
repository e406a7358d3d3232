#include "frontend/manifest/python_imports.h"

#include "core/text.h"

namespace mpsaudit {

bool is_test_module(std::string_view path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    const std::string_view part =
        path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (slash == std::string_view::npos)
      return starts_with(part, "test_") || ends_with(part, "_test.py") || part == "conftest.py";
    if (part == "test" || part == "tests")
      return true;
    start = slash + 1;
  }
  return false;
}

std::string relative_base(const std::string &path, std::string_view module) {
  std::size_t level = 0;
  while (level < module.size() && module[level] == '.')
    ++level;
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', start)) {
    parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  if (level == 0 || level - 1 > parts.size())
    return {};
  parts.resize(parts.size() - (level - 1));
  std::string base;
  for (const auto &part : parts)
    base += (base.empty() ? "" : ".") + part;
  const std::string_view rest = module.substr(level);
  if (!rest.empty())
    base += (base.empty() ? "" : ".") + std::string(rest);
  return base;
}

std::vector<std::string> imported_modules(const ProjectFile &file, const Fact &import) {
  if (!import.attribute("relative"))
    return {import.name};
  const std::string base = relative_base(file.path, import.name);
  const std::string *names = import.attribute("names");
  std::vector<std::string> modules;
  if (!names)
    return modules;
  std::size_t start = 0;
  while (start <= names->size()) {
    auto comma = names->find(',', start);
    if (comma == std::string::npos)
      comma = names->size();
    const std::string name = names->substr(start, comma - start);
    if (!name.empty())
      modules.push_back(base.empty() ? name : base + "." + name);
    start = comma + 1;
  }
  return modules;
}

} // namespace mpsaudit
