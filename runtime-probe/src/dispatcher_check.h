// Cross-checks a coverage table's CPU or CUDA column against the dispatcher
// of the LibTorch this binary runs on:
// c10::Dispatcher::singleton().findOp(...)->hasKernelForDispatchKey(key).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coverage_table.h"

namespace mpsaudit::probe {

struct CrossCheckRow {
  std::string op;        // full name, "add.out"
  char table_code = '.'; // the table's column code
  bool dispatcher = false;
};

struct CrossCheckResult {
  std::string table_version;
  std::string key;  // CPU | CUDA
  int compared = 0; // operators in both the table and the dispatcher
  int agree = 0;
  std::vector<CrossCheckRow> table_only;      // table: kernel; dispatcher: none
  std::vector<CrossCheckRow> dispatcher_only; // dispatcher: kernel; table: none
  std::vector<std::string> not_in_dispatcher; // table rows the dispatcher does not know
  std::vector<std::string> not_in_table;      // aten ops the dispatcher has and the table lacks
  double agreement() const { return compared ? static_cast<double>(agree) / compared : 0.0; }
};

// `key` is "CPU" or "CUDA".
CrossCheckResult cross_check(const CoverageTable &table, const std::string &key);
nlohmann::json to_json(const CrossCheckResult &result);

} // namespace mpsaudit::probe
