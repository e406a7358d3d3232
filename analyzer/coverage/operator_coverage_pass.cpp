#include "coverage/operator_coverage_pass.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <system_error>

#include "core/text.h"
#include "coverage_table.h"
#include "python_api.h"
#include "verdicts.h"

namespace mpsaudit {
namespace {

namespace probe = mpsaudit::probe;

// One row of runtime-probe/data/mps-extra-ops.tsv.
struct ExtraRow {
  std::string python_name;
  std::vector<std::pair<std::string, std::string>> when; // keyword=value, all required
  std::vector<std::string> aten_names;                   // looked up in the table when set
  std::string first_mps_release;                         // else this decides; empty: none yet
};

// What the tables and data of one pair of directories say; the target
// release, set apart, does not change it.
struct Knowledge {
  std::string tables_dir;
  std::string data_dir;
  probe::CoverageLibrary library;
  probe::PythonApiMap api_map;
  std::vector<ExtraRow> extras;
};

std::mutex settings_mutex; // guards `configured`
OperatorCoverageSettings configured = source_tree_operator_coverage();
std::mutex knowledge_mutex; // guards `loaded`, and is held while it loads
std::shared_ptr<const Knowledge> loaded;

OperatorCoverageSettings configured_settings() {
  std::lock_guard<std::mutex> lock(settings_mutex);
  return configured;
}

std::vector<std::string> split_list(const std::string &text, char separator) {
  std::vector<std::string> parts;
  if (text == "-")
    return parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);)
    if (!part.empty())
      parts.push_back(part);
  return parts;
}

