// What the import-reading project passes share: which files are tests, and
// the absolute module names an import statement names (which files are
// Python code: is_python_code in core/source.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/project_pass.h"

namespace mpsaudit {

// Under test/ or tests/, or test_*.py, *_test.py, conftest.py. Tests import
// the code they test; that is no migration step of its own.
bool is_test_module(std::string_view path);

// The package a relative import starts from: `from .. import x` in
// pkg/sub/mod.py is pkg. Empty when it climbs above the scanned tree.
std::string relative_base(const std::string &path, std::string_view module);

// What an `import` fact names as modules, absolute and dotted: `from pkg
// import a` gives pkg.a (the front end's name); `from .sub import a, b` in
// pkg/mod.py gives pkg.sub.a and pkg.sub.b.
std::vector<std::string> imported_modules(const ProjectFile &file, const Fact &import);

} // namespace mpsaudit
