#include "coverage_table.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "text_util.h"

namespace mpsaudit::probe {

char to_code(KernelSource source) {
  switch (source) {
  case KernelSource::Direct:
    return 'k';
  case KernelSource::Delegate:
    return 'd';
  case KernelSource::Ufunc:
    return 'u';
  case KernelSource::None:
    break;
  }
  return '.';
}

std::optional<KernelSource> kernel_source_from_code(char code) {
  switch (code) {
  case '.':
    return KernelSource::None;
  case 'k':
    return KernelSource::Direct;
  case 'd':
    return KernelSource::Delegate;
  case 'u':
    return KernelSource::Ufunc;
  default:
    return std::nullopt;
  }
}

std::string_view to_string(Composite composite) {
  switch (composite) {
  case Composite::Implicit:
    return "CIA";
  case Composite::Explicit:
    return "CEA";
  case Composite::ExplicitNonFunctional:
    return "CEANF";
  case Composite::Autogen:
    return "autogen";
  case Composite::None:
    break;
  }
  return "-";
}

std::optional<Composite> composite_from_string(std::string_view text) {
  for (Composite c : {Composite::None, Composite::Implicit, Composite::Explicit,
                      Composite::ExplicitNonFunctional, Composite::Autogen})
    if (to_string(c) == text)
      return c;
  return std::nullopt;
}

std::string_view to_string(MpsStatus status) {
  switch (status) {
  case MpsStatus::ForcedCpu:
    return "forced-cpu";
  case MpsStatus::Native:
    return "native";
  case MpsStatus::CompositeImplicit:
    return "composite-implicit";
  case MpsStatus::CompositeExplicit:
    return "composite-explicit";
  case MpsStatus::Missing:
    return "missing";
  case MpsStatus::NotDense:
    break;
  }
  return "not-dense";
}

std::optional<MpsStatus> mps_status_from_string(std::string_view text) {
  for (MpsStatus s : {MpsStatus::ForcedCpu, MpsStatus::Native, MpsStatus::CompositeImplicit,
                      MpsStatus::CompositeExplicit, MpsStatus::Missing, MpsStatus::NotDense})
    if (to_string(s) == text)
      return s;
  return std::nullopt;
}

bool runs_on_mps(MpsStatus status) {
  return status == MpsStatus::Native || status == MpsStatus::CompositeImplicit ||
         status == MpsStatus::CompositeExplicit;
}

std::string OperatorCoverage::full_name() const {
  return overload.empty() ? name : name + "." + overload;
}

const OperatorCoverage *CoverageTable::find(std::string_view full_name) const {
  const auto it = std::lower_bound(full_names.begin(), full_names.end(), full_name);
  return it == full_names.end() || *it != full_name ? nullptr : &operators[it - full_names.begin()];
}

std::vector<const OperatorCoverage *> CoverageTable::overloads(std::string_view name) const {
  std::vector<const OperatorCoverage *> found;
  // Overloads of one name are adjacent: "name" sorts before "name.x", and
  // any "name_suffix" sorts after every "name.x" ('.' < '_' and letters).
  std::string prefix = std::string(name) + ".";
  for (auto it = std::lower_bound(full_names.begin(), full_names.end(), name); it != full_names.end(); ++it) {
    if (*it != name && it->compare(0, prefix.size(), prefix) != 0)
      break;
    if (it == full_names.begin() || *(it - 1) != *it) // a repeated row: find() gives the first
      found.push_back(&operators[it - full_names.begin()]);
  }
  return found;
}

bool CoverageTable::has_name(std::string_view name) const {
  return !overloads(name).empty();
}

void CoverageTable::rebuild_index() {
  // Each full name is built once: a comparator that built them would
  // allocate twice per comparison, and every scan reads five tables. Rows
  // with the same name (a table has a few) keep their order, so a table read
  // back, already sorted, needs no sort at all.
  std::vector<std::pair<std::string, std::size_t>> keys;
  keys.reserve(operators.size());
  for (std::size_t i = 0; i < operators.size(); ++i)
    keys.emplace_back(operators[i].full_name(), i);
  const auto by_name = [](const auto &a, const auto &b) { return a.first < b.first; };
  full_names.clear();
  full_names.reserve(operators.size());
  if (std::is_sorted(keys.begin(), keys.end(), by_name)) {
    for (auto &key : keys)
      full_names.push_back(std::move(key.first));
    return;
  }
  std::stable_sort(keys.begin(), keys.end(), by_name);
  std::vector<OperatorCoverage> sorted;
  sorted.reserve(operators.size());
  for (auto &[full_name, position] : keys) {
    full_names.push_back(std::move(full_name));
    sorted.push_back(std::move(operators[position]));
  }
  operators = std::move(sorted);
}

std::string fingerprint(std::string_view bytes) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

int compare_versions(std::string_view a, std::string_view b) {
  auto parts_a = split(a, '.');
  auto parts_b = split(b, '.');
  std::size_t count = std::max(parts_a.size(), parts_b.size());
  for (std::size_t i = 0; i < count; ++i) {
    long number_a = 0, number_b = 0;
    if (i < parts_a.size())
      number_a = std::strtol(parts_a[i].c_str(), nullptr, 10);
    if (i < parts_b.size())
      number_b = std::strtol(parts_b[i].c_str(), nullptr, 10);
    if (number_a != number_b)
      return number_a < number_b ? -1 : 1;
  }
  return 0;
}

DerivationData read_derivation_data(const std::string &data_dir, std::vector<TableProblem> &problems) {
  DerivationData data;
  // Both files: "version<TAB>operator<TAB>source" lines, '#' comments.
  auto read_list = [&](const std::string &file, std::map<std::string, std::vector<std::string>> &into) {
    std::string path = data_dir + "/" + file;
    const std::optional<std::string> text = read_whole_file(path);
    if (!text) {
      problems.push_back({path, 0, "cannot read derivation data"});
      return;
    }
    std::uint32_t line_number = 0;
    for (const std::string &raw : split(*text, '\n')) {
      ++line_number;
      std::string_view line = trim(raw);
      if (line.empty() || line.front() == '#')
        continue;
      auto fields = split(line, '\t');
      if (fields.size() < 3 || fields[0].empty() || fields[1].empty()) {
        problems.push_back({path, line_number, "expected version, operator and source"});
        continue;
      }
      into[fields[0]].push_back(fields[1]);
    }
  };
  read_list("mps-forced-cpu.tsv", data.forced_cpu);
  read_list("vendor-only-ops.tsv", data.vendor_only);
  return data;
}

namespace {
const char *const kColumns =
    "operator\tcpu\tcuda\tmps\tmps_status\tcomposite\tdelegate\tvariants\tpython_module\tflags";
} // namespace

std::string write_table(const CoverageTable &table) {
  std::ostringstream out;
  out << "# mpsaudit operator-coverage table, generated by mpsaudit-gen-coverage; do not edit.\n"
      << "# Derivation and columns: docs/runtime-probe.md.\n"
      << "# pytorch: " << table.version << "\n"
      << "# input: native_functions.yaml " << table.input_fingerprint << "\n"
      << kColumns << "\n";
  for (const OperatorCoverage &op : table.operators) {
    std::string variants;
    if (op.function_variant)
      variants += 'f';
    if (op.method_variant)
      variants += 'm';
    std::string flags;
    if (op.structured)
      flags += 's';
    if (op.manual_registration)
      flags += 'r';
    if (op.has_out_argument)
      flags += 'o';
    if (op.in_place)
      flags += 'i';
    auto dash = [](const std::string &text) { return text.empty() ? std::string("-") : text; };
    out << op.full_name() << '\t' << to_code(op.cpu) << '\t' << to_code(op.cuda) << '\t' << to_code(op.mps)
        << '\t' << to_string(op.mps_status) << '\t' << to_string(op.composite) << '\t' << dash(op.delegate)
        << '\t' << dash(variants) << '\t' << dash(op.python_module) << '\t' << dash(flags) << '\n';
  }
  return out.str();
}

std::optional<CoverageTable> read_table(std::string_view text, const std::string &path,
                                        std::vector<TableProblem> &problems) {
  CoverageTable table;
  // A row a line: sized once, not doubled through the 3,000-odd rows.
  table.operators.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
  bool saw_header = false;
  std::uint32_t line_number = 0;
  std::size_t problems_before = problems.size();
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty())
      continue;
    if (line.front() == '#') {
      constexpr std::string_view version_key = "# pytorch: ";
      constexpr std::string_view input_key = "# input: native_functions.yaml ";
      if (line.substr(0, version_key.size()) == version_key)
        table.version = std::string(trim(line.substr(version_key.size())));
      else if (line.substr(0, input_key.size()) == input_key)
        table.input_fingerprint = std::string(trim(line.substr(input_key.size())));
      continue;
    }
    if (!saw_header) {
      if (line != kColumns) {
        problems.push_back({path, line_number, "unexpected column header"});
        return std::nullopt;
      }
      saw_header = true;
      continue;
    }
    std::array<std::string_view, 10> fields;
    const std::size_t field_count = split_fields(line, '\t', fields);
    auto bad = [&](const std::string &why) { problems.push_back({path, line_number, why}); };
    if (field_count != fields.size()) {
      bad("expected 10 tab-separated fields");
      continue;
    }
    OperatorCoverage op;
    std::size_t dot = fields[0].find('.');
    op.name = std::string(fields[0].substr(0, dot));
    op.overload = dot == std::string_view::npos ? std::string() : std::string(fields[0].substr(dot + 1));
    auto cpu = fields[1].size() == 1 ? kernel_source_from_code(fields[1][0]) : std::nullopt;
    auto cuda = fields[2].size() == 1 ? kernel_source_from_code(fields[2][0]) : std::nullopt;
    auto mps = fields[3].size() == 1 ? kernel_source_from_code(fields[3][0]) : std::nullopt;
    auto status = mps_status_from_string(fields[4]);
    auto composite = composite_from_string(fields[5]);
    if (op.name.empty() || !cpu || !cuda || !mps || !status || !composite) {
      bad("unknown code in a column");
      continue;
    }
    op.cpu = *cpu;
    op.cuda = *cuda;
    op.mps = *mps;
    op.mps_status = *status;
    op.composite = *composite;
    auto undash = [](std::string_view field) { return field == "-" ? std::string_view() : field; };
    op.delegate = std::string(undash(fields[6]));
    const std::string_view variants = undash(fields[7]);
    op.function_variant = variants.find('f') != std::string_view::npos;
    op.method_variant = variants.find('m') != std::string_view::npos;
    op.python_module = std::string(undash(fields[8]));
    const std::string_view flags = undash(fields[9]);
    op.structured = flags.find('s') != std::string_view::npos;
    op.manual_registration = flags.find('r') != std::string_view::npos;
    op.has_out_argument = flags.find('o') != std::string_view::npos;
    op.in_place = flags.find('i') != std::string_view::npos;
    table.operators.push_back(std::move(op));
  }
  if (!saw_header) {
    problems.push_back({path, line_number, "no column header"});
    return std::nullopt;
  }
  if (table.version.empty())
    problems.push_back({path, 0, "no `# pytorch:` line"});
  table.rebuild_index();
  if (problems.size() != problems_before && table.operators.empty())
    return std::nullopt;
  return table;
}

