// mpsaudit-probe-crosscheck: compares a coverage table's CPU or CUDA column
// with this LibTorch's dispatcher and prints the result as JSON.
//
//   mpsaudit-probe-crosscheck --key CPU|CUDA TABLE.tsv
#include <iostream>

#include "dispatcher_check.h"

using namespace mpsaudit::probe;

int main(int argc, char **argv) {
  std::string key = "CPU", table_path;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--key" && i + 1 < argc)
      key = argv[++i];
    else if (table_path.empty() && !arg.empty() && arg[0] != '-')
      table_path = arg;
    else
      table_path.clear(), i = argc;
  }
  if (table_path.empty() || (key != "CPU" && key != "CUDA")) {
    std::cerr << "usage: mpsaudit-probe-crosscheck --key CPU|CUDA TABLE.tsv\n";
    return 2;
  }
  std::vector<TableProblem> problems;
  auto table = read_table_file(table_path, problems);
  for (const TableProblem &problem : problems)
    std::cerr << problem.path << ':' << problem.line << ": " << problem.message << '\n';
  if (!table)
    return 2;
  std::cout << to_json(cross_check(*table, key)).dump(2) << '\n';
  return 0;
}
