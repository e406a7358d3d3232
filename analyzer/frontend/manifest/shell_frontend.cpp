// Shell scripts, Makefiles, Slurm job scripts and Dockerfiles. A small word
// splitter (quotes, comments, command separators) turns each simple command
// into a `shell` fact named by its command word; assignments and exports
// become `env-var` facts; `#SBATCH` lines `job-directive` facts; `pip install`
// and `conda install` arguments go through the manifest readers, so a CUDA
// wheel index on a `pip install` line is reported like one in requirements.
#include <cctype>
#include <map>
#include <optional>
#include <vector>

#include "core/text.h"
#include "frontend/manifest/logical_line.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/package_knowledge.h"
#include "frontend/manifest/requirement.h"

namespace mpsaudit {
using namespace manifest;

namespace {

struct Word {
  std::string text;   // with quotes removed
  std::size_t offset; // in the logical line
  bool is_operator = false;
  std::size_t end = 0; // one past its last byte in the logical line
};

// Splits a command line into words and operators (&&, ||, ;, |, &, (, )).
// A '#' at the start of a word begins a comment.
std::vector<Word> split_shell(std::string_view text) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (c == '#')
      break;
    if (c == '&' || c == '|' || c == ';' || c == '(' || c == ')' || c == '`') {
      std::size_t length = 1;
      if ((c == '&' || c == '|' || c == ';') && i + 1 < text.size() && text[i + 1] == c)
        length = 2;
      words.push_back({std::string(text.substr(i, length)), i, true, i + length});
      i += length;
      continue;
    }
    Word word{{}, i, false};
    while (i < text.size()) {
      const char d = text[i];
      if (d == ' ' || d == '\t' || d == ';' || d == '&' || d == '|' || d == '`' || d == ')')
        break;
      if (d == '(' && !(i > 0 && text[i - 1] == '$')) {
        break;
      }
      if (d == '$' && i + 1 < text.size() && text[i + 1] == '(') {
        // $(...) command substitution kept inside the word, parenthesis-balanced
        int depth = 0;
        while (i < text.size()) {
          word.text.push_back(text[i]);
          if (text[i] == '(')
            ++depth;
          else if (text[i] == ')' && --depth == 0) {
            ++i;
            break;
          }
          ++i;
        }
        continue;
      }
      if (d == '\'' || d == '"') {
        const auto close = text.find(d, i + 1);
        const auto stop = close == std::string_view::npos ? text.size() : close;
        word.text.append(text.substr(i + 1, stop - i - 1));
        i = stop == text.size() ? stop : stop + 1;
        continue;
      }
      if (d == '\\' && i + 1 < text.size()) {
        word.text.push_back(text[i + 1]);
        i += 2;
        continue;
      }
      word.text.push_back(d);
      ++i;
    }
    word.end = i;
    words.push_back(std::move(word));
  }
  return words;
}