std::optional<CoverageTable> read_table_file(const std::string &path, std::vector<TableProblem> &problems) {
  const std::optional<std::string> text = read_whole_file(path);
  if (!text) {
    problems.push_back({path, 0, "cannot read coverage table"});
    return std::nullopt;
  }
  return read_table(*text, path, problems);
}

namespace {

// The release a table's header names, read without its rows; empty when the
// file has no column header or no `# pytorch:` line (read_table's problems).
std::string header_version(const std::string &path, std::vector<TableProblem> &problems) {
  std::ifstream in(path);
  if (!in) {
    problems.push_back({path, 0, "cannot read coverage table"});
    return {};
  }
  std::string header;
  std::uint32_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      continue;
    if (line.front() != '#') {
      if (line == kColumns && !header.empty())
        return std::string(trim(std::string_view(header).substr(std::string_view("# pytorch: ").size())));
      problems.push_back(
          {path, line_number, line == kColumns ? "no `# pytorch:` line" : "unexpected column header"});
      return {};
    }
    if (line.rfind("# pytorch: ", 0) == 0)
      header = line;
  }
  problems.push_back({path, line_number, "no column header"});
  return {};
}

} // namespace

CoverageLibrary CoverageLibrary::open(const std::string &tables_dir, std::vector<TableProblem> &problems) {
  CoverageLibrary library;
  std::error_code error;
  std::vector<std::string> paths;
  for (const auto &file : std::filesystem::directory_iterator(tables_dir, error))
    if (file.path().extension() == ".tsv")
      paths.push_back(file.path().string());
  if (error)
    problems.push_back({tables_dir, 0, "cannot list coverage tables: " + error.message()});
  for (std::string &path : paths) {
    std::string version = header_version(path, problems);
    if (version.empty())
      continue;
    auto slot = std::make_unique<Slot>();
    slot->path = std::move(path);
    slot->version = std::move(version);
    library.slots_.push_back(std::move(slot));
  }
  std::sort(library.slots_.begin(), library.slots_.end(),
            [](const auto &a, const auto &b) { return compare_versions(a->version, b->version) < 0; });
  return library;
}

