// The table of front ends by file kind. An optional front end (one whose
// folder may be absent or whose dependency may be missing) is compiled in
// when its library target exists; see analyzer/CMakeLists.txt.
#include <array>

#include "frontend/frontend.h"
#include "frontend/python/python_frontend.h"
#if MPSAUDIT_HAVE_MANIFEST
#include "frontend/manifest/manifest_frontend.h"
#endif
#if MPSAUDIT_HAVE_CXX
#include "frontend/cxx/cxx_frontend.h"
#endif
#if MPSAUDIT_HAVE_PROSE
#include "frontend/prose/prose_frontend.h"
#endif

namespace mpsaudit {
namespace {

ExtractorTable build_table() {
  ExtractorTable table;
  register_python_frontends(table);
#if MPSAUDIT_HAVE_MANIFEST
  register_manifest_frontends(table);
#endif
#if MPSAUDIT_HAVE_CXX
  register_cxx_frontends(table);
#endif
#if MPSAUDIT_HAVE_PROSE
  register_prose_frontends(table);
#endif
  return table;
}

} // namespace

const Extractor *find_extractor(FileKind kind) {
  static const ExtractorTable table = build_table();
  return table.find(kind);
}

} // namespace mpsaudit
