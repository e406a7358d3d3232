// mpsaudit-gen-coverage: derives one operator-coverage table per PyTorch
// release from <ops>/<version>/native_functions.yaml and writes (or, with
// --check, compares against) <out>/<version>.tsv.
//
//   mpsaudit-gen-coverage --ops ../shared/pytorch-ops --data runtime-probe/data
//                         --out runtime-probe/coverage [--check]
//
// Exit status: 0 done (or tables current), 1 a table differs or is missing
// (--check), 2 bad usage or unreadable input.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "coverage_table.h"
#include "text_util.h"

namespace fs = std::filesystem;
using namespace mpsaudit::probe;

namespace {

int usage() {
  std::cerr << "usage: mpsaudit-gen-coverage --ops DIR --data DIR --out DIR [--check]\n";
  return 2;
}

void print_problems(const std::vector<TableProblem> &problems) {
  for (const TableProblem &problem : problems)
    std::cerr << problem.path << ':' << problem.line << ": " << problem.message << '\n';
}

} // namespace

int main(int argc, char **argv) {
  std::string ops_dir, data_dir, out_dir;
  bool check = false;
  CommandLine line;
  line.flags = {{"--check", [&] { check = true; }}};
  line.options = {{"--ops", &ops_dir}, {"--data", &data_dir}, {"--out", &out_dir}};
  if (!parse_command_line(argc, argv, line))
    return usage();
  if (ops_dir.empty() || data_dir.empty() || out_dir.empty())
    return usage();

  std::vector<TableProblem> problems;
  DerivationData data = read_derivation_data(data_dir, problems);
  if (!problems.empty()) {
    print_problems(problems);
    return 2;
  }

  std::vector<fs::path> versions;
  std::error_code error;
  for (const auto &entry : fs::directory_iterator(ops_dir, error))
    if (entry.is_directory() && fs::exists(entry.path() / "native_functions.yaml"))
      versions.push_back(entry.path());
  if (error || versions.empty()) {
    std::cerr << ops_dir << ": no <version>/native_functions.yaml found\n";
    return 2;
  }
  std::sort(versions.begin(), versions.end());

  int stale = 0;
  for (const fs::path &version_dir : versions) {
    std::string version = version_dir.filename().string();
    fs::path input = version_dir / "native_functions.yaml";
    const std::optional<std::string> yaml = read_whole_file(input);
    if (!yaml) {
      std::cerr << input.string() << ": cannot read\n";
      return 2;
    }
    std::vector<TableProblem> derive_problems;
    CoverageTable table = derive_table(*yaml, version, input.string(), data, derive_problems);
    print_problems(derive_problems);
    if (table.operators.empty())
      return 2;
    std::string text = write_table(table);
    fs::path output = fs::path(out_dir) / (version + ".tsv");
    if (check) {
      const std::optional<std::string> committed = read_whole_file(output);
      if (!committed) {
        std::cerr << output.string() << ": missing; run mpsaudit-gen-coverage\n";
        ++stale;
      } else if (*committed != text) {
        std::cerr << output.string() << ": differs from what the generator derives from " << input.string()
                  << "; run mpsaudit-gen-coverage\n";
        ++stale;
      }
      continue;
    }
    fs::create_directories(out_dir, error);
    std::ofstream out(output, std::ios::binary);
    out << text;
    if (!out) {
      std::cerr << output.string() << ": cannot write\n";
      return 2;
    }
    std::cout << output.string() << ": " << table.operators.size() << " operators\n";
  }
  return stale ? 1 : 0;
}