void CoverageLibrary::read_rows(const Slot &slot, std::vector<TableProblem> &problems) {
  std::call_once(slot.read, [&] {
    if (auto table = read_table_file(slot.path, problems))
      slot.table = std::move(*table);
    slot.table.version = slot.version;
  });
}

CoverageLibrary CoverageLibrary::load(const std::string &tables_dir, std::vector<TableProblem> &problems) {
  CoverageLibrary library = open(tables_dir, problems);
  for (const std::unique_ptr<Slot> &slot : library.slots_)
    read_rows(*slot, problems);
  return library;
}

const CoverageTable &CoverageLibrary::table(std::size_t i) const {
  std::vector<TableProblem> unreported; // load() reports them
  read_rows(*slots_[i], unreported);
  return slots_[i]->table;
}

const CoverageTable *CoverageLibrary::closest(std::string_view version) const {
  if (slots_.empty())
    return nullptr;
  std::size_t best = 0;
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (compare_versions(slots_[i]->version, version) <= 0)
      best = i;
  return &table(best);
}

const CoverageTable *CoverageLibrary::exact(std::string_view version) const {
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (compare_versions(slots_[i]->version, version) == 0)
      return &table(i);
  return nullptr;
}

std::string CoverageLibrary::first_release_with_mps(std::string_view name, std::string_view after) const {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (compare_versions(slots_[i]->version, after) <= 0)
      continue;
    const CoverageTable &table = this->table(i);
    auto overloads = table.overloads(name);
    if (overloads.empty())
      continue;
    bool all_run = std::all_of(overloads.begin(), overloads.end(), [](const OperatorCoverage *op) {
      return op->has_out_argument || runs_on_mps(op->mps_status);
    });
    bool any_functional = std::any_of(overloads.begin(), overloads.end(),
                                      [](const OperatorCoverage *op) { return !op->has_out_argument; });
    if (all_run && any_functional)
      return table.version;
  }
  return {};
}

} // namespace mpsaudit::probe
