#include "assess/assess_policy.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "assess/entry_points.h"
#include "assess/roles.h"
#include "core/text.h"
#include "rules/toml_reader.h"

namespace mpsaudit {

// rules/assess.toml as the build read it (assess_policy_text.cpp, generated).
extern const char *const kBundledAssessPolicyText;

namespace {

constexpr const char *kCode = "assess-policy";

const toml::table *table_at(TomlFileReader &reader, const toml::table &parent, std::string_view key,
                            const std::string &where) {
  const toml::table *table = parent.get_as<toml::table>(key);
  if (!table)
    reader.error(&parent, "missing table [" + where + "]");
  return table;
}

// A table of lists of words, one list per name that `parse` knows: each
// word becomes a (word, value) pair. A word says one thing: listed under two
// names (or twice) it is an error, so that no order of the names decides.
template <typename Value, typename Parse>
std::vector<std::pair<std::string, Value>> word_table(TomlFileReader &reader, const toml::table &table,
                                                      const std::string &where, Parse parse) {
  std::vector<std::pair<std::string, Value>> pairs;
  for (const auto &[key, node] : table) {
    const std::optional<Value> value = parse(key.str());
    if (!value) {
      reader.error(&node, "unknown name '" + std::string(key.str()) + "' in " + where);
      continue;
    }
    for (std::string &word : reader.strings_at(table, key.str(), where)) {
      const bool listed =
          std::any_of(pairs.begin(), pairs.end(), [&](const auto &pair) { return pair.first == word; });
      if (listed)
        reader.error(&node, "'" + word + "' is listed twice in " + where);
      else
        pairs.emplace_back(std::move(word), *value);
    }
  }
  return pairs;
}

std::vector<std::string> required_words(TomlFileReader &reader, const toml::table &table,
                                        std::string_view key, const std::string &where) {
  std::vector<std::string> words = reader.strings_at(table, key, where);
  if (words.empty())
    reader.error(&table, "'" + std::string(key) + "' in " + where + " needs at least one word");
  return words;
}

int weight_at(TomlFileReader &reader, const toml::table &weights, std::string_view key) {
  const toml::node *node = weights.get(key);
  const std::optional<std::int64_t> value = node ? node->value_exact<std::int64_t>() : std::nullopt;
  if (!value || *value < 0 || *value > 100) {
    reader.error(node ? node : &weights,
                 "'" + std::string(key) + "' in [file_roles.weights] must be a whole number from 0 to 100");
    return 0;
  }
  return static_cast<int>(*value);
}

void read_file_roles(TomlFileReader &reader, const toml::table &roles, AssessPolicy &policy) {
  reader.check_keys(roles, {"path_hints", "test_directories", "docs_directories", "weights"}, "[file_roles]");
  if (const toml::table *hints = table_at(reader, roles, "path_hints", "file_roles.path_hints"))
    policy.path_hints = word_table<Role>(reader, *hints, "[file_roles.path_hints]", role_from_string);
  policy.test_directories = required_words(reader, roles, "test_directories", "[file_roles]");
  policy.docs_directories = required_words(reader, roles, "docs_directories", "[file_roles]");
  const toml::table *weights = table_at(reader, roles, "weights", "file_roles.weights");
  if (!weights)
    return;
  reader.check_keys(*weights,
                    {"nn_module_classes", "defines_forward", "optimizer", "backward", "optimizer_step",
                     "data_loader", "dataset", "no_grad", "script", "path_hint"},
                    "[file_roles.weights]");
  RoleWeights &w = policy.weights;
  for (auto [key, slot] :
       std::initializer_list<std::pair<std::string_view, int *>>{{"nn_module_classes", &w.nn_module_classes},
                                                                 {"defines_forward", &w.defines_forward},
                                                                 {"optimizer", &w.optimizer},
                                                                 {"backward", &w.backward},
                                                                 {"optimizer_step", &w.optimizer_step},
                                                                 {"data_loader", &w.data_loader},
                                                                 {"dataset", &w.dataset},
                                                                 {"no_grad", &w.no_grad},
                                                                 {"script", &w.script},
                                                                 {"path_hint", &w.path_hint}})
    *slot = weight_at(reader, *weights, key);
}

void read_entry_purposes(TomlFileReader &reader, const toml::table &purposes, AssessPolicy &policy) {
  reader.check_keys(purposes, {"words", "code_generator_lines", "training_flags"}, "[entry_purposes]");
  if (const toml::table *words = table_at(reader, purposes, "words", "entry_purposes.words"))
    policy.purpose_words =
        word_table<EntryPurpose>(reader, *words, "[entry_purposes.words]", entry_purpose_from_string);
  policy.code_generator_lines = required_words(reader, purposes, "code_generator_lines", "[entry_purposes]");
  policy.training_flags = required_words(reader, purposes, "training_flags", "[entry_purposes]");
}

void read_launch(TomlFileReader &reader, const toml::table &launch, AssessPolicy &policy) {
  reader.check_keys(launch, {"launchers", "container_directories"}, "[launch]");
  policy.launchers = required_words(reader, launch, "launchers", "[launch]");
  policy.container_directories = required_words(reader, launch, "container_directories", "[launch]");
}

void read_compiled_ops(TomlFileReader &reader, const toml::table &ops, AssessPolicy &policy) {
  reader.check_keys(ops, {"not_the_op"}, "[compiled_ops]");
  policy.not_the_op = required_words(reader, ops, "not_the_op", "[compiled_ops]");
}

void read_kernel_families(TomlFileReader &reader, const toml::table &families, AssessPolicy &policy) {
  reader.check_keys(families, {"variant_words", "numbered_prefixes"}, "[kernel_families]");
  policy.kernel_variant_words = required_words(reader, families, "variant_words", "[kernel_families]");
  policy.kernel_numbered_prefixes =
      required_words(reader, families, "numbered_prefixes", "[kernel_families]");
}

void read_mac_memory(TomlFileReader &reader, const toml::table &memory, AssessPolicy &policy) {
  reader.check_keys(memory, {"tiers_gb", "source"}, "[mac_memory]");
  const toml::array *tiers = memory.get_as<toml::array>("tiers_gb");
  if (tiers)
    for (const toml::node &tier : *tiers) {
      const std::optional<std::int64_t> gigabytes = tier.value_exact<std::int64_t>();
      if (!gigabytes || *gigabytes <= 0 || *gigabytes > 65536 ||
          (!policy.mac_memory_tiers_gb.empty() && *gigabytes <= policy.mac_memory_tiers_gb.back())) {
        reader.error(&tier, "'tiers_gb' in [mac_memory] must be whole gigabytes in ascending order");
        policy.mac_memory_tiers_gb.clear();
        return;
      }
      policy.mac_memory_tiers_gb.push_back(static_cast<int>(*gigabytes));
    }
  if (policy.mac_memory_tiers_gb.empty())
    reader.error(tiers ? static_cast<const toml::node *>(tiers) : &memory,
                 "'tiers_gb' in [mac_memory] needs at least one tier");
}

} // namespace

AssessPolicy parse_assess_policy(std::string_view text, const std::string &origin,
                                 std::vector<Diagnostic> &diagnostics) {
  AssessPolicy policy;
  policy.origin = origin;
  TomlFileReader reader(origin, kCode, diagnostics);
  const std::optional<toml::table> document = reader.parse(text);
  if (!document)
    return policy;
  using ReadTable = void (*)(TomlFileReader &, const toml::table &, AssessPolicy &);
  static constexpr std::pair<std::string_view, ReadTable> kTables[] = {
      {"file_roles", read_file_roles},
      {"entry_purposes", read_entry_purposes},
      {"launch", read_launch},
      {"compiled_ops", read_compiled_ops},
      {"kernel_families", read_kernel_families},
      {"mac_memory", read_mac_memory}};
  reader.check_keys(
      *document, {"file_roles", "entry_purposes", "launch", "compiled_ops", "kernel_families", "mac_memory"},
      "the top level");
  for (const auto &[name, read] : kTables)
    if (const toml::table *table = table_at(reader, *document, name, std::string(name)))
      read(reader, *table, policy);
  return policy;
}

AssessPolicy load_assess_policy(const std::string &path, std::vector<Diagnostic> &diagnostics) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diagnostics.push_back({DiagnosticLevel::Error, path, 0, kCode, "cannot read the assessment policy"});
    return bundled_assess_policy();
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_assess_policy(text.str(), path, diagnostics);
}

