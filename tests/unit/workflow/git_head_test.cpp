// head_commit: the commit HEAD names, read from files as git would resolve
// it (`git rev-parse HEAD`), for a branch, a packed ref, a detached HEAD and
// an unborn branch.
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "../git_test_support.h"
#include "workflow/git_repository.h"

using namespace mpsaudit;
using mpsaudit::testing::ScratchRepository;

namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

std::optional<std::string> head_of(const ScratchRepository &repository) {
  const std::optional<GitRepository> found = find_git_repository(repository.root());
  REQUIRE(found);
  return head_commit(*found);
}

} // namespace

TEST_CASE("head_commit reads a branch's loose ref, a packed ref and a detached HEAD as git does") {
  ScratchRepository repository;
  repository.write("train.py", "import torch\n");
  repository.git("add train.py");
  repository.git("commit -q -m first");
  const std::string first = trimmed(repository.git("rev-parse HEAD"));
  CHECK(head_of(repository) == first);

  repository.git("pack-refs --all --prune"); // the branch now lives in packed-refs only
  CHECK(head_of(repository) == first);

  repository.write("train.py", "import torch\nprint(1)\n");
  repository.git("commit -q -am second");
  const std::string second = trimmed(repository.git("rev-parse HEAD"));
  CHECK(head_of(repository) == second);

  repository.git("checkout -q --detach " + first);
  CHECK(head_of(repository) == first);
}

TEST_CASE("head_commit has no commit for an unborn branch or a HEAD that points outside refs/") {
  ScratchRepository repository;
  CHECK_FALSE(head_of(repository)); // nothing committed yet
  repository.write(".git/HEAD", "ref: ../../outside\n");
  CHECK_FALSE(head_of(repository));
}
