// The assessment's vocabulary as data (rules/assess.toml): the file parses
// without a problem and is what the binary embeds, a wrong entry is an error
// naming its line, and the words decide: a policy with other words gives
// other roles and purposes.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../test_support.h"
#include "assess/assess_policy.h"
#include "assess/effort.h"
#include "assess/roles.h"

using namespace mpsaudit;

namespace {

const std::string kMinimal = R"(
[file_roles]
path_hints.training = ["stages"]
test_directories = ["checks"]
docs_directories = ["guides"]
[file_roles.weights]
nn_module_classes = 3
defines_forward = 1
optimizer = 3
backward = 2
optimizer_step = 1
data_loader = 2
dataset = 2
no_grad = 2
script = 1
path_hint = 2
[entry_purposes]
words.inference = ["render"]
code_generator_lines = ["#include"]
training_flags = ["--epochs"]
[launch]
launchers = ["python*"]
container_directories = ["docker"]
[compiled_ops]
not_the_op = ["cuda"]
[kernel_families]
variant_words = ["fp16"]
numbered_prefixes = ["sm"]
[mac_memory]
tiers_gb = [16, 64]
)";

std::vector<std::string> messages_of(const std::string &text) {
  std::vector<Diagnostic> problems;
  parse_assess_policy(text, "assess.toml", problems);
  std::vector<std::string> messages;
  for (const Diagnostic &problem : problems)
    messages.push_back(std::to_string(problem.line) + ": " + problem.message);
  return messages;
}

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

} // namespace

TEST_CASE("rules/assess.toml parses without a problem and is the bundled policy", "[assess][policy]") {
  std::vector<Diagnostic> problems;
  const AssessPolicy policy = load_assess_policy(testing::rules_directory() + "/assess.toml", problems);
  REQUIRE(problems.empty());
  const AssessPolicy &bundled = bundled_assess_policy();
  CHECK(policy.path_hints == bundled.path_hints);
  CHECK(policy.test_directories == bundled.test_directories);
  CHECK(policy.docs_directories == bundled.docs_directories);
  CHECK(policy.purpose_words == bundled.purpose_words);
  CHECK(policy.training_flags == bundled.training_flags);
  CHECK(policy.mac_memory_tiers_gb == bundled.mac_memory_tiers_gb);
  CHECK(policy.weights.nn_module_classes == bundled.weights.nn_module_classes);
  CHECK(policy.weights.path_hint == bundled.weights.path_hint);
  CHECK(bundled.largest_mac_gb() == 512);
  CHECK(bundled.path_hints.size() > 40);
  CHECK(bundled.purpose_words.size() > 40);
}

TEST_CASE("a wrong entry in the policy is an error naming its line", "[assess][policy]") {
  CHECK(messages_of(kMinimal).empty());
  CHECK(messages_of(replaced(kMinimal, "path_hints.training", "path_hints.trainin")) ==
        std::vector<std::string>{"3: unknown name 'trainin' in [file_roles.path_hints]"});
  CHECK(messages_of(replaced(kMinimal, "words.inference", "words.rendering")) ==
        std::vector<std::string>{"18: unknown name 'rendering' in [entry_purposes.words]"});
  CHECK(
      messages_of(replaced(kMinimal, "script = 1", "script = 1.5")) ==
      std::vector<std::string>{"15: 'script' in [file_roles.weights] must be a whole number from 0 to 100"});
  CHECK(
      messages_of(replaced(kMinimal, "[16, 64]", "[64, 16]")) ==
      std::vector<std::string>{"30: 'tiers_gb' in [mac_memory] must be whole gigabytes in ascending order"});
  CHECK(messages_of(replaced(kMinimal, "test_directories = [\"checks\"]\n", "")) ==
        std::vector<std::string>{"2: 'test_directories' in [file_roles] needs at least one word"});
  CHECK(messages_of(replaced(kMinimal, "[mac_memory]", "[mac_memroy]")).front() ==
        "29: unknown key 'mac_memroy' in the top level");
}

TEST_CASE("the policy's words decide roles and places", "[assess][policy]") {
  std::vector<Diagnostic> problems;
  const AssessPolicy policy = parse_assess_policy(kMinimal, "assess.toml", problems);
  REQUIRE(problems.empty());
  const std::vector<ProjectFile> files{{"stages/loop.py", FileKind::Python, {}},
                                       {"train/loop.py", FileKind::Python, {}},
                                       {"checks/loop.py", FileKind::Python, {}}};
  const std::vector<FileRole> own = classify_roles(files, {}, policy);
  CHECK(own[0].role == Role::Training); // "stages" is this policy's training word
  CHECK(own[1].role == Role::Tooling);  // "train" is not
  CHECK(own[2].role == Role::Tests);
  const std::vector<FileRole> bundled = classify_roles(files, {}, bundled_assess_policy());
  CHECK(bundled[0].role == Role::Tooling);
  CHECK(bundled[1].role == Role::Training);
  CHECK(is_docs_file("guides/intro.py", policy));
  CHECK_FALSE(is_docs_file("docs/intro.py", policy));
  CHECK(is_docs_file("docs/intro.py", bundled_assess_policy()));
  CHECK(policy.is_launcher("python3.11"));
  CHECK_FALSE(policy.is_launcher("torchrun"));
  CHECK(bundled_assess_policy().is_launcher("torchrun"));
  // Kernel families: this policy knows fp16 and sm<N>, not hdim<N>.
  CHECK(kernel_family_name("flash_fwd_hdim64_fp16_sm80", policy) == "flash_fwd_hdim64");
  CHECK(kernel_family_name("flash_fwd_hdim64_fp16_sm80", bundled_assess_policy()) == "flash_fwd");
}
