#include "workflow/git_changes.h"

#include <filesystem>
#include <map>
#include <vector>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/process.h"
#include "workflow/git_repository.h"
#include "workflow/sha1.h"
#include "workflow/work_tree.h"

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

constexpr double kGitTimeoutSeconds = 120;

// Runs git without a shell, with everything a repository's configuration
// could make it run switched off: the file system monitor, hooks, pagers,
// transports (a partial clone's lazy fetch), external diff drivers and
// textconv filters (the diff options below). Only index-to-revision
// comparisons are asked for, so git never reads a work tree file and no
// clean or smudge filter can run. Output: standard output, or the first
// line of the error.
bool run_git(const std::string &directory, const std::vector<std::string> &arguments, std::string &output,
             std::string &error) {
  ProcessRequest request;
  request.argv = {"git",
                  "-c",
                  "core.fsmonitor=false",
                  "-c",
                  "core.hooksPath=/dev/null",
                  "-c",
                  "core.pager=cat",
                  "-c",
                  "protocol.allow=never",
                  "-c",
                  "safe.bareRepository=explicit",
                  "--no-pager",
                  "-C",
                  directory};
  request.argv.insert(request.argv.end(), arguments.begin(), arguments.end());
  request.extra_environment = {{"GIT_CONFIG_NOSYSTEM", "1"}, {"GIT_TERMINAL_PROMPT", "0"},
                               {"GIT_NO_LAZY_FETCH", "1"},   {"GIT_OPTIONAL_LOCKS", "0"},
                               {"GIT_PAGER", "cat"},         {"PAGER", "cat"}};
  request.timeout_seconds = kGitTimeoutSeconds;
  const ProcessResult result = run_process(request);
  if (result.launch != "started") {
    error = "cannot run git: " + result.launch_error;
    return false;
  }
  if (result.timed_out) {
    error = "git did not answer within " + std::to_string(static_cast<int>(kGitTimeoutSeconds)) + " s";
    return false;
  }
  if (!result.exited || result.exit_status != 0) {
    error = result.err.substr(0, result.err.find('\n'));
    if (error.empty())
      error = "git failed";
    return false;
  }
  output = result.out;
  return true;
}

std::vector<std::string> split_nul(const std::string &output) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\0', start);
    if (end == std::string::npos)
      end = output.size();
    fields.push_back(output.substr(start, end - start));
    start = end + 1;
  }
  return fields;
}

// The directory git should run in: the root itself, or a file's folder.
std::string work_directory(const std::string &root) {
  std::error_code error;
  if (fs::is_directory(root, error))
    return root;
  const std::string parent = fs::path(root).parent_path().string();
  return parent.empty() ? "." : parent;
}

std::string from_hex(std::string_view text) {
  std::string out;
  const auto digit = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (std::size_t i = 0; i + 1 < text.size(); i += 2)
    out.push_back(static_cast<char>(digit(text[i]) * 16 + digit(text[i + 1])));
  return out;
}

// What the index holds that the revision does not: per path (relative to
// the directory git ran in), the revision's mode and object id.
struct RevisionSide {
  std::uint32_t mode = 0;
  std::string object_id; // raw; all zero when the revision lacks the path
};

// `git diff --cached --raw -z` records: ":MODE MODE ID ID STATUS\0PATH\0".
std::map<std::string, RevisionSide> parse_raw_diff(const std::string &output) {
  std::map<std::string, RevisionSide> changes;
  const std::vector<std::string> fields = split_nul(output);
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
    const std::string &header = fields[i];
    if (header.empty() || header.front() != ':')
      break;
    RevisionSide side;
    const std::size_t first_space = header.find(' ');
    const std::size_t second_space = header.find(' ', first_space + 1);
    const std::size_t third_space = header.find(' ', second_space + 1);
    if (third_space == std::string::npos)
      break;
    side.mode =
        static_cast<std::uint32_t>(std::strtoul(header.substr(1, first_space - 1).c_str(), nullptr, 8));
    side.object_id =
        from_hex(std::string_view(header).substr(second_space + 1, third_space - second_space - 1));
    changes[fields[i + 1]] = side;
  }
  return changes;
}