bool is_assignment(std::string_view word, std::string &name, std::string &value) {
  const auto equals = word.find('=');
  if (equals == std::string_view::npos || equals == 0)
    return false;
  for (std::size_t i = 0; i < equals; ++i) {
    const char c = word[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  }
  if (std::isdigit(static_cast<unsigned char>(word[0])))
    return false;
  name = std::string(word.substr(0, equals));
  value = std::string(word.substr(equals + 1));
  return true;
}

std::string basename_of(std::string_view word) {
  const auto slash = word.rfind('/');
  return std::string(slash == std::string_view::npos ? word : word.substr(slash + 1));
}

class ShellAnalyzer {
public:
  ShellAnalyzer(std::string_view origin, FileFacts &facts) : origin_(origin), facts_(facts) {}

  // Analyses the part of `line` from `from` on (a RUN instruction's command).
  void analyze(const LogicalLine &line, std::size_t from = 0) {
    const std::string_view text = std::string_view(line.text).substr(from);
    auto words = split_shell(text);
    // The command text without a trailing comment, for messages.
    std::string whole;
    for (char c : trim(text.substr(0, words.empty() ? 0 : words.back().end)))
      if (!((c == ' ' || c == '\t') && !whole.empty() && whole.back() == ' '))
        whole.push_back(c == '\t' ? ' ' : c);
    for (auto &word : words) {
      word.offset += from;
      word.end += from;
    }
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= words.size(); ++i)
      if (i == words.size() || words[i].is_operator) {
        if (i > begin)
          simple_command(line, whole, std::vector<Word>(words.begin() + begin, words.begin() + i));
        begin = i + 1;
      }
  }

  void env_var(const LogicalLine &line, const std::string &name, const std::string &value, std::size_t offset,
               std::string_view how) {
    const auto [line_no, column] = line.position(offset);
    Fact fact =
        make_fact(manifest_fact_kind::EnvVar, name, line_no, column, static_cast<std::uint32_t>(name.size()));
    fact.set_attribute("value", value);
    fact.set_attribute("how", std::string(how));
    fact.set_attribute("line", std::string(trim(line.text)));
    facts_.facts.push_back(std::move(fact));
  }

private:
  void simple_command(const LogicalLine &line, const std::string &whole, std::vector<Word> words) {
    static const std::vector<std::string_view> keywords = {
        "if", "then", "else", "elif", "fi",   "do",   "done",  "while",   "until",   "for",
        "!",  "{",    "}",    "sudo", "exec", "time", "nohup", "command", "builtin", "eval"};
    std::size_t i = 0;
    bool assignments_only = true;
    std::vector<std::pair<std::string, std::pair<std::string, std::size_t>>> assignments;
    while (i < words.size()) {
      std::string name, value;
      const std::string &word = words[i].text;
      // Makefile recipe prefixes: @echo, -rm
      if (i == 0 && word.size() > 1 && (word[0] == '@' || word[0] == '-' || word[0] == '+') &&
          origin_ == "makefile")
        words[i].text = word.substr(1);
      if (is_assignment(words[i].text, name, value)) {
        assignments.push_back({name, {value, words[i].offset}});
        ++i;
        continue;
      }
      bool skipped = false;
      for (auto keyword : keywords)
        if (words[i].text == keyword) {
          skipped = true;
          break;
        }
      if (words[i].text == "env") {
        skipped = true;
      }
      if (!skipped)
        break;
      ++i;
    }
    assignments_only = i >= words.size();
    for (const auto &[name, value] : assignments)
      env_var(line, name, value.first, value.second, assignments_only ? "assign" : "prefix");
    if (assignments_only)
      return;
    const Word &command_word = words[i];
    const std::string command = basename_of(command_word.text);
    std::vector<std::string> args;
    for (std::size_t k = i + 1; k < words.size(); ++k)
      args.push_back(words[k].text);

    if (command == "export" || command == "declare" || command == "setenv") {
      for (std::size_t k = i + 1; k < words.size(); ++k) {
        std::string name, value;
        if (is_assignment(words[k].text, name, value))
          env_var(line, name, value, words[k].offset, "export");
        else if (command == "setenv" && k + 1 < words.size()) {
          env_var(line, words[k].text, words[k + 1].text, words[k].offset, "export");
          break;
        }
      }
      return;
    }

    const auto [line_no, column] = line.position(command_word.offset);
    Fact fact = make_fact(fact_kind::Shell, command, line_no, column,
                          static_cast<std::uint32_t>(command_word.text.size()));
    fact.set_attribute("value", whole);
    fact.set_attribute("line", whole);
    std::string joined;
    for (const auto &arg : args)
      joined += (joined.empty() ? "" : " ") + arg;
    fact.set_attribute("args", joined);
    for (const auto &[name, value] : assignments)
      fact.set_attribute("env:" + name, value.first);
    std::size_t rest = i + 1;
    if ((starts_with(command, "python") || command == "uv") && rest + 1 < words.size()) {
      for (std::size_t k = rest; k + 1 < words.size(); ++k)
        if (words[k].text == "-m") {
          fact.set_attribute("module", words[k + 1].text);
          rest = k + 2;
          break;
        }
    }
    facts_.facts.push_back(std::move(fact));

    const std::string *module = facts_.facts.back().attribute("module");
    const bool pip = starts_with(command, "pip") || (module && starts_with(*module, "pip"));
    if (pip && rest < words.size() && words[rest].text == "install")
      pip_install(line, words, rest + 1);
    else if (command == "uv" && rest + 1 < words.size() && words[rest].text == "pip" &&
             words[rest + 1].text == "install")
      pip_install(line, words, rest + 2);
    else if ((command == "conda" || command == "mamba" || command == "micromamba") && rest < words.size() &&
             words[rest].text == "install")
      conda_install(line, words, rest + 1);
  }

  void pip_install(const LogicalLine &line, const std::vector<Word> &words, std::size_t from) {
    static const std::vector<std::string_view> with_value = {"-r",
                                                             "--requirement",
                                                             "-c",
                                                             "--constraint",
                                                             "-e",
                                                             "--editable",
                                                             "-t",
                                                             "--target",
                                                             "--python-version",
                                                             "--platform",
                                                             "--root",
                                                             "--prefix",
                                                             "--src",
                                                             "--upgrade-strategy",
                                                             "--only-binary",
                                                             "--no-binary",
                                                             "--trusted-host",
                                                             "--cache-dir",
                                                             "--log"};
    for (std::size_t k = from; k < words.size(); ++k) {
      std::string option = words[k].text, value;
      const auto equals = option.find('=');
      if (starts_with(option, "-")) {
        bool inline_value = false;
        if (starts_with(option, "--") && equals != std::string::npos) {
          value = option.substr(equals + 1);
          option = option.substr(0, equals);
          inline_value = true;
        }
        const bool index = option == "-i" || option == "--index-url" || option == "--extra-index-url" ||
                           option == "-f" || option == "--find-links";
        bool needs_value = index;
        for (auto candidate : with_value)
          needs_value = needs_value || option == candidate;
        if (needs_value && !inline_value && k + 1 < words.size())
          value = words[++k].text;
        if (index) {
          const auto [line_no, column] = line.position(words[k].offset);
          Fact fact = make_fact(manifest_fact_kind::PackageIndex, value, line_no, column,
                                static_cast<std::uint32_t>(value.size()));
          const std::string long_name = option == "-i"   ? "index-url"
                                        : option == "-f" ? "find-links"
                                                         : option.substr(2);
          fact.set_attribute("option", long_name);
          fact.set_attribute("source", "shell");
          fact.set_attribute("value", std::string(trim(line.text)));
          const std::string tag = cuda_tag_of(value);
          if (!tag.empty())
            fact.set_attribute("cuda_tag", tag);
          facts_.facts.push_back(std::move(fact));
        }
        continue;
      }
      if (words[k].text.find('$') != std::string::npos || words[k].text == ".")
        continue; // a variable or the project itself
      std::string error;
      const auto requirement = parse_requirement(words[k].text, error);
      if (!requirement)
        continue;
      const auto [line_no, column] = line.position(words[k].offset + requirement->name_offset);
      facts_.facts.push_back(dependency_fact(*requirement, words[k].text, "shell", line_no, column));
    }
  }

  void conda_install(const LogicalLine &line, const std::vector<Word> &words, std::size_t from) {
    for (std::size_t k = from; k < words.size(); ++k) {
      const std::string &word = words[k].text;
      if (word == "-c" || word == "--channel") {
        if (k + 1 >= words.size())
          break;
        ++k;
        const auto [line_no, column] = line.position(words[k].offset);
        Fact fact = make_fact(manifest_fact_kind::CondaChannel, words[k].text, line_no, column,
                              static_cast<std::uint32_t>(words[k].text.size()));
        fact.set_attribute("value", std::string(trim(line.text)));
        facts_.facts.push_back(std::move(fact));
        continue;
      }
      if (starts_with(word, "-"))
        continue;
      std::string_view spec = word;
      std::string channel;
      const auto colons = spec.find("::");
      if (colons != std::string_view::npos) {
        channel = std::string(spec.substr(0, colons));
        spec = spec.substr(colons + 2);
      }
      const auto name_end = spec.find_first_of("=<>!~ ");
      const std::string name(spec.substr(0, name_end));
      if (name.empty())
        continue;
      const auto [line_no, column] =
          line.position(words[k].offset + (channel.empty() ? 0 : channel.size() + 2));
      Fact fact = make_fact(fact_kind::Dependency, normalize_package_name(name), line_no, column,
                            static_cast<std::uint32_t>(name.size()));
      fact.set_attribute("value", word);
      fact.set_attribute("source", "conda");
      if (name_end != std::string_view::npos) {
        std::string_view version = spec.substr(name_end);
        while (!version.empty() && std::string_view("=<>!~").find(version.front()) != std::string_view::npos)
          version.remove_prefix(1);
        fact.set_attribute("version", std::string(version));
      }
      if (!channel.empty())
        fact.set_attribute("channel", channel);
      annotate_dependency(fact);
      facts_.facts.push_back(std::move(fact));
    }
  }

  std::string_view origin_;
  FileFacts &facts_;
};

