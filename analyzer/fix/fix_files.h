// Reading the files `mpsaudit fix` edits, in a tree that may be hostile:
// every path is resolved to a real path inside its scanned tree first, and
// then opened component by component without following any symlink, so a
// symlink (or a directory swapped for one) never leads fix out of the tree.
// write_fixes (fix.h) replaces them the same way (docs/fix.md, "Writing
// files"; docs/security.md, "fix --apply").
#pragma once

#include <optional>
#include <string>

#include "core/diagnostic.h"
#include "fix/fix.h"

namespace mpsaudit {

// Resolves `path` (relative to the scanned directory `root`, as in
// findings) to the file it names. None, with `problem` filled in, when it
// cannot be resolved or when it, or a directory on its way, is a symlink
// that leads outside `root`.
std::optional<TreePath> resolve_in_tree(const std::string &root, const std::string &path,
                                        Diagnostic &problem);

// Reads a resolved file without following a symlink at any component, and
// what it is (`identity`). None, with `error` set, when it cannot be opened
// that way or is not a regular file.
std::optional<std::string> read_in_tree(const TreePath &location, FileIdentity &identity, std::string &error);

} // namespace mpsaudit
