// The in-process .gitignore matcher and work tree listing: they must list
// exactly what `git ls-files --cached --others --exclude-standard` lists,
// without running git (docs/security.md, "File enumeration and git").
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "../git_test_support.h"
#include "scan/discover.h"
#include "workflow/gitignore.h"
#include "workflow/work_tree.h"

using namespace mpsaudit;
using mpsaudit::testing::ScratchRepository;
namespace fs = std::filesystem;

namespace {

struct WildCase {
  const char *pattern;
  const char *text;
  bool pathname;
  bool expected;
};

// From git's t/t3070-wildmatch.sh, with and without WM_PATHNAME.
const WildCase kWildCases[] = {
    {"foo", "foo", true, true},
    {"bar", "foo", true, false},
    {"", "", true, true},
    {"???", "foo", true, true},
    {"??", "foo", true, false},
    {"*", "foo", true, true},
    {"f*", "foo", true, true},
    {"*f", "foo", true, false},
    {"*foo*", "foo", true, true},
    {"*ob*a*r*", "foobar", true, true},
    {"*ab", "aaaaaaabababab", true, true},
    {"foo\\*", "foo*", true, true},
    {"foo\\*bar", "foobar", true, false},
    {"f\\\\oo", "f\\oo", true, true},
    {"*[al]?", "ball", true, true},
    {"[ten]", "ten", true, false},
    {"**[!te]", "ten", true, true},
    {"**[!ten]", "ten", true, false},
    {"t[a-g]n", "ten", true, true},
    {"t[!a-g]n", "ten", true, false},
    {"t[!a-g]n", "ton", true, true},
    {"t[^a-g]n", "ton", true, true},
    {"a[]]b", "a]b", true, true},
    {"a[]-]b", "a-b", true, true},
    {"a[]-]b", "a]b", true, true},
    {"a[]-]b", "aab", true, false},
    {"a[]a-]b", "aab", true, true},
    {"]", "]", true, true},
    {"foo*bar", "foo/baz/bar", true, false},
    {"foo*bar", "foo/baz/bar", false, true},
    {"foo**bar", "foo/baz/bar", true, false},
    {"foo/**/bar", "foo/baz/bar", true, true},
    {"foo/**/**/bar", "foo/baz/bar", true, true},
    {"foo/**/bar", "foo/b/a/z/bar", true, true},
    {"foo/**/bar", "foo/bar", true, true},
    {"foo?bar", "foo/bar", true, false},
    {"foo?bar", "foo/bar", false, true},
    {"foo[/]bar", "foo/bar", true, false},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true, true},
    {"**/foo", "foo", true, true},
    {"**/foo", "XXX/foo", true, true},
    {"**/foo", "bar/baz/foo", true, true},
    {"*/foo", "bar/baz/foo", true, false},
    {"**/bar*", "foo/bar/baz", true, false},
    {"**/bar/*", "deep/foo/bar/baz", true, true},
    {"**/bar/*", "deep/foo/bar/baz/", true, false},
    {"**/bar/**", "deep/foo/bar/baz/", true, true},
    {"**/bar/*", "deep/foo/bar", true, false},
    {"**/bar/**", "deep/foo/bar/", true, true},
    {"**/bar**", "foo/bar/baz", true, false},
    {"*/bar/**", "foo/bar/baz/x", true, true},
    {"*/bar/**", "deep/foo/bar/baz/x", true, false},
    {"**/bar/*/*", "deep/foo/bar/baz/x", true, true},
    {"a[c-c]st", "acrt", true, false},
    {"a[c-c]rt", "acrt", true, true},
    {"[!]-]", "]", true, false},
    {"[!]-]", "a", true, true},
    {"\\", "", true, false},
    {"\\", "\\", true, false},
    {"*/\\", "XXX/\\", true, false},
    {"*/\\\\", "XXX/\\", true, true},
    {"foo", "foo", true, true},
    {"@foo", "@foo", true, true},
    {"@foo", "foo", true, false},
    {"\\[ab]", "[ab]", true, true},
    {"[[]ab]", "[ab]", true, true},
    {"[[:]ab]", "[ab]", true, true},
    {"[[::]ab]", "[ab]", true, false},
    {"[[:digit]ab]", "[ab]", true, true},
    {"[\\[:]ab]", "[ab]", true, true},
    {"\\??\\?b", "?a?b", true, true},
    {"\\a\\b\\c", "abc", true, true},
    {"", "foo", true, false},
    {"**/t[o]", "foo/bar/baz/to", true, true},
    {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true, true},
    {"[[:digit:][:upper:][:space:]]", "a", true, false},
    {"[[:digit:][:upper:][:space:]]", "A", true, true},
    {"[[:digit:][:upper:][:space:]]", "1", true, true},
    {"[[:digit:][:upper:][:spaci:]]", "1", true, false},
    {"[[:digit:][:upper:][:space:]]", " ", true, true},
    {"[[:digit:][:upper:][:space:]]", ".", true, false},
    {"[[:digit:][:punct:][:space:]]", ".", true, true},
    {"[[:xdigit:]]", "5", true, true},
    {"[[:xdigit:]]", "f", true, true},
    {"[[:xdigit:]]", "D", true, true},
    {"[a-c[:digit:]x-z]", "5", true, true},
    {"[a-c[:digit:]x-z]", "b", true, true},
    {"[a-c[:digit:]x-z]", "y", true, true},
    {"[a-c[:digit:]x-z]", "q", true, false},
    {"[\\\\-^]", "]", true, true},
    {"[\\\\-^]", "[", true, false},
    {"[\\-_]", "-", true, true},
    {"[\\]]", "]", true, true},
    {"[\\]]", "\\]", true, false},
    {"[\\]]", "\\", true, false},
    {"a[]b", "ab", true, false},
    {"a[]b", "a[]b", true, false},
    {"ab[", "ab[", true, false},
    {"[!", "ab", true, false},
    {"[-", "ab", true, false},
    {"[-]", "-", true, true},
    {"[a-", "-", true, false},
    {"[!a-", "-", true, false},
    {"[--A]", "-", true, true},
    {"[--A]", "5", true, true},
    {"[ --]", " ", true, true},
    {"[ --]", "$", true, true},
    {"[ --]", "-", true, true},
    {"[ --]", "0", true, false},
    {"[---]", "-", true, true},
    {"[------]", "-", true, true},
    {"[a-e-n]", "j", true, false},
    {"[a-e-n]", "-", true, true},
    {"[!------]", "a", true, true},
    {"[]-a]", "[", true, false},
    {"[]-a]", "^", true, true},
    {"[!]-a]", "^", true, false},
    {"[!]-a]", "[", true, true},
    {"[a^bc]", "^", true, true},
    {"[a-]b]", "-b]", true, true},
    {"[\\]", "\\", true, false},
    {"[\\\\]", "\\", true, true},
    {"[!\\\\]", "\\", true, false},
    {"[A-\\\\]", "G", true, true},
    {"b*a", "aaabbb", true, false},
    {"*ba*", "aabcaa", true, false},
    {"[,]", ",", true, true},
    {"[\\\\,]", ",", true, true},
    {"[\\\\,]", "\\", true, true},
    {"[,-.]", "-", true, true},
    {"[,-.]", "+", true, false},
    {"[,-.]", "-.]", true, false},
    {"[\\1-\\3]", "2", true, true},
    {"[\\1-\\3]", "3", true, true},
    {"[\\1-\\3]", "4", true, false},
    {"[[-\\]]", "\\", true, true},
    {"[[-\\]]", "[", true, true},
    {"[[-\\]]", "]", true, true},
    {"[[-\\]]", "-", true, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true,
     true},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", true,
     false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", true,
     false},
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true,
     true},
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", true,
     false},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true, true},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", true, false},
    {"*/*/*", "foo", true, false},
    {"*/*/*", "foo/bar", true, false},
    {"*/*/*", "foo/bba/arr", true, true},
    {"*/*/*", "foo/bb/aa/rr", true, false},
    {"**/**/**", "foo/bb/aa/rr", true, true},
    {"*X*i", "abcXdefXghi", true, true},
    {"*X*i", "ab/cXd/efXg/hi", true, false},
    {"*/*X*/*/*i", "ab/cXd/efXg/hi", true, true},
    {"**/*X*/**/*i", "ab/cXd/efXg/hi", true, true},
};