// `#SBATCH --gres=gpu:4`, `#SBATCH -G 2`, `#SBATCH --gpus-per-node=8`.
void job_directive(const LogicalLine &line, std::string_view content, std::size_t content_offset,
                   FileFacts &facts) {
  const auto words = split_shell(content);
  for (std::size_t k = 0; k < words.size(); ++k) {
    std::string option = words[k].text, value;
    const auto equals = option.find('=');
    if (equals != std::string::npos) {
      value = option.substr(equals + 1);
      option = option.substr(0, equals);
    } else if (k + 1 < words.size() && !starts_with(words[k + 1].text, "-")) {
      value = words[k + 1].text;
    }
    if (!starts_with(option, "-"))
      continue;
    const auto [line_no, column] = line.position(content_offset + words[k].offset);
    Fact fact = make_fact(manifest_fact_kind::JobDirective, "sbatch", line_no, column,
                          static_cast<std::uint32_t>(words[k].text.size()));
    fact.set_attribute("option", option);
    fact.set_attribute("value", value);
    fact.set_attribute("line", std::string(trim(line.text)));
    const bool gpu_option = option == "--gpus" || option == "-G" || starts_with(option, "--gpus-per-") ||
                            option == "--gpu-bind" || option == "--gpu-freq";
    const bool gres_gpu = option == "--gres" && value.find("gpu") != std::string::npos;
    const bool constraint_gpu =
        (option == "--constraint" || option == "-C" || option == "--partition" || option == "-p") &&
        (to_lower(value).find("gpu") != std::string::npos ||
         to_lower(value).find("a100") != std::string::npos ||
         to_lower(value).find("v100") != std::string::npos ||
         to_lower(value).find("h100") != std::string::npos);
    if (gpu_option || gres_gpu || constraint_gpu)
      fact.set_attribute("gpus", value.empty() ? "true" : value);
    facts.facts.push_back(std::move(fact));
  }
}

} // namespace

