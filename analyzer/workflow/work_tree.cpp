#include "workflow/work_tree.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <unordered_map>

#include <dirent.h>
#include <sys/stat.h>

#include "workflow/gitignore.h"

namespace mpsaudit {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxIgnoreFileBytes = 16u << 20;

using Level = std::shared_ptr<const IgnoreLevel>;

bool is_metadata_directory(std::string_view name) {
  return name == ".git" || name == ".hg" || name == ".svn";
}

EntryType type_of(mode_t mode) {
  if (S_ISREG(mode))
    return EntryType::Regular;
  if (S_ISLNK(mode))
    return EntryType::Symlink;
  if (S_ISDIR(mode))
    return EntryType::Directory;
  return EntryType::Other;
}

std::optional<EntryType> lstat_type(const fs::path &path) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0)
    return std::nullopt;
  return type_of(status.st_mode);
}

std::string parent_of(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// The user's global excludes file at its default place
// ($XDG_CONFIG_HOME/git/ignore). core.excludesFile is not read: the
// repository's config could point it anywhere.
std::optional<IgnoreFile> global_excludes() {
  fs::path path;
  if (const char *xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    path = fs::path(xdg) / "git" / "ignore";
  else if (const char *home = std::getenv("HOME"); home && *home)
    path = fs::path(home) / ".config" / "git" / "ignore";
  else
    return std::nullopt;
  std::string text, error;
  if (!read_regular_file(path, kMaxIgnoreFileBytes, false, text, error))
    return std::nullopt;
  return IgnoreFile(text, "");
}

class Lister {
public:
  Lister(const fs::path &root, const WorkTreeOptions &options, WorkTreeListing &listing)
      : root_(root), options_(options), listing_(listing), directories_(root) {}

  // git's view, when the root is in a work tree with a readable index.
  bool open_repository() {
    std::optional<GitRepository> repository = find_git_repository(root_);
    if (!repository)
      return false;
    std::string error;
    if (!read_git_index(*repository, listing_.index, error)) {
      listing_.index_error = error;
      listing_.diagnostics.push_back(
          {DiagnosticLevel::Warning, ".", 0, "unreadable-git-index",
           "cannot read the git index (" + error + "); every file is listed, .gitignore is not applied"});
      listing_.index = GitIndex{};
      return false;
    }
    if (listing_.index.missing) {
      // A `.git` that never had an index: a repository nothing was added to
      // yet, or a few files made to look like one. Its ignore files would
      // hide untracked files on git's word alone; no file is hidden for it.
      listing_.diagnostics.push_back(
          {DiagnosticLevel::Note, ".", 0, "no-git-index",
           "the git repository has no index (nothing was ever added to it); every file is listed, "
           ".gitignore is not applied"});
      return false;
    }
    listing_.repository = std::move(repository);
    prefix_ = listing_.repository->prefix;
    // Sorted by path (git writes it so; a split index's shared entries come
    // after), so that a path is found by binary search.
    std::vector<GitIndexEntry> &entries = listing_.index.entries;
    const auto by_path = [](const GitIndexEntry &a, const GitIndexEntry &b) { return a.path < b.path; };
    if (!std::is_sorted(entries.begin(), entries.end(), by_path))
      std::stable_sort(entries.begin(), entries.end(), by_path);
    listed_.assign(entries.size(), false);
    std::string exclude;
    if (read_regular_file(listing_.repository->common_dir / "info" / "exclude", kMaxIgnoreFileBytes, true,
                          exclude, error))
      fallback_.emplace_back(exclude, "");
    if (std::optional<IgnoreFile> global = global_excludes())
      fallback_.push_back(std::move(*global));
    return true;
  }

  void list_everything() {
    if (!git()) {
      walk();
      return;
    }
    // The levels above the root: their .gitignore files apply, and an
    // ignored root has no untracked file to list.
    if (!directory_ignored(root_directory()))
      walk();
    else
      skip_ignored(".");
    add_tracked();
  }

  void list_only(const std::vector<std::string> &only) {
    if (!git()) {
      walk();
      return;
    }
    const std::set<std::string> candidates(only.begin(), only.end());
    for (const auto &path : candidates)
      add_candidate(path);
  }

private:
  bool git() const { return listing_.repository.has_value(); }

  // What .gitignore hides is not read but still accounted for: an ignored
  // file, or an ignored directory as one entry (it is not entered, so an
  // ignored virtual environment costs nothing).
  void skip_ignored(std::string path) { listing_.skipped.push_back({std::move(path), "gitignored"}); }

  // The root relative to the top of the work tree, without a trailing '/'.
  std::string root_directory() const { return prefix_.empty() ? "" : prefix_.substr(0, prefix_.size() - 1); }

  bool excluded_name(std::string_view name) const {
    return options_.excluded_directory && options_.excluded_directory(name);
  }

  bool has_excluded_component(const std::string &path) const {
    std::size_t start = 0;
    for (std::size_t slash; (slash = path.find('/', start)) != std::string::npos; start = slash + 1)
      if (excluded_name(std::string_view(path).substr(start, slash - start)))
        return true;
    return false;
  }

  // A path relative to the top of the work tree as diagnostics name it:
  // relative to the root when inside it.
  std::string shown_path(const std::string &top_path) const {
    if (top_path.compare(0, prefix_.size(), prefix_) == 0)
      return top_path.substr(prefix_.size());
    return (listing_.repository->top / top_path).string();
  }

  // The ignore level of a directory (relative to the top of the work tree,
  // "" for the top), given its parent's: its own .gitignore, if any, on top.
  Level with_ignore_file(const Level &parent, const std::string &top_directory) {
    const fs::path file = listing_.repository->top / top_directory / ".gitignore";
    std::string text, error;
    if (!read_regular_file(file, kMaxIgnoreFileBytes, true, text, error)) {
      if (!error.empty())
        listing_.diagnostics.push_back(
            {DiagnosticLevel::Warning,
             shown_path(top_directory.empty() ? ".gitignore" : top_directory + "/.gitignore"), 0,
             "unreadable-ignore-file", "not read: " + error});
      return parent;
    }
    IgnoreFile patterns(text, top_directory.empty() ? "" : top_directory + "/");
    if (patterns.empty())
      return parent;
    return std::make_shared<const IgnoreLevel>(IgnoreLevel{parent, std::move(patterns)});
  }

  // The same, for a directory reached without a walk (the levels above the
  // root, the directories of candidates): remembered.
  Level level_of(const std::string &top_directory) {
    if (const auto it = levels_.find(top_directory); it != levels_.end())
      return it->second;
    const Level parent = top_directory.empty() ? nullptr : level_of(parent_of(top_directory));
    Level level = with_ignore_file(parent, top_directory);
    levels_.emplace(top_directory, level);
    return level;
  }

  // Whether a directory (relative to the top) or one above it is ignored.
  bool directory_ignored(const std::string &top_directory) {
    if (top_directory.empty())
      return false;
    if (const auto it = ignored_directories_.find(top_directory); it != ignored_directories_.end())
      return it->second;
    const std::string parent = parent_of(top_directory);
    const bool ignored =
        directory_ignored(parent) || is_ignored(level_of(parent).get(), fallback_, top_directory, true);
    ignored_directories_.emplace(top_directory, ignored);
    return ignored;
  }

  // The index entry of a path relative to the top (its first stage), or
  // nullptr. A sparse index's directory entries are not files.
  const GitIndexEntry *tracked(const std::string &top_path) const {
    const std::vector<GitIndexEntry> &entries = listing_.index.entries;
    const auto it =
        std::lower_bound(entries.begin(), entries.end(), top_path,
                         [](const GitIndexEntry &entry, const std::string &key) { return entry.path < key; });
    return it != entries.end() && it->path == top_path && !it->is_directory() ? &*it : nullptr;
  }

  void mark_listed(const GitIndexEntry &entry) {
    listed_[static_cast<std::size_t>(&entry - listing_.index.entries.data())] = true;
  }

  void add_tracked_path(const GitIndexEntry &entry) {
    const std::string_view top_path = entry.path;
    const std::string path(top_path.substr(prefix_.size()));
    if (!is_valid_tracked_path(path) || has_excluded_component(path) || !directories_.reachable(path))
      return;
    const std::optional<EntryType> type = lstat_type(root_ / path);
    if (!type) // deleted from the work tree: nothing to read
      return;
    if (entry.is_gitlink()) {
      if (type == EntryType::Directory)
        listing_.skipped.push_back({path, "nested-repository"});
      return;
    }
    if (type != EntryType::Directory)
      listing_.files.push_back({path, *type, true});
  }

  // The entries under the root that the walk did not meet: in an ignored or
  // excluded directory, submodules, or gone from the work tree.
  void add_tracked() {
    const std::vector<GitIndexEntry> &entries = listing_.index.entries;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const GitIndexEntry &entry = entries[i];
      if (listed_[i] || entry.is_directory() || (i > 0 && entries[i - 1].path == entry.path) ||
          entry.path.compare(0, prefix_.size(), prefix_) != 0)
        continue;
      add_tracked_path(entry);
    }
  }

  // One path named by the caller: listed when git would list it.
  void add_candidate(const std::string &path) {
    if (!is_valid_tracked_path(path))
      return;
    const std::string top_path = prefix_ + path;
    if (const GitIndexEntry *entry = tracked(top_path)) {
      add_tracked_path(*entry);
      return;
    }
    if (has_excluded_component(path) || !directories_.reachable(path))
      return;
    // Not inside a repository of its own, nor an ignored directory.
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
      const std::string directory = path.substr(0, slash);
      if (tracked(prefix_ + directory) || lstat_type(root_ / directory / ".git"))
        return; // a submodule, or a file where a directory is expected
    }
    const std::string top_directory = parent_of(top_path);
    if (directory_ignored(top_directory) ||
        is_ignored(level_of(top_directory).get(), fallback_, top_path, false)) {
      if (const std::optional<EntryType> type = lstat_type(root_ / path);
          type && type != EntryType::Directory)
        skip_ignored(path);
      return;
    }
    const std::optional<EntryType> type = lstat_type(root_ / path);
    if (type && type != EntryType::Directory)
      listing_.files.push_back({path, *type, false});
  }

  struct Pending {
    std::string directory; // relative to the root: "" or "a/b"
    Level ignores;
  };

  void walk() {
    std::vector<Pending> pending;
    pending.push_back({"", git() ? level_of(root_directory()) : nullptr});
    while (!pending.empty()) {
      Pending current = std::move(pending.back());
      pending.pop_back();
      list_directory(current, pending);
    }
  }

  void list_directory(const Pending &current, std::vector<Pending> &pending) {
    const fs::path directory = current.directory.empty() ? root_ : root_ / current.directory;
    const std::string shown = current.directory.empty() ? "." : current.directory;
    DIR *stream = ::opendir(directory.c_str());
    if (!stream) {
      listing_.diagnostics.push_back({DiagnosticLevel::Error, shown, 0, "unreadable-directory",
                                      std::string("cannot read directory: ") + std::strerror(errno)});
      return;
    }
    const std::string base = current.directory.empty() ? "" : current.directory + "/";
    for (;;) {
      errno = 0;
      const dirent *entry = ::readdir(stream);
      if (!entry) {
        if (errno != 0)
          listing_.diagnostics.push_back(
              {DiagnosticLevel::Error, shown, 0, "unreadable-directory",
               std::string("error while listing directory: ") + std::strerror(errno)});
        break;
      }
      const std::string_view name(entry->d_name);
      if (name == "." || name == ".." || name == ".git") // a .git file too: a linked work tree's pointer
        continue;
      std::string path = base + std::string(name);
      EntryType type = entry->d_type == DT_DIR   ? EntryType::Directory
                       : entry->d_type == DT_REG ? EntryType::Regular
                       : entry->d_type == DT_LNK ? EntryType::Symlink
                                                 : EntryType::Other;
      if (entry->d_type == DT_UNKNOWN) {
        const std::optional<EntryType> found = lstat_type(root_ / path);
        if (!found)
          continue; // removed while listing
        type = *found;
      }
      if (type == EntryType::Directory)
        enter(std::move(path), name, current.ignores, pending);
      else
        add_walked(std::move(path), type, current.ignores);
    }
    ::closedir(stream);
  }

  void enter(std::string path, std::string_view name, const Level &ignores, std::vector<Pending> &pending) {
    if (is_metadata_directory(name))
      return;
    if (git()) {
      const std::string top_path = prefix_ + path;
      if (const GitIndexEntry *entry = tracked(top_path); entry && entry->is_gitlink())
        return; // a submodule: listed from the index
      if (is_ignored(ignores.get(), fallback_, top_path, true)) {
        skip_ignored(std::move(path));
        return;
      }
    }
    if (excluded_name(name)) {
      listing_.skipped.push_back({std::move(path), "excluded-directory"});
      return;
    }
    if (git() && lstat_type(root_ / path / ".git")) {
      listing_.skipped.push_back({std::move(path), "nested-repository"});
      return;
    }
    Level level = git() ? with_ignore_file(ignores, prefix_ + path) : nullptr;
    pending.push_back({std::move(path), std::move(level)});
  }

  // A file met by the walk: tracked files are listed whatever the ignore
  // files say (and not looked at again), untracked ones unless ignored.
  void add_walked(std::string path, EntryType type, const Level &ignores) {
    bool is_tracked = false;
    if (git()) {
      const std::string top_path = prefix_.empty() ? std::string() : prefix_ + path;
      const std::string &key = prefix_.empty() ? path : top_path;
      const GitIndexEntry *entry = tracked(key);
      is_tracked = entry != nullptr;
      if (is_tracked) {
        mark_listed(*entry);
      } else if (is_ignored(ignores.get(), fallback_, key, false)) {
        skip_ignored(std::move(path));
        return;
      }
    }
    listing_.files.push_back({std::move(path), type, is_tracked});
  }

  const fs::path &root_;
  const WorkTreeOptions &options_;
  WorkTreeListing &listing_;
  std::string prefix_;                            // the root relative to the top of the work tree
  std::vector<bool> listed_;                      // per index entry: met by the walk
  std::vector<IgnoreFile> fallback_;              // info/exclude, the global excludes
  std::unordered_map<std::string, Level> levels_; // by directory relative to the top
  std::unordered_map<std::string, bool> ignored_directories_;
  RealDirectories directories_;
};

} // namespace

bool RealDirectories::reachable(const std::string &path) {
  for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string directory = path.substr(0, slash);
    auto it = known_.find(directory);
    if (it == known_.end())
      it = known_.emplace(directory, lstat_type(root_ / directory) == EntryType::Directory).first;
    if (!it->second)
      return false;
  }
  return true;
}

bool is_valid_tracked_path(std::string_view path) {
  if (path.empty() || path.front() == '/')
    return false;
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos)
      slash = path.size();
    const std::string_view component = path.substr(start, slash - start);
    if (component.empty() || component == "." || component == "..")
      return false;
    const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    if (component.size() == 4 && component[0] == '.' && lower(component[1]) == 'g' &&
        lower(component[2]) == 'i' && lower(component[3]) == 't')
      return false;
    start = slash + 1;
  }
  return true;
}

WorkTreeListing list_work_tree(const fs::path &root, const WorkTreeOptions &options) {
  WorkTreeListing listing;
  Lister lister(root, options, listing);
  if (options.use_git)
    lister.open_repository();
  if (options.only)
    lister.list_only(*options.only);
  else
    lister.list_everything();
  return listing;
}

} // namespace mpsaudit