std::set<std::string> split_nul(const std::string &output) {
  std::set<std::string> out;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\0', start);
    if (end == std::string::npos)
      end = output.size();
    if (end > start)
      out.insert(output.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// What list_work_tree gives, as git ls-files would print it: files, and
// directories not entered as "dir/" for nested repositories.
std::set<std::string> listed(const fs::path &root, const std::vector<std::string> *only = nullptr) {
  WorkTreeOptions options;
  options.only = only;
  const WorkTreeListing listing = list_work_tree(root, options);
  REQUIRE(listing.repository);
  std::set<std::string> out;
  for (const auto &file : listing.files)
    if (file.type == EntryType::Regular || file.type == EntryType::Symlink)
      out.insert(file.path);
  return out;
}

std::set<std::string> git_listed(const ScratchRepository &repository, const std::string &directory = ".") {
  return split_nul(repository.git("-C '" + directory + "' ls-files -z --cached --others --exclude-standard"));
}

// A work tree exercising every part of gitignore(5).
void fill(const ScratchRepository &repository) {
  repository.write(".gitignore", "# comment\n"
                                 "ignored_dir/\n"
                                 "*.log\n"
                                 "!keep.log\n"
                                 "/anchored.txt\n"
                                 "build/\n"
                                 "docs/**/generated.md\n"
                                 "**/cache\n"
                                 "out/**\n"
                                 "!out/kept.py\n"
                                 "\\#hash.txt\n"
                                 "\\!bang.txt\n"
                                 "trailing.txt   \n"
                                 "escaped\\ \n"
                                 "lib*/*.so\n"
                                 "[Tt]emp?.py\n"
                                 "dironly/\n"
                                 "mid/dle.txt\n"
                                 "crlf.txt\r\n"
                                 "/*.cfg\n"
                                 "deep/**/x.txt\n"
                                 "doc/frotz/\n"
                                 "**/logs/**\n"
                                 "!**/logs/keep.txt\n");
  for (const char *path : {"a.py",
                           "a.log",
                           "keep.log",
                           "sub/keep.log",
                           "sub/b.log",
                           "anchored.txt",
                           "sub/anchored.txt",
                           "build/x.py",
                           "sub/build/y.py",
                           "docs/generated.md",
                           "docs/a/b/generated.md",
                           "docs/a/other.md",
                           "cache/c.py",
                           "sub/deep/cache/d.py",
                           "out/o.py",
                           "out/kept.py",
                           "out/deeper/p.py",
                           "#hash.txt",
                           "!bang.txt",
                           "trailing.txt",
                           "escaped ",
                           "escaped",
                           "lib1/x.so",
                           "lib1/deep/y.so",
                           "Temp1.py",
                           "temp2.py",
                           "Temp10.py",
                           "dironly/f.py",
                           "sub/dironly",
                           "mid/dle.txt",
                           "sub/mid/dle.txt",
                           "crlf.txt",
                           "plain/keep.py",
                           "top.cfg",
                           "sub/top.cfg",
                           "deep/x.txt",
                           "deep/a/b/x.txt",
                           "sub/deep/x.txt",
                           "doc/frotz/f.py",
                           "sub/doc/frotz/g.py",
                           "logs/a.txt",
                           "logs/keep.txt",
                           "sub/logs/deeper/b.txt",
                           "sub/logs/keep.txt"})
    repository.write(path);
  // A nested .gitignore overrides its parents; a negation re-includes.
  repository.write("sub/.gitignore", "!b.log\n*.tmp\n/local.py\n");
  repository.write("sub/x.tmp");
  repository.write("sub/local.py");
  repository.write("sub/inner/local.py");
  repository.write("sub/inner/y.tmp");
  // A negation cannot re-include a file inside an ignored directory.
  repository.write("ignored_dir/.gitignore", "!*\n");
  repository.write("ignored_dir/z.py");
  repository.write(".git/info/exclude", "excluded_by_info.py\n");
  repository.write("excluded_by_info.py");
  repository.write("sub/excluded_by_info.py");
  // Tracked files stay listed though ignored; deleted ones are not (git
  // lists them, but there is nothing to read: compared separately).
  repository.git("add -A");
  repository.git("add -f build/x.py a.log");
  repository.git("commit -q -m start");
}

} // namespace

TEST_CASE("wildmatch agrees with git's test vectors", "[scan][gitignore]") {
  for (const auto &test : kWildCases) {
    INFO(std::string(test.pattern) + " against " + test.text + (test.pathname ? " (pathname)" : ""));
    CHECK(wildmatch(test.pattern, test.text, test.pathname) == test.expected);
  }
}

TEST_CASE("wildmatch on many stars ends, and still agrees with git, on texts it does and does not match",
          "[scan][gitignore]") {
  // Backtracking alone tries every way of spreading the text over the stars:
  // 40 stars over 300 characters would not end.
  std::string stars;
  std::string double_stars;
  for (int i = 0; i < 40; ++i) {
    stars += "*a";
    double_stars += "**a";
  }
  const std::string text(300, 'a');
  for (const bool pathname : {true, false}) {
    INFO((pathname ? "pathname" : "no pathname"));
    CHECK_FALSE(wildmatch(stars + "b", text, pathname));
    CHECK(wildmatch(stars + "b", text + "b", pathname));
    CHECK_FALSE(wildmatch(double_stars + "b", text, pathname));
    CHECK(wildmatch(double_stars + "b", text + "b", pathname));
    CHECK(wildmatch(stars + "*", text, pathname));
  }
  // A star stops at '/' with pathname: the remembered walks keep that apart.
  CHECK_FALSE(wildmatch(stars + "b", text + "/ab", true));
  CHECK(wildmatch(stars + "b", text + "/ab", false));
  CHECK(wildmatch("**/" + stars + "b", "dir/" + text + "b", true));
  const IgnoreFile file(stars + "b\n", "");
  CHECK(file.match(text, false) == IgnoreVerdict::NoMatch);
  CHECK(file.match(text + "b", false) == IgnoreVerdict::Ignored);
}

TEST_CASE("ignore files: negation, anchoring, directory-only patterns and escapes", "[scan][gitignore]") {
  const IgnoreFile file("*.log\n!keep.log\n/top.txt\nbuild/\n\\#x\n\\!y\nsp\\ \nz   \n# comment\n\n", "");
  CHECK(file.match("a.log", false) == IgnoreVerdict::Ignored);
  CHECK(file.match("d/a.log", false) == IgnoreVerdict::Ignored);
  CHECK(file.match("keep.log", false) == IgnoreVerdict::Included);
  CHECK(file.match("top.txt", false) == IgnoreVerdict::Ignored);
  CHECK(file.match("d/top.txt", false) == IgnoreVerdict::NoMatch);
  CHECK(file.match("build", true) == IgnoreVerdict::Ignored);
  CHECK(file.match("build", false) == IgnoreVerdict::NoMatch);
  CHECK(file.match("#x", false) == IgnoreVerdict::Ignored);
  CHECK(file.match("!y", false) == IgnoreVerdict::Ignored);
  CHECK(file.match("sp ", false) == IgnoreVerdict::Ignored);
  CHECK(file.match("z", false) == IgnoreVerdict::Ignored);
  CHECK(file.match("# comment", false) == IgnoreVerdict::NoMatch);
  // A nested file's patterns are relative to its directory.
  const IgnoreFile nested("/only-here.py\nmid/*.py\n", "pkg/");
  CHECK(nested.match("pkg/only-here.py", false) == IgnoreVerdict::Ignored);
  CHECK(nested.match("pkg/deeper/only-here.py", false) == IgnoreVerdict::NoMatch);
  CHECK(nested.match("only-here.py", false) == IgnoreVerdict::NoMatch);
  CHECK(nested.match("pkg/mid/a.py", false) == IgnoreVerdict::Ignored);
  CHECK(nested.match("pkg/mid/x/a.py", false) == IgnoreVerdict::NoMatch);
  // The innermost file decides.
  const auto top = std::make_shared<const IgnoreLevel>(IgnoreLevel{nullptr, IgnoreFile("*.py\n", "")});
  const IgnoreLevel inner{top, IgnoreFile("!keep.py\n", "pkg/")};
  CHECK(is_ignored(&inner, {}, "pkg/drop.py", false));
  CHECK_FALSE(is_ignored(&inner, {}, "pkg/keep.py", false));
  CHECK_FALSE(is_ignored(&inner, {}, "pkg/x.txt", false));
  CHECK(is_ignored(&inner, {IgnoreFile("x.txt\n", "")}, "pkg/x.txt", false));
}

TEST_CASE("the in-process listing equals git ls-files --cached --others --exclude-standard",
          "[scan][gitignore]") {
  ScratchRepository repository;
  fill(repository);
  // Untracked files after the commit, some ignored.
  repository.write("new.py");
  repository.write("new.log");
  repository.write("sub/new.tmp");
  repository.write("out/kept2.py");
  CHECK(listed(repository.root()) == git_listed(repository));
  // From a subdirectory: the parent's .gitignore files still apply.
  CHECK(listed(repository.root() / "sub") == git_listed(repository, "sub"));
  CHECK(listed(repository.root() / "docs") == git_listed(repository, "docs"));
  // A root inside an ignored directory lists its tracked files only.
  CHECK(listed(repository.root() / "build") == git_listed(repository, "build"));
  CHECK(listed(repository.root() / "build") == std::set<std::string>{"x.py"});
}

TEST_CASE("what the ignore files hide is listed as skipped, as git lists ignored paths",
          "[scan][gitignore]") {
  ScratchRepository repository;
  fill(repository);
  repository.write("new.log");
  const WorkTreeListing listing = list_work_tree(repository.root(), WorkTreeOptions{});
  REQUIRE(listing.repository);
  std::set<std::string> ignored;
  for (const auto &entry : listing.skipped)
    if (entry.reason == "gitignored")
      ignored.insert(entry.path + (fs::is_directory(repository.root() / entry.path) ? "/" : ""));
  // git prints ignored files, and ignored directories as "dir/", plus some
  // directories that merely hold ignored paths (deep/, deep/a/): the files
  // must agree, and every directory listed here must be among git's, but
  // build/, which holds a tracked file (listed too) that git then names.
  const auto files_only = [](const std::set<std::string> &paths) {
    std::set<std::string> out;
    for (const auto &path : paths)
      if (path.back() != '/')
        out.insert(path);
    return out;
  };
  const std::set<std::string> git_ignored =
      split_nul(repository.git("ls-files -z --others --ignored --exclude-standard --directory"));
  CHECK(files_only(ignored) == files_only(git_ignored));
  for (const auto &path : ignored)
    if (path.back() == '/' && path != "build/")
      CHECK(git_ignored.count(path));
  CHECK(ignored.count("build/"));
  for (const auto &file : listing.files)
    CHECK_FALSE(ignored.count(file.path));
  // A root inside an ignored directory: one entry for it.
  const WorkTreeListing inside = list_work_tree(repository.root() / "ignored_dir", WorkTreeOptions{});
  REQUIRE(inside.skipped.size() == 1);
  CHECK(inside.skipped.front().path == ".");
  CHECK(inside.skipped.front().reason == "gitignored");
}

TEST_CASE("a .git without an index is no work tree: its ignore files hide nothing", "[scan][gitignore]") {
  // What `git init` leaves before anything is added, and a few files made to
  // look like a repository: HEAD and objects/, no index.
  for (const bool made_by_git : {true, false}) {
    INFO((made_by_git ? "git init" : "HEAD and objects/ only"));
    ScratchRepository repository;
    if (!made_by_git) {
      fs::remove_all(repository.root() / ".git");
      repository.write(".git/HEAD", "ref: refs/heads/main\n");
      fs::create_directories(repository.root() / ".git" / "objects");
    }
    repository.write(".gitignore", "model.pt\nlogs/\n");
    repository.write("model.pt");
    repository.write("logs/run.txt");
    repository.write("train.py");
    const WorkTreeListing listing = list_work_tree(repository.root(), WorkTreeOptions{});
    CHECK_FALSE(listing.repository);
    std::set<std::string> files;
    for (const auto &file : listing.files)
      files.insert(file.path);
    CHECK(files == std::set<std::string>{".gitignore", "logs/run.txt", "model.pt", "train.py"});
    REQUIRE(listing.diagnostics.size() == 1);
    CHECK(listing.diagnostics.front().code == "no-git-index");
  }
}

TEST_CASE("a tracked file that matches an ignore pattern is still listed", "[scan][gitignore]") {
  ScratchRepository repository;
  fill(repository);
  const std::set<std::string> files = listed(repository.root());
  CHECK(files.count("build/x.py"));
  CHECK(files.count("a.log"));
  CHECK_FALSE(files.count("sub/build/y.py"));
  CHECK_FALSE(files.count("excluded_by_info.py"));
  CHECK_FALSE(files.count("ignored_dir/z.py"));
  CHECK(files.count("sub/b.log"));
  CHECK(files.count("out/kept.py"));
}

TEST_CASE("an index version 4 repository lists the same as git", "[scan][gitignore]") {
  ScratchRepository repository;
  fill(repository);
  repository.git("update-index --index-version 4");
  repository.write("untracked/more.py");
  CHECK(listed(repository.root()) == git_listed(repository));
}

TEST_CASE("candidates are listed exactly as the full listing restricted to them", "[scan][gitignore]") {
  ScratchRepository repository;
  fill(repository);
  repository.write("new.py");
  const std::vector<std::string> candidates{"a.py",           "a.log",      "new.py",           "build/x.py",
                                            "sub/build/y.py", "sub/b.log",  "ignored_dir/z.py", "out/kept.py",
                                            "out/o.py",       "missing.py", "../escape.py",     "sub",
                                            "sub/./b.log",    ".git/config"};
  const std::set<std::string> full = listed(repository.root());
  std::set<std::string> expected;
  for (const auto &path : candidates)
    if (full.count(path))
      expected.insert(path);
  CHECK(listed(repository.root(), &candidates) == expected);
  CHECK(expected ==
        std::set<std::string>{"a.log", "a.py", "build/x.py", "new.py", "out/kept.py", "sub/b.log"});
}

TEST_CASE("nested repositories and submodules are one entry each, never entered", "[scan][gitignore]") {
  ScratchRepository outer;
  outer.write("top.py");
  outer.git("init -q nested");
  outer.write("nested/inside.py");
  outer.git("add top.py");
  CHECK(git_listed(outer) == std::set<std::string>{"nested/", "top.py"});
  const WorkTreeListing listing = list_work_tree(outer.root(), WorkTreeOptions{});
  REQUIRE(listing.repository);
  REQUIRE(listing.skipped.size() == 1);
  CHECK(listing.skipped.front().path == "nested");
  CHECK(listing.skipped.front().reason == "nested-repository");
  for (const auto &file : listing.files)
    CHECK(file.path.rfind("nested/", 0) != 0);
}

TEST_CASE("a .git file pointing at a linked work tree's git directory is followed", "[scan][gitignore]") {
  ScratchRepository repository;
  fill(repository);
  const fs::path linked = repository.root().string() + "-linked";
  repository.git("worktree add -q '" + linked.string() + "'");
  std::error_code error;
  REQUIRE(fs::is_regular_file(linked / ".git", error));
  fs::create_directories(linked / "fresh");
  std::ofstream(linked / "fresh" / "new.py") << "x\n";
  std::ofstream(linked / "fresh" / "new.log") << "x\n";
  ScratchRepository probe; // for running git in the linked tree
  const std::set<std::string> expected =
      split_nul(probe.git("-C '" + linked.string() + "' ls-files -z --cached --others --exclude-standard"));
  WorkTreeOptions options;
  const WorkTreeListing listing = list_work_tree(linked, options);
  REQUIRE(listing.repository);
  std::set<std::string> got;
  for (const auto &file : listing.files)
    got.insert(file.path);
  CHECK(got == expected);
  CHECK(got.count("fresh/new.py"));
  CHECK(got.count("build/x.py")); // tracked, ignored: the linked tree's index
  fs::remove_all(linked, error);
}

TEST_CASE("a tracked path through a symlinked directory is not followed", "[scan][gitignore]") {
  ScratchRepository repository;
  repository.write("real/inner.py");
  repository.git("add real/inner.py");
  // The directory is replaced by a link to elsewhere after it was tracked.
  ScratchRepository elsewhere;
  elsewhere.write("inner.py", "secret\n");
  fs::remove_all(repository.root() / "real");
  fs::create_directory_symlink(elsewhere.root(), repository.root() / "real");
  // git lists the index entry, and the link itself as an untracked file;
  // only the link is listed here (discovery then skips it as a symlink to a
  // directory): the tracked path would be read from the other tree.
  CHECK(git_listed(repository) == std::set<std::string>{"real", "real/inner.py"});
  CHECK(listed(repository.root()) == std::set<std::string>{"real"});
  const std::vector<std::string> only{"real/inner.py"};
  CHECK(listed(repository.root(), &only).empty());
}

TEST_CASE("a FIFO or a symlink as an ignore file or index never blocks the listing", "[scan][gitignore]") {
  ScratchRepository repository;
  repository.write("a.py");
  repository.write("sub/b.py");
  repository.git("add a.py"); // an index: a repository without one is not used
  REQUIRE(::mkfifo((repository.root() / ".gitignore").c_str(), 0600) == 0);
  fs::create_symlink("/etc/hostname", repository.root() / "sub" / ".gitignore");
  const WorkTreeListing listing = list_work_tree(repository.root(), WorkTreeOptions{});
  REQUIRE(listing.repository);
  std::set<std::string> codes;
  for (const auto &diagnostic : listing.diagnostics)
    codes.insert(diagnostic.path + "|" + diagnostic.code);
  CHECK(codes ==
        std::set<std::string>{".gitignore|unreadable-ignore-file", "sub/.gitignore|unreadable-ignore-file"});
  // An index that is a FIFO: a warning, and every file listed.
  fs::remove(repository.root() / ".git" / "index");
  REQUIRE(::mkfifo((repository.root() / ".git" / "index").c_str(), 0600) == 0);
  const WorkTreeListing fallback = list_work_tree(repository.root(), WorkTreeOptions{});
  CHECK_FALSE(fallback.repository);
  REQUIRE_FALSE(fallback.diagnostics.empty());
  CHECK(fallback.diagnostics.front().code == "unreadable-git-index");
}