FileFacts extract_shell(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "lexical";
  const std::string name =
      to_lower(path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1));
  const bool makefile = name == "makefile" || ends_with(name, ".mk") || name == "gnumakefile";
  ShellAnalyzer analyzer(makefile ? "makefile" : "shell", facts);
  for (const LogicalLine &line : logical_lines(text)) {
    const std::string_view content = line.text;
    const auto first = content.find_first_not_of(" \t");
    if (first == std::string_view::npos)
      continue;
    if (starts_with(content.substr(first), "#SBATCH")) {
      job_directive(line, content.substr(first + 7), first + 7, facts);
      continue;
    }
    if (content[first] == '#')
      continue;
    // Makefile variable definitions (NVCC := nvcc) are read as shell words:
    // the value is what matters and is not a command.
    if (makefile) {
      const auto assign = content.find_first_of(":?+!=");
      const auto space = content.find_first_of(" \t", first);
      if (assign != std::string_view::npos && content[first] != '\t' && first == 0 &&
          (content.find(":=") != std::string_view::npos || content.find("?=") != std::string_view::npos ||
           content.find("+=") != std::string_view::npos ||
           (content[assign] == '=' && (space == std::string_view::npos || space > assign - 1)))) {
        continue;
      }
      if (first == 0 && content.find(':') != std::string_view::npos)
        continue; // a rule header: "target: prerequisites"
    }
    analyzer.analyze(line, first);
  }
  return facts;
}