// The id git would give the work tree file at `path` (never through a
// symlinked directory: the caller checked), or nullopt when it cannot be
// read or the repository does not use SHA-1. Read without blocking and
// without following a final symlink: a symlink's blob is its target.
std::optional<std::string> blob_id(const fs::path &path, std::size_t hash_bytes) {
  if (hash_bytes != 20)
    return std::nullopt;
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0)
    return std::nullopt;
  Sha1 sha;
  if (S_ISLNK(status.st_mode)) {
    std::string target(static_cast<std::size_t>(status.st_size) + 1, '\0');
    const ssize_t length = ::readlink(path.c_str(), target.data(), target.size());
    if (length < 0 || static_cast<std::size_t>(length) >= target.size())
      return std::nullopt;
    target.resize(static_cast<std::size_t>(length));
    sha.update("blob " + std::to_string(target.size()) + std::string(1, '\0'));
    sha.update(target);
    return sha.finish();
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  std::optional<std::string> id;
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
    sha.update("blob " + std::to_string(status.st_size) + std::string(1, '\0'));
    std::string buffer(1u << 16, '\0');
    std::uint64_t total = 0;
    for (;;) {
      const ssize_t got = ::read(fd, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        if (got == 0 && total == static_cast<std::uint64_t>(status.st_size))
          id = sha.finish();
        break;
      }
      total += static_cast<std::uint64_t>(got);
      sha.update(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    }
  }
  ::close(fd);
  return id;
}

enum class WorkTreeState { Missing, SameAsIndex, Differs };

std::uint32_t git_mode(mode_t mode) {
  if (S_ISLNK(mode))
    return 0120000;
  if (S_ISREG(mode))
    return (mode & S_IXUSR) ? 0100755 : 0100644;
  return 0;
}

// How the work tree file of a stage-0 entry compares with the index, as
// `git diff` would see it, reading the file ourselves: equal stat data
// (outside git's racy window) means unchanged, else the content decides.
// `id` is set to the file's blob id when it was computed.
WorkTreeState compare_with_index(const fs::path &path, const GitIndexEntry &entry, const GitIndex &index,
                                 std::size_t hash_bytes, std::optional<std::string> &id) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0 || S_ISDIR(status.st_mode))
    return WorkTreeState::Missing;
  if (entry.assume_unchanged || entry.skip_worktree)
    return WorkTreeState::SameAsIndex;
  const std::uint32_t mode = git_mode(status.st_mode);
  if (entry.intent_to_add || mode == 0)
    return WorkTreeState::Differs;
  const bool same_stat = mode == entry.mode && static_cast<std::uint32_t>(status.st_size) == entry.size &&
                         static_cast<std::uint32_t>(status.st_mtim.tv_sec) == entry.mtime_seconds &&
                         static_cast<std::uint32_t>(status.st_mtim.tv_nsec) == entry.mtime_nanoseconds &&
                         static_cast<std::uint32_t>(status.st_ctim.tv_sec) == entry.ctime_seconds &&
                         static_cast<std::uint32_t>(status.st_ctim.tv_nsec) == entry.ctime_nanoseconds &&
                         static_cast<std::uint32_t>(status.st_ino) == entry.inode;
  if (same_stat && static_cast<std::int64_t>(entry.mtime_seconds) < index.mtime_seconds)
    return WorkTreeState::SameAsIndex;
  id = blob_id(path, hash_bytes);
  return id && mode == entry.mode && *id == entry.object_id ? WorkTreeState::SameAsIndex
                                                            : WorkTreeState::Differs;
}

// The git mode of what is at `path` (0 when nothing or a directory).
std::uint32_t lstat_mode(const fs::path &path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0 ? git_mode(status.st_mode) : 0;
}

// Whether a work tree file that differs from the index is back to what the
// revision has (`id`: its blob id, when already computed).
bool same_as_revision(const fs::path &path, const RevisionSide &revision, std::size_t hash_bytes,
                      std::optional<std::string> &id) {
  if (!id)
    id = blob_id(path, hash_bytes);
  return id && *id == revision.object_id && lstat_mode(path) == revision.mode;
}