bool AssessPolicy::is_launcher(std::string_view command) const {
  return std::any_of(launchers.begin(), launchers.end(),
                     [&](const std::string &glob) { return path_glob_match(glob, command); });
}

std::string AssessPolicy::generated_source_line(const Fact &call) const {
  if (call.kind != fact_kind::Call ||
      !(ends_with(call.name, ".write") || ends_with(call.name, ".write_text")))
    return {};
  const Argument *written = call.positional_argument(0);
  if (!written || !written->is_string)
    return {};
  for (const std::string &start : code_generator_lines)
    if (starts_with(written->value, start))
      return written->value.substr(
          0, std::min<std::size_t>(written->value.find_first_of("\\\n"), 80)); // one line
  return {};
}

std::string AssessPolicy::generated_source_line(const std::vector<Fact> &facts) const {
  for (const Fact &fact : facts)
    if (std::string line = generated_source_line(fact); !line.empty())
      return line;
  return {};
}

const AssessPolicy &bundled_assess_policy() {
  static const AssessPolicy policy = [] {
    std::vector<Diagnostic> ignored; // a unit test holds the source file to no diagnostics
    return parse_assess_policy(kBundledAssessPolicyText, "rules/assess.toml", ignored);
  }();
  return policy;
}

} // namespace mpsaudit