namespace {

// Substitutes $NAME and ${NAME} (and ${NAME:-default}) from `values`.
std::string substitute(std::string_view text, const std::map<std::string, std::string> &values) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out.push_back(text[i]);
      continue;
    }
    std::string name, fallback;
    std::size_t end = i + 1;
    if (text[end] == '{') {
      const auto close = text.find('}', end);
      if (close == std::string_view::npos) {
        out.push_back(text[i]);
        continue;
      }
      std::string_view inner = text.substr(end + 1, close - end - 1);
      const auto dash = inner.find(":-");
      name = std::string(inner.substr(0, dash));
      if (dash != std::string_view::npos)
        fallback = std::string(inner.substr(dash + 2));
      end = close + 1;
    } else {
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
        ++end;
      name = std::string(text.substr(i + 1, end - i - 1));
    }
    const auto found = values.find(name);
    out += found != values.end() && !found->second.empty() ? found->second
           : !fallback.empty()                             ? fallback
                                                           : std::string(text.substr(i, end - i));
    i = end - 1;
  }
  return out;
}

constexpr std::string_view kInstructions[] = {
    "from",       "run",    "cmd",  "label",   "maintainer", "expose",  "env",        "add",         "copy",
    "entrypoint", "volume", "user", "workdir", "arg",        "onbuild", "stopsignal", "healthcheck", "shell"};

bool is_known_instruction(const std::string &name) {
  bool known = false;
  for (auto candidate : kInstructions)
    known = known || name == candidate;
  return known;
}

// One Dockerfile instruction: its name as written and in lower case, and
// its arguments from their first byte.
struct Instruction {
  std::string_view written;
  std::string name;
  std::size_t rest_offset = 0;
  std::string_view rest;
};

// The instruction of a logical line; nullopt for a blank or comment line.
std::optional<Instruction> instruction_of(std::string_view content) {
  const auto first = content.find_first_not_of(" \t");
  if (first == std::string_view::npos || content[first] == '#')
    return std::nullopt;
  auto end = content.find_first_of(" \t", first);
  if (end == std::string_view::npos)
    end = content.size();
  Instruction instruction;
  instruction.written = content.substr(first, end - first);
  instruction.name = to_lower(instruction.written);
  instruction.rest_offset = content.find_first_not_of(" \t", end) == std::string_view::npos
                                ? content.size()
                                : content.find_first_not_of(" \t", end);
  instruction.rest = content.substr(instruction.rest_offset);
  return instruction;
}

// The image's repository, tag and platform, and whether it is a CUDA image.
void describe_image(Fact &fact, const std::string &image, const std::string &platform,
                    std::string_view content) {
  // registry/repo:tag@digest; a ':' after the last '/' starts the tag.
  const std::string without_digest = image.substr(0, image.find('@'));
  const auto slash = without_digest.rfind('/');
  const auto colon = without_digest.find(':', slash == std::string::npos ? 0 : slash);
  fact.set_attribute("repository", to_lower(without_digest.substr(0, colon)));
  fact.set_attribute("tag", colon == std::string::npos ? "latest" : without_digest.substr(colon + 1));
  if (!platform.empty())
    fact.set_attribute("platform", platform);
  fact.set_attribute("value", std::string(trim(content)));
  const std::string tag = to_lower(colon == std::string::npos ? "" : without_digest.substr(colon + 1));
  // nvidia/cuda and NGC images (nvcr.io/nvidia/pytorch) are CUDA images
  // whatever their tag; others (pytorch/pytorch) say so in the tag.
  const std::string repository = *fact.attribute("repository");
  if (tag.find("cuda") != std::string::npos || tag.find("cudnn") != std::string::npos ||
      repository == "nvidia/cuda" || ends_with(repository, "/nvidia/cuda") ||
      starts_with(repository, "nvcr.io/nvidia/"))
    fact.set_attribute("cuda_tag", "cuda");
}

