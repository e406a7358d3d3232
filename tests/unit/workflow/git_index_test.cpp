// The in-process git index reader (versions 2, 3 and 4, split indexes,
// conflicts) against what git itself reports for the same index, and its
// behaviour on malformed indexes.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../git_test_support.h"
#include "core/text.h"
#include "workflow/git_repository.h"
#include "workflow/sha1.h"

using namespace mpsaudit;
using mpsaudit::testing::ScratchRepository;
namespace fs = std::filesystem;

namespace {

// "mode oid stage\tpath" per entry, as `git ls-files -s` prints them.
std::vector<std::string> git_stage_listing(const ScratchRepository &repository) {
  const std::string output = repository.git("ls-files -s -z");
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < output.size()) {
    const std::size_t end = output.find('\0', start);
    lines.push_back(output.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> our_stage_listing(const GitIndex &index) {
  std::vector<std::string> lines;
  for (const auto &entry : index.entries) {
    char mode[16];
    std::snprintf(mode, sizeof mode, "%06o", entry.mode);
    lines.push_back(std::string(mode) + " " + to_hex(entry.object_id) + " " + std::to_string(entry.stage) +
                    "\t" + std::string(entry.path));
  }
  return lines;
}

GitIndex read_index(const ScratchRepository &repository) {
  const std::optional<GitRepository> found = find_git_repository(repository.root());
  REQUIRE(found);
  GitIndex index;
  std::string error;
  INFO(error);
  REQUIRE(read_git_index(*found, index, error));
  return index;
}

const GitIndexEntry *entry_for(const GitIndex &index, const std::string &path) {
  for (const auto &entry : index.entries)
    if (entry.path == path)
      return &entry;
  return nullptr;
}

std::string index_bytes(const ScratchRepository &repository) {
  std::string data, error;
  REQUIRE(read_regular_file(repository.root() / ".git" / "index", 1u << 30, true, data, error));
  return data;
}

// A repository whose index has every kind of entry: nested paths sharing
// prefixes (what version 4 compresses), an executable, a symlink, a path
// longer than the 12-bit name length, an intent-to-add entry (which needs
// extended flags: version 3) and a skip-worktree one.
void fill(ScratchRepository &repository) {
  repository.write("a.py");
  repository.write("pkg/module.py");
  repository.write("pkg/module_test.py");
  repository.write("pkg/sub/deep.py");
  repository.write("pkg/sub/deeper/deepest.py");
  repository.write("tool.sh", "#!/bin/sh\n");
  fs::permissions(repository.root() / "tool.sh", fs::perms::owner_exec, fs::perm_options::add);
  fs::create_symlink("a.py", repository.root() / "link.py");
  repository.git("add -A");
  repository.git("commit -q -m start");
  const std::string blob = repository.git("hash-object -w a.py").substr(0, 40);
  std::string long_path;
  for (int i = 0; i < 22; ++i)
    long_path += std::string(200, static_cast<char>('a' + i)) + "/";
  long_path += "long.py";
  repository.git("update-index --add --cacheinfo 100644," + blob + "," + long_path);
  repository.write("later.py");
  repository.git("add -N later.py");
  repository.git("update-index --skip-worktree pkg/module.py");
  repository.git("update-index --assume-unchanged pkg/sub/deep.py");
}

} // namespace

TEST_CASE("SHA-1 gives git's blob ids", "[scan][git-index]") {
  Sha1 empty;
  empty.update(std::string("blob 0\0", 7));
  CHECK(to_hex(empty.finish()) == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  Sha1 abc;
  abc.update("abc");
  CHECK(to_hex(abc.finish()) == "a9993e364706816aba3e25717850c26c9cd0d89d");
  Sha1 long_input; // spans blocks, fed in uneven pieces
  const std::string million(1000000, 'a');
  long_input.update(std::string_view(million).substr(0, 63));
  long_input.update(std::string_view(million).substr(63));
  CHECK(to_hex(long_input.finish()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST_CASE("index versions 2, 3 and 4 read as git lists them", "[scan][git-index]") {
  ScratchRepository repository;
  fill(repository);
  for (const char *version : {"2", "3", "4"}) {
    // An intent-to-add entry needs version 3's extended flags; git keeps 3
    // when asked for 2.
    repository.git(std::string("update-index --index-version ") + version);
    INFO("index version " << version << " on disk " << static_cast<int>(index_bytes(repository)[7]));
    const GitIndex index = read_index(repository);
    CHECK(our_stage_listing(index) == git_stage_listing(repository));
    const GitIndexEntry *intent = entry_for(index, "later.py");
    REQUIRE(intent);
    CHECK(intent->intent_to_add);
    CHECK(entry_for(index, "pkg/module.py")->skip_worktree);
    CHECK(entry_for(index, "pkg/sub/deep.py")->assume_unchanged);
    CHECK_FALSE(entry_for(index, "a.py")->skip_worktree);
    CHECK(entry_for(index, "link.py")->is_symlink());
    CHECK(entry_for(index, "tool.sh")->mode == 0100755);
  }
}

TEST_CASE("a merge conflict's stages are all read", "[scan][git-index]") {
  ScratchRepository repository;
  repository.write("both.py", "base\n");
  repository.git("add -A");
  repository.git("commit -q -m base");
  repository.git("checkout -q -b other");
  repository.write("both.py", "other\n");
  repository.git("commit -q -am other");
  repository.git("checkout -q -");
  repository.write("both.py", "mine\n");
  repository.git("commit -q -am mine");
  repository.git("merge -q other || true");
  const GitIndex index = read_index(repository);
  CHECK(our_stage_listing(index) == git_stage_listing(repository));
  std::set<unsigned> stages;
  for (const auto &entry : index.entries)
    stages.insert(entry.stage);
  CHECK(stages == std::set<unsigned>{1, 2, 3});
}

TEST_CASE("a split index lists the shared index's paths too", "[scan][git-index]") {
  ScratchRepository repository;
  fill(repository);
  repository.git("update-index --split-index");
  repository.write("after_split.py");
  repository.git("add after_split.py");
  const GitIndex index = read_index(repository);
  CHECK_FALSE(index.shared_index.empty());
  std::set<std::string> ours, theirs;
  for (const auto &entry : index.entries)
    ours.insert(std::string(entry.path));
  for (const auto &line : git_stage_listing(repository))
    theirs.insert(line.substr(line.find('\t') + 1));
  CHECK(ours == theirs);
}

TEST_CASE("a malformed index is refused with a reason, never read out of bounds", "[scan][git-index]") {
  ScratchRepository repository;
  fill(repository);
  for (const char *version : {"3", "4"}) {
    repository.git(std::string("update-index --index-version ") + version);
    const std::string data = index_bytes(repository);
    GitIndex index;
    std::string error;
    REQUIRE(parse_git_index(data, 20, index, error));
    // Every truncation either parses (the cut fell in the extensions) or
    // fails with a reason.
    for (std::size_t length = 0; length < data.size(); ++length) {
      GitIndex cut;
      std::string why;
      if (!parse_git_index(std::string_view(data).substr(0, length), 20, cut, why))
        CHECK_FALSE(why.empty());
    }
    std::string wrong_signature = data;
    wrong_signature[0] = 'X';
    CHECK_FALSE(parse_git_index(wrong_signature, 20, index, error));
    std::string wrong_version = data;
    wrong_version[7] = 9;
    CHECK_FALSE(parse_git_index(wrong_version, 20, index, error));
    CHECK(error == "index version 9 is not supported");
    // Random bytes in the entries: a clean refusal or a result, never a crash.
    for (std::size_t at = 12; at < data.size(); at += 7) {
      std::string damaged = data;
      damaged[at] = static_cast<char>(damaged[at] ^ 0xA5);
      GitIndex result;
      std::string why;
      (void)parse_git_index(damaged, 20, result, why);
    }
  }
  // An unknown mandatory extension (lower-case signature), as git refuses.
  repository.git("update-index --index-version 2");
  std::string data = index_bytes(repository);
  const std::string extension = std::string("abcd") + std::string("\0\0\0\0", 4);
  data.insert(data.size() - 20, extension);
  GitIndex index;
  std::string error;
  CHECK_FALSE(parse_git_index(data, 20, index, error));
  CHECK(error == "unknown mandatory extension 'abcd'");
}

TEST_CASE("a repository is found from a subdirectory, with its prefix", "[scan][git-index]") {
  ScratchRepository repository;
  fill(repository);
  const std::optional<GitRepository> found = find_git_repository(repository.root() / "pkg" / "sub");
  REQUIRE(found);
  CHECK(found->top == fs::canonical(repository.root()));
  CHECK(found->prefix == "pkg/sub/");
  CHECK(found->hash_bytes == 20);
  // A .git that is not a repository stops the search: git does not look
  // further up either.
  repository.write("pkg/broken/.git", "gitdir: /nonexistent/place\n");
  CHECK_FALSE(find_git_repository(repository.root() / "pkg" / "broken"));
}

namespace {

// An index written here byte by byte: `paths` in order, each a regular file
// with the empty blob's id; version 4 entries strip nothing and add
// the next name to the previous path. No checksum check reads the trailer.
std::string index_of(std::uint32_t version, const std::vector<std::string> &names) {
  const auto u32 = [](std::uint32_t value) {
    return std::string{static_cast<char>(value >> 24), static_cast<char>(value >> 16),
                       static_cast<char>(value >> 8), static_cast<char>(value)};
  };
  std::string out = "DIRC" + u32(version) + u32(static_cast<std::uint32_t>(names.size()));
  std::string path;
  for (const auto &name : names) {
    path = version == 4 ? path + name : name;
    std::string entry = u32(0) + u32(0) + u32(0) + u32(0) + u32(0) + u32(0) + u32(0100644) + u32(0) + u32(0) +
                        u32(0) + std::string(20, '\x11');
    const auto length = static_cast<std::uint16_t>(std::min<std::size_t>(path.size(), 0xfff));
    entry += std::string{static_cast<char>(length >> 8), static_cast<char>(length)};
    if (version == 4) {
      entry += std::string(1, '\0') + name + std::string(1, '\0'); // strip nothing, add `name`
    } else {
      entry += path;
      entry.append(8 - entry.size() % 8, '\0');
    }
    out += entry;
  }
  return out + std::string(20, '\0');
}

} // namespace

TEST_CASE("an index's paths live in shared blocks that never move", "[scan][git-index]") {
  // 40,000 paths of 60 bytes: several storage blocks.
  std::vector<std::string> paths;
  for (int i = 0; i < 40000; ++i) {
    // Five digits, without snprintf: at -O1 (the sanitizer build) GCC cannot
    // bound `i` and warns that "%05d" may not fit.
    const std::string number = std::to_string(100000 + i).substr(1);
    paths.push_back("src/a-rather-long-package-name/module_" + number + "/file_" + number + ".py");
  }
  GitIndex index;
  std::string error;
  REQUIRE(parse_git_index(index_of(2, paths), 20, index, error));
  REQUIRE(index.entries.size() == paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i)
    CHECK(index.entries[i].path == paths[i]);
  CHECK(index.entries.back().object_id == std::string(20, '\x11'));
  // Moved, the entries still read the same.
  const GitIndex moved = std::move(index);
  CHECK(moved.entries.front().path == paths.front());
  CHECK(moved.entries.back().path == paths.back());
}

TEST_CASE("a version 4 index whose paths expand past 8 times its size is refused", "[scan][git-index]") {
  // Each path one byte longer than the previous: n entries of 65 bytes hold
  // n^2/2 bytes of paths.
  const std::vector<std::string> growing(20000, "a");
  const std::string data = index_of(4, growing);
  GitIndex index;
  std::string error;
  CHECK_FALSE(parse_git_index(data, 20, index, error));
  CHECK(error == "paths expand past 8 times the index's size");
  CHECK(index.storage.bytes_kept() <= kMaxIndexExpansion * data.size() + (1u << 20));
  // Prefix compression within the bound reads as git wrote it.
  GitIndex small;
  REQUIRE(parse_git_index(index_of(4, {"a/", "b.py", "c.py"}), 20, small, error));
  REQUIRE(small.entries.size() == 3);
  CHECK(small.entries[2].path == "a/b.pyc.py");
}

TEST_CASE("a repository without an index file reads as an empty, missing index", "[scan][git-index]") {
  ScratchRepository repository;
  const GitIndex index = read_index(repository);
  CHECK(index.missing);
  CHECK(index.entries.empty());
  repository.write("a.py");
  repository.git("add a.py");
  CHECK_FALSE(read_index(repository).missing);
}