// Adds the tracked files whose work tree content differs from `revision`
// (`cached`: what differs between the index and the revision) and removes
// those deleted from the work tree.
void add_work_tree_changes(const WorkTreeListing &listing, const fs::path &directory,
                           const std::map<std::string, RevisionSide> &cached, std::set<std::string> &paths) {
  const GitRepository &repository = *listing.repository;
  const GitIndex &index = listing.index;
  RealDirectories directories(directory);
  for (std::size_t i = 0; i < index.entries.size(); ++i) {
    const GitIndexEntry &entry = index.entries[i];
    if (entry.path.compare(0, repository.prefix.size(), repository.prefix) != 0 || entry.is_gitlink() ||
        entry.is_directory() || (i > 0 && index.entries[i - 1].path == entry.path))
      continue;
    const std::string path(entry.path.substr(repository.prefix.size()));
    if (!is_valid_tracked_path(path))
      continue;
    const bool unmerged = entry.stage != 0;
    const fs::path file = directory / path;
    std::optional<std::string> id;
    WorkTreeState state = WorkTreeState::Missing;
    if (directories.reachable(path))
      state = unmerged ? (lstat_mode(file) ? WorkTreeState::Differs : WorkTreeState::Missing)
                       : compare_with_index(file, entry, index, repository.hash_bytes, id);
    const auto revision = cached.find(path);
    bool changed = false;
    if (state == WorkTreeState::SameAsIndex)
      changed = revision != cached.end();
    else if (state == WorkTreeState::Differs)
      changed = unmerged || revision == cached.end() ||
                !same_as_revision(file, revision->second, repository.hash_bytes, id);
    if (changed)
      paths.insert(path);
    else
      paths.erase(path);
  }
}

} // namespace

ChangedFiles changed_since(const std::string &root, const std::string &revision) {
  ChangedFiles changed;
  const std::string directory = work_directory(root);
  if (revision.empty() || revision.front() == '-') {
    changed.error = "invalid revision '" + revision + "'";
    return changed;
  }
  std::string output;
  // Verify first so that a typo is reported as such, not as "no changes".
  if (!run_git(directory, {"rev-parse", "--verify", "--quiet", revision + "^{commit}"}, output,
               changed.error)) {
    changed.error = "git does not know the revision '" + revision + "'" +
                    (changed.error.empty() || changed.error == "git failed" ? "" : ": " + changed.error);
    return changed;
  }
  const std::string commit = output.substr(0, output.find('\n'));
  // The index against the revision: no work tree file is read.
  output.clear();
  if (!run_git(directory,
               {"diff", "--cached", "--raw", "-z", "--no-abbrev", "--relative", "--no-renames",
                "--diff-filter=d", "--no-ext-diff", "--no-textconv", "-O/dev/null", commit, "--"},
               output, changed.error))
    return changed;
  const std::map<std::string, RevisionSide> cached = parse_raw_diff(output);
  for (const auto &[path, side] : cached)
    changed.paths.insert(path);
  // The work tree against the index, and untracked files, in-process.
  WorkTreeOptions options;
  const WorkTreeListing listing = list_work_tree(directory, options);
  if (!listing.repository) {
    changed.error = listing.index_error.empty() ? "not inside a git work tree"
                                                : "cannot read the git index: " + listing.index_error;
    return changed;
  }
  add_work_tree_changes(listing, directory, cached, changed.paths);
  for (const auto &file : listing.files)
    if (!file.tracked && (file.type == EntryType::Regular || file.type == EntryType::Symlink))
      changed.paths.insert(file.path);
  changed.ok = true;
  return changed;
}

ChangedFiles staged_files(const std::string &root) {
  ChangedFiles changed;
  std::string output;
  if (!run_git(work_directory(root),
               {"diff", "--cached", "--name-only", "-z", "--relative", "--no-renames", "--diff-filter=d",
                "--no-ext-diff", "--no-textconv", "-O/dev/null", "--"},
               output, changed.error))
    return changed;
  for (auto &path : split_nul(output))
    if (!path.empty())
      changed.paths.insert(std::move(path));
  changed.ok = true;
  return changed;
}

std::string git_show_prefix(const std::string &root) {
  const std::optional<GitRepository> repository = find_git_repository(work_directory(root));
  return repository ? repository->prefix : std::string();
}

bool inside_git_work_tree(const std::string &directory) {
  return find_git_repository(work_directory(directory)).has_value();
}

} // namespace mpsaudit
