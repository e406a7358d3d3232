// The rule catalog through a snapshot in the result cache (docs/cache.md).
//
// Parsing rules/*.toml costs a scan about as much as reading the files of a
// small repository from the cache, and it is the same work every run. The
// snapshot keeps the parsed catalog in binary form under a key made of the
// running binary and the name and content of every rules file, so a changed,
// added or removed rules file, or another build, parses the TOML again.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "rules/rule.h"

namespace mpsaudit {

// RuleCatalog::load_directory(rules_dir), taken from the snapshot in
// `cache_directory` when one matches, else parsed and, when it loaded
// without a problem, stored there. An empty `cache_directory` parses.
RuleCatalog load_rule_catalog_through_cache(const std::string &rules_dir, const std::string &cache_directory,
                                            std::vector<Diagnostic> &diagnostics);

// The snapshot's bytes and back; decode is nullopt for anything that is
// not a whole snapshot.
std::string encode_catalog(const RuleCatalog &catalog);
std::optional<RuleCatalog> decode_catalog(std::string_view payload);

} // namespace mpsaudit
