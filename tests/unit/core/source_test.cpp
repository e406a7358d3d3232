#include <catch2/catch.hpp>

#include "core/source.h"

using namespace mpsaudit;

TEST_CASE("a requirements file is named for what it holds, wherever the word stands", "[core][source]") {
  for (const char *path :
       {"requirements.txt", "requirements-dev.txt", "dev_requirements.txt", "vim/vim_requirements.txt",
        "tools/serve-requirements.in", "requirements/base.txt", "constraints.txt"}) {
    INFO(path);
    CHECK(classify_path(path) == FileKind::Requirements);
  }
  // Near cases: prose about requirements, and a singular word that names none.
  for (const char *path : {"docs/requirements.md", "requirement_notes.txt", "tools/upgrade_notes.txt"}) {
    INFO(path);
    CHECK(classify_path(path) != FileKind::Requirements);
  }
}
