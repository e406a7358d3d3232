// Python API names (as the analyzer's scan report writes them, aliases
// resolved: torch.nn.functional.grid_sample) to the ATen operators they
// reach. Derived from a release's coverage table where the names agree,
// from the checked map runtime-probe/data/python-api-map.tsv where they do not.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "coverage_table.h"

namespace mpsaudit::probe {

struct ApiResolution {
  std::string python_name;
  std::vector<std::string> aten_names; // base names ("grid_sampler"), present in the table
  std::vector<std::string> absent;     // checked-map operators this release does not have
  // How the names were found: "checked-map", "derived:function", "derived:method",
  // "derived:nn", "derived:linalg", "derived:fft", "derived:special", or "unmapped".
  std::string how;
  std::string source; // the checked map's source, or the yaml rule that matched
};

class PythonApiMap {
public:
  // Reads python-api-map.tsv; malformed lines become problems, never exceptions.
  static PythonApiMap load(const std::string &path, std::vector<TableProblem> &problems);

  ApiResolution resolve(std::string_view python_name, const CoverageTable &table) const;

  struct Entry {
    std::vector<std::string> aten_names;
    std::string source;
  };
  const std::map<std::string, Entry, std::less<>> &entries() const { return entries_; }

private:
  std::map<std::string, Entry, std::less<>> entries_;
};

} // namespace mpsaudit::probe
