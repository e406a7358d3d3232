// The rule catalog through snapshots (docs/cache.md): one bundled with the
// binary, and one in the result cache.
//
// Parsing rules/*.toml costs a scan about as much as reading the files of a
// small repository from the cache, and it is the same work every run. A
// snapshot keeps the parsed catalog in binary form:
// - the bundled one is made when the binary is built, from the rules
//   directory of its source tree (scan/bundle/), under a key made of the
//   name and content of every rules file: a scan whose rules directory holds
//   the very files the build read (the installed rules/, or a copy) decodes
//   it, with or without a result cache;
// - the one in the result cache serves any other rules directory, under a
//   key made of the running binary and the path and content of every rules
//   file, so a changed, added or removed rules file, or another build,
//   parses the TOML again.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "rules/rule.h"

namespace mpsaudit {

// A snapshot made with the binary: `key` is bundled_catalog_key of the rules
// directory it was made from, `payload` encode_catalog's bytes. Both empty
// when the build made none.
struct BundledCatalog {
  std::string_view key;
  std::string_view payload;
};

// The key a bundled snapshot is made under: the name and bytes of every
// rules file of `rules_dir`. nullopt when one cannot be read.
std::optional<std::string> bundled_catalog_key(const std::string &rules_dir);

// RuleCatalog::load_directory(rules_dir), decoded from `bundled` when its key
// is the directory's, else taken from the snapshot in `cache_directory` when
// one matches, else parsed and, when it loaded without a problem, stored
// there. An empty `cache_directory` neither reads nor writes a cache.
RuleCatalog load_rule_catalog_via_snapshots(const std::string &rules_dir, const std::string &cache_directory,
                                            const BundledCatalog &bundled,
                                            std::vector<Diagnostic> &diagnostics);

// The snapshot's bytes and back; decode is nullopt for anything that is
// not a whole snapshot. With `rules_dir`, each rule's origin is moved
// there: the file of that name in the directory the catalog now stands for.
std::string encode_catalog(const RuleCatalog &catalog);
std::optional<RuleCatalog> decode_catalog(std::string_view payload, const std::string &rules_dir = {});

} // namespace mpsaudit