// Malformed rows are skipped: the knowledge is committed data, checked by the unit tests.
std::vector<ExtraRow> read_extra_rows(const std::string &path) {
  std::vector<ExtraRow> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    const std::vector<std::string> columns = split_list(line, '\t');
    if (columns.size() < 4)
      continue;
    ExtraRow row;
    row.python_name = columns[0];
    for (const std::string &condition : split_list(columns[1], ';')) {
      const auto equals = condition.find('=');
      if (equals != std::string::npos)
        row.when.emplace_back(condition.substr(0, equals), condition.substr(equals + 1));
    }
    row.aten_names = split_list(columns[2], ',');
    row.first_mps_release = columns[3] == "-" ? "" : columns[3];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::shared_ptr<const Knowledge> knowledge() {
  const OperatorCoverageSettings settings = configured_settings();
  std::lock_guard<std::mutex> lock(knowledge_mutex);
  if (!loaded || loaded->tables_dir != settings.tables_dir || loaded->data_dir != settings.data_dir) {
    auto fresh = std::make_shared<Knowledge>();
    fresh->tables_dir = settings.tables_dir;
    fresh->data_dir = settings.data_dir;
    std::vector<probe::TableProblem> problems; // a missing table only means no findings
    if (!settings.tables_dir.empty())
      fresh->library = probe::CoverageLibrary::open(settings.tables_dir, problems);
    if (!settings.data_dir.empty()) {
      fresh->api_map = probe::PythonApiMap::load(settings.data_dir + "/python-api-map.tsv", problems);
      fresh->extras = read_extra_rows(settings.data_dir + "/mps-extra-ops.tsv");
    }
    loaded = std::move(fresh);
  }
  return loaded;
}

// The release the project targets: the config's target-torch, else an
// exact torch pin in a manifest, else empty (the newest table).
std::string wanted_release(const std::vector<ProjectFile> &files) {
  if (std::string target = configured_settings().target_torch; !target.empty())
    return target;
  for (const ProjectFile &file : files)
    for (const Fact &fact : file.facts.facts)
      if (fact.kind == fact_kind::Dependency && fact.name == "torch")
        if (const std::string *version = fact.attribute("version"); version && !version->empty())
          return *version;
  return {};
}

bool argument_holds(const Fact &call, const std::string &keyword, const std::string &value) {
  const Argument *argument = call.keyword_argument(keyword);
  return argument && (argument->is_string ? argument->value == value : argument->text == value);
}

const ExtraRow *extra_row_for(const Knowledge &known, const std::string &name, const Fact &call) {
  for (const ExtraRow &row : known.extras) {
    if (row.python_name != name)
      continue;
    bool holds = true;
    for (const auto &[keyword, value] : row.when)
      holds = holds && argument_holds(call, keyword, value);
    if (holds)
      return &row;
  }
  return nullptr;
}

// Whether every overload a Python call can reach of `aten_names` runs on MPS in `table`.
bool all_run_on_mps(const probe::CoverageTable &table, const std::vector<std::string> &aten_names) {
  probe::OperatorVerdict verdict;
  verdict.resolution.aten_names = aten_names;
  probe::apply_coverage_verdict(verdict, table, probe::CoverageLibrary{});
  return verdict.mps_outcome == "native" || verdict.mps_outcome == "composite";
}

// The first table release after `table` where all of `aten_names` run on MPS; empty: none.
std::string first_table_with_mps(const Knowledge &known, const probe::CoverageTable &table,
                                 const std::vector<std::string> &aten_names) {
  const probe::CoverageLibrary &library = known.library;
  for (std::size_t i = 0; i < library.size(); ++i)
    if (probe::compare_versions(library.version(i), table.version) > 0 &&
        all_run_on_mps(library.table(i), aten_names))
      return library.version(i);
  return {};
}

std::string missing_answer(const std::string &release, const std::string &first, const std::string &newest) {
  return "has no MPS kernel in torch " + release +
         (!first.empty()      ? " (added by " + first + ")"
          : release == newest ? std::string(" (the newest release known)")
                              : " (nor in " + newest + ", the newest release known)") +
         "; set PYTORCH_ENABLE_MPS_FALLBACK=1 or move it to the CPU";
}

// The finding's text for a call, or empty when the release runs it on MPS.
std::string answer_from_table(const Knowledge &known, const probe::CoverageTable &table,
                              const std::vector<std::string> &aten_names, bool partial_counts) {
  std::vector<std::string> present;
  for (const std::string &name : aten_names)
    if (table.has_name(name))
      present.push_back(name);
  probe::OperatorVerdict verdict;
  verdict.resolution.aten_names = present;
  // Only the outcome is read here, not the release that adds a kernel: an
  // empty library spares apply_coverage_verdict the later tables.
  probe::apply_coverage_verdict(verdict, table, probe::CoverageLibrary{});
  const std::string &newest = known.library.version(known.library.size() - 1);
  // Later tables are read only for an answer that names the release.
  if (verdict.mps_outcome == "missing" || (partial_counts && verdict.mps_outcome == "partial"))
    return missing_answer(table.version, first_table_with_mps(known, table, present), newest);
  // A wrapper that picks one of several operators by its arguments (interpolate's
  // modes) falls back only on some paths; explicit rows say which.
  const bool picks_by_arguments = !partial_counts && present.size() > 1;
  if (verdict.mps_outcome != "forced-cpu" || picks_by_arguments)
    return {};
  const std::string first = first_table_with_mps(known, table, present);
  return "always falls back to the CPU under MPS in torch " + table.version +
         " (MPSFallback.mm, whatever PYTORCH_ENABLE_MPS_FALLBACK says)" +
         (first.empty() ? std::string() : "; runs on MPS from " + first);
}

std::string answer_for(const Knowledge &known, const probe::CoverageTable &table, const std::string &release,
                       const std::string &name, const Fact &call) {
  if (const ExtraRow *row = extra_row_for(known, name, call)) {
    if (!row->aten_names.empty())
      return answer_from_table(known, table, row->aten_names, true);
    if (!row->first_mps_release.empty() && probe::compare_versions(release, row->first_mps_release) >= 0)
      return {};
    return "has no MPS kernel in torch " + release +
           (row->first_mps_release.empty() ? std::string(" (nor in any release yet)")
                                           : " (added in " + row->first_mps_release + ")") +
           "; set PYTORCH_ENABLE_MPS_FALLBACK=1 or move it to the CPU";
  }
  // Method calls and dtype attributes are matched only through explicit rows:
  // a method's receiver may be no tensor.
  if (call.kind != fact_kind::Call || name.rfind("torch.", 0) != 0 || name.rfind("torch.Tensor.", 0) == 0)
    return {};
  const probe::ApiResolution resolution = known.api_map.resolve(name, table);
  if (resolution.aten_names.empty())
    return {};
  return answer_from_table(known, table, resolution.aten_names, false);
}

// Whether some release's table or an extra row could report a call of
// `name`: only those calls are kept whole (with their arguments) for the pass.
// Memoised per name; the scan asks once per call from several threads.
std::mutex candidates_mutex;
std::map<std::string, bool, std::less<>> candidates;

bool may_be_reported(const std::string &name) {
  if (name.rfind("torch", 0) != 0) // torch.* and torchvision.*
    return false;
  std::lock_guard<std::mutex> lock(candidates_mutex);
  const auto cached = candidates.find(name);
  if (cached != candidates.end())
    return cached->second;
  const std::shared_ptr<const Knowledge> known = knowledge();
  bool reported = std::any_of(known->extras.begin(), known->extras.end(),
                              [&](const ExtraRow &row) { return row.python_name == name; });
  const bool generic = name.rfind("torch.", 0) == 0 && name.rfind("torch.Tensor.", 0) != 0;
  for (std::size_t i = 0; i < known->library.size() && generic && !reported; ++i) {
    const probe::CoverageTable &table = known->library.table(i);
    const probe::ApiResolution resolution = known->api_map.resolve(name, table);
    reported = !answer_from_table(*known, table, resolution.aten_names, false).empty();
  }
  candidates.emplace(name, reported);
  return reported;
}

// The Python name a call reaches: its canonical name, or torch.Tensor.X for a method call.
std::string python_name(const Fact &call) {
  const std::string *method = call.attribute("method");
  const std::string *method_name = call.attribute("method_name");
  if (method && *method == "true" && method_name)
    return "torch.Tensor." + *method_name;
  return call.name;
}

} // namespace