// FROM: a container-image fact for the base image, unless it is scratch or
// an earlier stage; FROM ... AS NAME names a stage.
void read_from(const LogicalLine &line, const Instruction &instruction, const std::string &path,
               const std::map<std::string, std::string> &args, std::vector<std::string> &stages,
               FileFacts &facts) {
  const auto words = split_shell(instruction.rest);
  std::size_t k = 0;
  std::string platform;
  while (k < words.size() && starts_with(words[k].text, "--")) {
    if (starts_with(words[k].text, "--platform="))
      platform = words[k].text.substr(11);
    ++k;
  }
  if (k >= words.size()) {
    add_diagnostic(facts, DiagnosticLevel::Warning, path, line.first_line(), "parse-error",
                   "FROM without an image");
    return;
  }
  const std::string image = substitute(words[k].text, args);
  bool previous_stage = false;
  for (const auto &stage : stages)
    previous_stage = previous_stage || stage == image;
  if (k + 2 < words.size() && to_lower(words[k + 1].text) == "as")
    stages.push_back(words[k + 2].text);
  if (previous_stage || image == "scratch")
    return;
  const auto [line_no, column] = line.position(instruction.rest_offset + words[k].offset);
  Fact fact = make_fact(manifest_fact_kind::ContainerImage, image, line_no, column,
                        static_cast<std::uint32_t>(words[k].text.size()));
  describe_image(fact, image, platform, line.text);
  facts.facts.push_back(std::move(fact));
}

// ENV and ARG: variables for the analyzer, and values later lines substitute.
void read_env_or_arg(const LogicalLine &line, const Instruction &instruction, ShellAnalyzer &analyzer,
                     std::map<std::string, std::string> &args) {
  const auto words = split_shell(instruction.rest);
  std::string name, value;
  if (instruction.name == "env" && words.size() >= 2 && !is_assignment(words[0].text, name, value)) {
    // Legacy form: ENV NAME value with spaces
    std::string joined;
    for (std::size_t k = 1; k < words.size(); ++k)
      joined += (k > 1 ? " " : "") + words[k].text;
    analyzer.env_var(line, words[0].text, joined, instruction.rest_offset + words[0].offset, "env");
    args[words[0].text] = joined;
    return;
  }
  for (const auto &word : words) {
    if (is_assignment(word.text, name, value)) {
      value = substitute(value, args);
    } else {
      name = word.text;
      value.clear();
      if (args.count(name))
        continue; // re-declaring a global ARG inside a stage
    }
    analyzer.env_var(line, name, value, instruction.rest_offset + word.offset, instruction.name);
    args[name] = value;
  }
}

// RUN, CMD and ENTRYPOINT: the command, in shell or exec form, after any
// --mount=... --network=... options.
void read_command(const LogicalLine &line, const Instruction &instruction, ShellAnalyzer &analyzer) {
  const std::string_view content = line.text;
  std::size_t command_offset = instruction.rest_offset;
  while (command_offset < content.size() && starts_with(content.substr(command_offset), "--")) {
    const auto space = content.find_first_of(" \t", command_offset);
    command_offset =
        space == std::string_view::npos ? content.size() : content.find_first_not_of(" \t", space);
    if (command_offset == std::string_view::npos)
      command_offset = content.size();
  }
  if (command_offset < content.size() && content[command_offset] == '[') {
    // Exec form: a JSON array of strings; read it as words.
    LogicalLine exec = line;
    for (std::size_t k = command_offset; k < exec.text.size(); ++k) {
      const char c = exec.text[k];
      exec.text[k] = (c == '[' || c == ']' || c == ',') ? ' ' : c;
    }
    analyzer.analyze(exec, command_offset);
  } else {
    analyzer.analyze(line, command_offset);
  }
}

} // namespace

FileFacts extract_dockerfile(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "lexical";
  ShellAnalyzer analyzer("dockerfile", facts);
  std::map<std::string, std::string> args; // ARG and ENV values so far
  std::vector<std::string> stages;
  for (const LogicalLine &line : logical_lines(text, 1, true)) {
    const std::optional<Instruction> instruction = instruction_of(line.text);
    if (!instruction)
      continue;
    if (!is_known_instruction(instruction->name)) {
      add_diagnostic(facts, DiagnosticLevel::Warning, path, line.first_line(), "unknown-instruction",
                     "unknown Dockerfile instruction '" + std::string(instruction->written) + "'");
      continue;
    }
    if (instruction->name == "from")
      read_from(line, *instruction, path, args, stages, facts);
    else if (instruction->name == "env" || instruction->name == "arg")
      read_env_or_arg(line, *instruction, analyzer, args);
    else if (instruction->name == "run" || instruction->name == "cmd" || instruction->name == "entrypoint")
      read_command(line, *instruction, analyzer);
  }
  return facts;
}

} // namespace mpsaudit
