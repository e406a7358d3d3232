// One probe run: scan report in, verdicts out (docs/runtime-probe.md).
#pragma once

#include <string>

#include "verdicts.h"

namespace mpsaudit::probe {

struct ProbeOptions {
  std::string report_path;
  std::string target = "auto"; // cpu | cuda | mps | meta | auto
  std::string torch_version;   // which coverage table; default: this LibTorch's version
  std::string tables_dir;      // <version>.tsv files
  std::string api_map_path;    // python-api-map.tsv
  bool live = true;            // run the live probes (off: coverage tables only)
  int max_live_operators_per_api = 4;
  int max_downcast_operators = 24;
};

// The default folders: MPSAUDIT_PROBE_TABLES / MPSAUDIT_PROBE_DATA if set,
// else the source tree this binary was built from.
std::string default_tables_dir();
std::string default_api_map_path();

ProbeOutput run_probe(const ProbeOptions &options, const EnvironmentReport &environment);

} // namespace mpsaudit::probe