void configure_operator_coverage(OperatorCoverageSettings settings) {
  std::lock_guard<std::mutex> lock(settings_mutex);
  const bool same_tables =
      settings.tables_dir == configured.tables_dir && settings.data_dir == configured.data_dir;
  configured = std::move(settings);
  if (same_tables) // the target release alone changes no table, and no memoised answer
    return;
  std::lock_guard<std::mutex> candidates_lock(candidates_mutex);
  candidates.clear();
}

void preload_operator_coverage() {
  // The others are read when a lookup needs them: a cold scan's first rules
  // ask every release, a warm one mostly none.
  if (const std::shared_ptr<const Knowledge> known = knowledge(); !known->library.empty())
    known->library.newest();
}

OperatorCoverageSettings source_tree_operator_coverage() {
  const std::string probe_root = std::string(MPSAUDIT_SOURCE_DIR) + "/runtime-probe";
  return {probe_root + "/coverage", probe_root + "/data", ""};
}

void find_missing_mps_operators(std::vector<ProjectFile> &files) {
  const std::shared_ptr<const Knowledge> known = knowledge();
  if (known->library.empty())
    return;
  const std::string wanted = wanted_release(files);
  const probe::CoverageTable *table =
      wanted.empty() ? &known->library.newest() : known->library.closest(wanted);
  const std::string release = wanted.empty() ? table->version : wanted;
  for (ProjectFile &file : files) {
    if (file.kind != FileKind::Python && file.kind != FileKind::Notebook)
      continue;
    std::vector<Fact> gaps;
    for (const Fact &fact : file.facts.facts) {
      if (fact.kind != fact_kind::Call && fact.kind != fact_kind::Attribute)
        continue;
      const std::string name = python_name(fact);
      const std::string answer = answer_for(*known, *table, release, name, fact);
      if (answer.empty())
        continue;
      Fact gap = fact;
      gap.kind = std::string(kMpsMissingOpFact);
      gap.name = name;
      gap.arguments.clear();
      gap.attributes.clear();
      gap.set_attribute("value", answer);
      gap.set_attribute("release", table->version);
      gaps.push_back(std::move(gap));
    }
    for (Fact &gap : gaps)
      file.facts.facts.push_back(std::move(gap));
  }
}

std::string operator_coverage_retention_inputs() {
  namespace fs = std::filesystem;
  const OperatorCoverageSettings settings = configured_settings();
  std::vector<std::string> files;
  for (const std::string &directory : {settings.tables_dir, settings.data_dir}) {
    std::error_code error;
    for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
      std::error_code ignored;
      if (!it->is_regular_file(ignored))
        continue;
      const auto modified = it->last_write_time(ignored).time_since_epoch().count();
      files.push_back(it->path().string() + '\t' + std::to_string(it->file_size(ignored)) + '\t' +
                      std::to_string(modified));
    }
  }
  std::sort(files.begin(), files.end()); // directory order is the file system's
  std::string inputs;
  for (const std::string &file : files)
    inputs += file + '\n';
  return inputs;
}

// Whole facts (arguments and every call site) only for the calls the pass can look up.
FactRetention operator_coverage_retention(const Fact &fact) {
  if (fact.kind == fact_kind::Dependency)
    return FactRetention::Keep;
  if (fact.kind != fact_kind::Call && fact.kind != fact_kind::Attribute)
    return FactRetention::Drop;
  if (fact.kind == fact_kind::Attribute) { // dtypes such as torch.complex64: only those with a row
    const std::shared_ptr<const Knowledge> known = knowledge();
    const bool listed = std::any_of(known->extras.begin(), known->extras.end(),
                                    [&](const ExtraRow &row) { return row.python_name == fact.name; });
    return listed ? FactRetention::Keep : FactRetention::Drop;
  }
  return may_be_reported(python_name(fact)) ? FactRetention::Keep : FactRetention::Drop;
}

} // namespace mpsaudit
