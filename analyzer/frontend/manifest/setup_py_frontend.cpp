// setup.py, parsed with tree-sitter and never run: install_requires,
// extras_require and setup_requires (literal lists, or names built up by
// assignment, +=, append and extend), CUDAExtension/CppExtension calls with
// their sources, cmdclass with BuildExtension, and the conditions that guard
// them (CUDA_HOME, torch.cuda.is_available(), FORCE_CUDA, sys.platform).
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tree_sitter/api.h>
#include <vector>

#include "core/text.h"
#include "frontend/manifest/manifest_frontend.h"
#include "frontend/manifest/requirement.h"
#if MPSAUDIT_HAVE_PYTHON_FRONTEND
#include "frontend/python/python_frontend.h"
#endif

extern "C" const TSLanguage *tree_sitter_python(void);

namespace mpsaudit {
using namespace manifest;

namespace {

struct TreeDeleter {
  void operator()(TSTree *tree) const { ts_tree_delete(tree); }
};
struct ParserDeleter {
  void operator()(TSParser *parser) const { ts_parser_delete(parser); }
};

constexpr int kMaxDepth = 400; // deeper nesting is not a setup.py; stop descending

class SetupPyReader {
public:
  SetupPyReader(std::string_view text, const std::string &path, FileFacts &facts)
      : text_(text), lines_(text), path_(path), facts_(facts) {}

  void read(TSNode root) {
    report_syntax_error(root);
    find_probe_functions(root);
    walk(root, Guard::None, 0);
    for (const TSNode &call : setup_calls_)
      read_setup_call(call);
    record_build_sources();
    bool has_cpu_extension = false;
    for (const Fact &fact : facts_.facts)
      has_cpu_extension =
          has_cpu_extension || (fact.kind == manifest_fact_kind::CxxExtension && fact.name == "CppExtension");
    for (Fact &fact : facts_.facts)
      if (fact.kind == manifest_fact_kind::CxxExtension && fact.name == "CUDAExtension")
        fact.set_attribute("cpu_fallback", has_cpu_extension ? "true" : "false");
  }

private:
  std::string text_of(TSNode node) const {
    const auto begin = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (end > text_.size() || begin > end)
      return {};
    return std::string(text_.substr(begin, end - begin));
  }
  std::string_view type_of(TSNode node) const { return ts_node_type(node); }
  TSNode field(TSNode node, const char *name) const {
    return ts_node_child_by_field_name(node, name, static_cast<std::uint32_t>(std::strlen(name)));
  }
  std::uint32_t line_of(TSNode node) const { return ts_node_start_point(node).row + 1; }
  std::uint32_t column_of(TSNode node) const { return ts_node_start_point(node).column + 1; }

  void report_syntax_error(TSNode root) {
    if (!ts_node_has_error(root))
      return;
    // The first ERROR or MISSING node, depth first.
    std::vector<TSNode> stack{root};
    while (!stack.empty()) {
      const TSNode node = stack.back();
      stack.pop_back();
      if (ts_node_is_missing(node) || type_of(node) == "ERROR") {
        add_diagnostic(facts_, DiagnosticLevel::Warning, path_, line_of(node), "parse-error",
                       "setup.py has a syntax error here; the rest of the file is still read");
        facts_.mode = "ast-partial";
        return;
      }
      if (!ts_node_has_error(node))
        continue;
      const std::uint32_t count = ts_node_child_count(node);
      for (std::uint32_t i = count; i-- > 0;)
        stack.push_back(ts_node_child(node, i));
    }
  }

  // The contents of a plain string literal; nullopt for f-strings and
  // anything that is not a string.
  std::optional<std::string> string_value(TSNode node) const {
    if (type_of(node) != "string")
      return std::nullopt;
    const std::uint32_t count = ts_node_named_child_count(node);
    std::string value;
    for (std::uint32_t i = 0; i < count; ++i) {
      const TSNode child = ts_node_named_child(node, i);
      if (type_of(child) == "interpolation")
        return std::nullopt;
      if (type_of(child) == "string_content")
        value += text_of(child);
    }
    return value;
  }

  std::string callee_name(TSNode call) const {
    const std::string callee = text_of(field(call, "function"));
    const auto dot = callee.rfind('.');
    return dot == std::string::npos ? callee : callee.substr(dot + 1);
  }

  // What an `if` condition says: the guard of its body and of its else.
  std::pair<Guard, Guard> condition_guard(TSNode condition) const {
    const std::string text = to_lower(text_of(condition));
    const bool negated =
        starts_with(text, "not ") ||
        (text.find(" is none") != std::string::npos && text.find(" is not none") == std::string::npos) ||
        text.find("== none") != std::string::npos;
    if (text.find("cuda") != std::string::npos || text.find("nvcc") != std::string::npos)
      return negated ? std::pair{Guard::None, Guard::CudaCheck} : std::pair{Guard::CudaCheck, Guard::None};
    if (text.find("darwin") != std::string::npos || text.find("macos") != std::string::npos) {
      const bool equals =
          text.find("==") != std::string::npos || text.find("startswith") != std::string::npos;
      return equals != negated ? std::pair{Guard::None, Guard::PlatformCheck}
                               : std::pair{Guard::PlatformCheck, Guard::None};
    }
    if (text.find("linux") != std::string::npos || text.find("win32") != std::string::npos) {
      const bool equals = text.find("!=") == std::string::npos;
      return equals != negated ? std::pair{Guard::PlatformCheck, Guard::None}
                               : std::pair{Guard::None, Guard::PlatformCheck};
    }
    return {Guard::None, Guard::None};
  }

  static Guard combine(Guard outer, Guard inner) { return inner != Guard::None ? inner : outer; }

  void walk(TSNode node, Guard guard, int depth) {
    if (depth > kMaxDepth)
      return;
    const std::string_view type = type_of(node);
    if (type == "import_statement" || type == "import_from_statement" || type == "future_import_statement")
      return; // importing CppExtension is not building one
    if (type == "keyword_argument") {
      walk(field(node, "value"), guard, depth + 1); // the keyword is not a variable
      return;
    }
    if (type == "attribute") {
      // `cpp_extension.CppExtension`: the class read through its module.
      if (text_of(field(node, "attribute")) == "CppExtension" && guard != Guard::CudaCheck)
        cpu_extension_outside_cuda_ = true;
      walk(field(node, "object"), guard, depth + 1); // os.path.join reads os, not `join`
      return;
    }
    if (type == "identifier") {
      note_read(text_of(node), guard);
      return;
    }
    if (type == "string") {
      note_source_literal(node, guard);
      note_openmp_flag(node, guard);
      return;
    }
    if (type == "function_definition" || type == "lambda") {
      ++function_depth_; // a body runs when called, not when setup.py runs
      walk_children(node, guard, depth);
      --function_depth_;
      return;
    }
    if (type == "binary_operator")
      note_cuda_home_use(node, guard);
    if (type == "if_statement" || type == "elif_clause") {
      const auto [then_guard, else_guard] = condition_guard(field(node, "condition"));
      walk_children(field(node, "condition"), guard, depth);
      const TSNode consequence = field(node, "consequence");
      // Under another condition (an opt-in flag, a version), a stop is not
      // what every install meets.
      const bool about_cuda = then_guard == Guard::CudaCheck || else_guard == Guard::CudaCheck;
      const CountedBranch other_condition(other_conditions_, !about_cuda);
      if (!ts_node_is_null(consequence)) {
        // `if not torch.cuda.is_available():` / `if CUDA_HOME is None:`
        const CountedBranch scope(without_cuda_, else_guard == Guard::CudaCheck);
        walk(consequence, combine(guard, then_guard), depth + 1);
      }
      // Alternatives (elif/else clauses) follow the body as siblings; after a
      // test that CUDA is there, they run where it is not.
      const CountedBranch scope(without_cuda_, then_guard == Guard::CudaCheck);
      const std::uint32_t count = ts_node_named_child_count(node);
      for (std::uint32_t i = 0; i < count; ++i) {
        const TSNode child = ts_node_named_child(node, i);
        const std::string_view child_type = type_of(child);
        if (child_type == "elif_clause" || child_type == "else_clause")
          walk(child, combine(guard, else_guard), depth + 1);
      }
      return;
    }
    if (type == "raise_statement")
      note_stop_without_cuda(node, guard);
    if (type == "conditional_expression" && ts_node_named_child_count(node) == 3) {
      const auto [then_guard, else_guard] = condition_guard(ts_node_named_child(node, 1));
      walk(ts_node_named_child(node, 0), combine(guard, then_guard), depth + 1);
      walk(ts_node_named_child(node, 1), guard, depth + 1);
      walk(ts_node_named_child(node, 2), combine(guard, else_guard), depth + 1);
      return;
    }
    if (type == "call") {
      visit_call(node, guard);
      owners_.push_back(owner_of_arguments(node));
      walk_children(node, guard, depth);
      owners_.pop_back();
      return;
    }
    if (type == "assignment" || type == "augmented_assignment") {
      const TSNode left = field(node, "left");
      const TSNode right = field(node, "right");
      if (!ts_node_is_null(left) && !ts_node_is_null(right) && type_of(left) == "identifier") {
        const std::string target = text_of(left);
        contributions_[target].push_back({right, guard});
        // extension = CUDAExtension: `extension(...)` builds one, of each
        // class the name may hold (`extension = CppExtension`, then
        // `extension = CUDAExtension` under a CUDA test).
        const std::string value = callee_last(text_of(right));
        if (value == "CUDAExtension" || value == "CppExtension")
          extension_classes_[target].insert(value);
        else if (const auto aliased = extension_classes_.find(value); aliased != extension_classes_.end())
          extension_classes_[target].insert(aliased->second.begin(), aliased->second.end());
        owners_.push_back({Owner::Kind::Variable, target});
        walk(right, guard, depth + 1);
        owners_.pop_back();
        return;
      }
    }
    walk_children(node, guard, depth);
  }

  // ---- which C/C++/CUDA sources are built only when CUDA is there ----------
  //
  // A source literal ("op_cuda.cu", "*.cu") is optional when every way it
  // reaches an extension passes a CUDA test: it sits under one, or in a
  // variable whose every use does (`sources += cuda_sources` inside
  // `if torch.cuda.is_available() ...`), and a CppExtension is built
  // otherwise. build-source facts say so for the cpu-fallback pass.

  struct Owner {
    enum class Kind : std::uint8_t { None, Variable, Extension };
    Kind kind = Kind::None;
    std::string name; // the variable, or the extension's module ("pkg._C") when it is a literal
  };
  struct SourceLiteral {
    std::string value;
    Guard guard = Guard::None;
    Owner owner;
    std::uint32_t line = 0, column = 0, length = 0;
  };
  struct Read {
    Guard guard = Guard::None;
    Owner owner;
  };
  enum class Use : std::uint8_t { Neutral, Conditional, Unconditional };

  static std::string callee_last(const std::string &callee) {
    const auto dot = callee.rfind('.');
    return dot == std::string::npos ? callee : callee.substr(dot + 1);
  }

  Owner current_owner() const { return owners_.empty() ? Owner{} : owners_.back(); }

  Owner owner_of_arguments(TSNode call) const {
    const std::string name = callee_name(call);
    const TSNode function = field(call, "function");
    if ((name == "append" || name == "extend" || name == "insert") && type_of(function) == "attribute") {
      const TSNode object = field(function, "object");
      if (type_of(object) == "identifier")
        return {Owner::Kind::Variable, text_of(object)};
    }
    if (name == "CUDAExtension" || name == "CppExtension" || extension_classes_.count(name))
      return {Owner::Kind::Extension, extension_module(field(call, "arguments"))};
    return current_owner();
  }

  // An extension's module: its first argument or `name=`, when a literal.
  std::string extension_module(TSNode arguments) const {
    if (ts_node_is_null(arguments))
      return {};
    const std::uint32_t count = ts_node_named_child_count(arguments);
    for (std::uint32_t i = 0; i < count; ++i) {
      const TSNode argument = ts_node_named_child(arguments, i);
      if (type_of(argument) == "keyword_argument") {
        if (text_of(field(argument, "name")) == "name")
          return string_value(field(argument, "value")).value_or("");
      } else if (i == 0) {
        return string_value(argument).value_or("");
      }
    }
    return {};
  }

  void note_read(const std::string &name, Guard guard) {
    if (name == "CppExtension" && guard != Guard::CudaCheck)
      cpu_extension_outside_cuda_ = true;
    reads_[name].push_back({guard, current_owner()});
  }

  static bool is_source_path(const std::string &value) {
    const std::string lower = to_lower(value);
    for (const char *suffix : {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".mm"})
      if (ends_with(lower, suffix))
        return true;
    return false;
  }

  void note_source_literal(TSNode node, Guard guard) {
    const auto value = string_value(node);
    if (!value || !is_source_path(*value))
      return;
    source_literals_.push_back(
        {*value, guard, current_owner(), line_of(node), column_of(node),
         static_cast<std::uint32_t>(ts_node_end_byte(node) - ts_node_start_byte(node))});
  }

  Use use_of(const Owner &owner, Guard guard, std::set<std::string> &visiting) const {
    if (guard == Guard::CudaCheck)
      return Use::Conditional;
    if (owner.kind == Owner::Kind::Extension)
      return Use::Unconditional;
    if (owner.kind == Owner::Kind::None || !visiting.insert(owner.name).second)
      return Use::Neutral;
    Use result = Use::Neutral;
    if (const auto found = reads_.find(owner.name); found != reads_.end())
      for (const Read &read : found->second) {
        if (read.owner.kind == Owner::Kind::Variable && read.owner.name == owner.name)
          continue; // sources = [f(s) for s in sources]
        const Use use = use_of(read.owner, read.guard, visiting);
        if (use == Use::Unconditional)
          return Use::Unconditional;
        if (use == Use::Conditional)
          result = Use::Conditional;
      }
    visiting.erase(owner.name);
    return result;
  }

  void record_build_sources() {
    for (const SourceLiteral &literal : source_literals_) {
      std::set<std::string> visiting;
      const bool optional =
          cpu_extension_outside_cuda_ && use_of(literal.owner, literal.guard, visiting) == Use::Conditional;
      Fact fact = make_fact(manifest_fact_kind::BuildSource, literal.value, literal.line, literal.column,
                            literal.length);
      fact.set_attribute("build", "setup.py");
      fact.set_attribute("optional", optional ? "true" : "false");
      fact.set_attribute("glob", literal.value.find_first_of("*?[") != std::string::npos ? "true" : "false");
      if (literal.owner.kind == Owner::Kind::Extension && !literal.owner.name.empty())
        fact.set_attribute("extension", literal.owner.name);
      facts_.facts.push_back(std::move(fact));
    }
  }

  // ---- what setup.py runs on import that needs the CUDA toolkit -----------
  //
  // `nvcc -V` through subprocess, directly or in a function of this file, and
  // CUDA_HOME joined into a path: run unguarded at module level they raise on
  // a Mac (CUDA_HOME is None; there is no nvcc) before setup() is reached.

  static bool runs_a_command(const std::string &text) {
    for (const char *runner : {"check_output", "subprocess.run", "Popen", "getoutput", "getstatusoutput",
                               "check_call", "subprocess.call", "os.popen", "os.system"})
      if (text.find(runner) != std::string::npos)
        return true;
    return false;
  }

  // Top-level functions whose body runs nvcc, and those that call them;
  // name -> the line that runs nvcc.
  void find_probe_functions(TSNode root) {
    std::map<std::string, TSNode> functions;
    const std::uint32_t count = ts_node_named_child_count(root);
    for (std::uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_named_child(root, i);
      if (type_of(child) == "decorated_definition")
        child = field(child, "definition");
      if (type_of(child) == "function_definition")
        functions.emplace(text_of(field(child, "name")), child);
    }
    for (const auto &[name, definition] : functions) {
      const std::string body = text_of(field(definition, "body"));
      const auto nvcc = body.find("nvcc");
      if (nvcc == std::string::npos || !runs_a_command(body))
        continue;
      const std::uint32_t body_line = line_of(field(definition, "body"));
      probe_functions_[name] =
          body_line + static_cast<std::uint32_t>(
                          std::count(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(nvcc), '\n'));
    }
    for (bool changed = true; changed;) { // callers of probes probe too
      changed = false;
      for (const auto &[name, definition] : functions) {
        if (probe_functions_.count(name))
          continue;
        const std::string body = text_of(field(definition, "body"));
        for (const auto &[probe, line] : probe_functions_)
          if (body.find(probe + "(") != std::string::npos) {
            probe_functions_[name] = line;
            changed = true;
            break;
          }
      }
    }
  }

  // Counts, while it lives, one more branch of a kind being walked.
  class CountedBranch {
  public:
    CountedBranch(int &depth, bool entered) : depth_(depth), entered_(entered) { depth_ += entered ? 1 : 0; }
    ~CountedBranch() { depth_ -= entered_ ? 1 : 0; }
    CountedBranch(const CountedBranch &) = delete;
    CountedBranch &operator=(const CountedBranch &) = delete;

  private:
    int &depth_;
    bool entered_;
  };

  // A `raise` or `sys.exit()` that setup.py runs when it is run (not inside a
  // function) in a branch where CUDA is missing, reached through CUDA tests
  // alone: installing stops on a Mac.
  void note_stop_without_cuda(TSNode node, Guard guard) {
    if (function_depth_ > 0 || without_cuda_ == 0 || other_conditions_ > 0 || guard == Guard::PlatformCheck)
      return;
    record_cuda_probe(node, guard, "stops-without-cuda",
                      "setup.py stops where CUDA is missing (`" +
                          std::string(trim(lines_.line_text(line_of(node)))).substr(0, 80) +
                          "`): `pip install` fails on a Mac before setup() runs");
  }

  void record_cuda_probe(TSNode node, Guard guard, std::string form, std::string detail) {
    Fact fact =
        make_fact(manifest_fact_kind::CudaProbe, text_of(node).substr(0, 80), line_of(node), column_of(node),
                  static_cast<std::uint32_t>(ts_node_end_byte(node) - ts_node_start_byte(node)));
    fact.guard = guard;
    fact.set_attribute("form", std::move(form));
    fact.set_attribute("detail", std::move(detail));
    fact.set_attribute("value", std::string(trim(lines_.line_text(line_of(node)))));
    facts_.facts.push_back(std::move(fact));
  }

  void note_module_level_probe(TSNode call, const std::string &name, Guard guard) {
    if (function_depth_ > 0)
      return;
    const std::string callee = text_of(field(call, "function"));
    if (const auto probe = probe_functions_.find(callee); probe != probe_functions_.end()) {
      record_cuda_probe(
          call, guard, "nvcc",
          "`" + callee + "()` runs nvcc (line " + std::to_string(probe->second) +
              ") whenever setup.py runs; with no CUDA toolkit it raises before setup() is reached");
      return;
    }
    const std::string text = text_of(call);
    if (text.find("nvcc") != std::string::npos && runs_a_command(callee))
      record_cuda_probe(call, guard, "nvcc",
                        "`" + name +
                            "` runs nvcc whenever setup.py runs; with no CUDA toolkit it raises before "
                            "setup() is reached");
    else if (name == "join" && callee.find("path") != std::string::npos && mentions_cuda_home(call))
      record_cuda_probe(call, guard, "cuda-home",
                        "CUDA_HOME is joined into a path whenever setup.py runs; it is None without a CUDA "
                        "toolkit, so this raises TypeError before setup() is reached");
  }

  bool mentions_cuda_home(TSNode call) const {
    const TSNode arguments = field(call, "arguments");
    if (ts_node_is_null(arguments) || ts_node_named_child_count(arguments) == 0)
      return false;
    return text_of(ts_node_named_child(arguments, 0)) == "CUDA_HOME";
  }

  // CUDA_HOME + "/bin/nvcc" at module level.
  void note_cuda_home_use(TSNode node, Guard guard) {
    if (function_depth_ > 0 || text_of(field(node, "left")) != "CUDA_HOME")
      return;
    record_cuda_probe(
        node, guard, "cuda-home",
        "CUDA_HOME is concatenated into a path whenever setup.py runs; it is None without a CUDA "
        "toolkit, so this raises TypeError before setup() is reached");
  }

  // -fopenmp / -lgomp: Apple clang rejects -fopenmp ("unsupported option")
  // and macOS has no libgomp.
  void note_openmp_flag(TSNode node, Guard guard) {
    const auto value = string_value(node);
    if (!value || (value->find("-fopenmp") == std::string::npos && value->find("gomp") == std::string::npos))
      return;
    Fact fact = make_fact(manifest_fact_kind::Build, "compile-flag", line_of(node), column_of(node),
                          static_cast<std::uint32_t>(ts_node_end_byte(node) - ts_node_start_byte(node)));
    fact.guard = guard;
    fact.set_attribute("args", *value);
    fact.set_attribute("value", *value);
    facts_.facts.push_back(std::move(fact));
  }

  void walk_children(TSNode node, Guard guard, int depth) {
    if (ts_node_is_null(node))
      return;
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      const TSNode child = ts_node_named_child(node, i);
      const std::string_view child_type = type_of(child);
      if (child_type == "elif_clause" || child_type == "else_clause")
        continue; // handled by their if_statement
      walk(child, guard, depth + 1);
    }
  }

  void visit_call(TSNode call, Guard guard) {
    const std::string name = callee_name(call);
    const TSNode function = field(call, "function");
    const TSNode arguments = field(call, "arguments");
    if (ts_node_is_null(arguments))
      return;
    if (name == "setup") {
      setup_calls_.push_back(call);
      return;
    }
    note_module_level_probe(call, name, guard);
    if (name == "exit" && (text_of(function) == "sys.exit" || text_of(function) == "exit"))
      note_stop_without_cuda(call, guard);
    // reqs.append("x") / reqs.extend([...]) contribute to a named list.
    if ((name == "append" || name == "extend" || name == "insert") && type_of(function) == "attribute") {
      const TSNode object = field(function, "object");
      if (type_of(object) == "identifier" && ts_node_named_child_count(arguments) > 0)
        contributions_[text_of(object)].push_back(
            {ts_node_named_child(arguments, ts_node_named_child_count(arguments) - 1), guard});
      return;
    }
    std::set<std::string> classes;
    if (name == "CUDAExtension" || name == "CppExtension")
      classes.insert(name);
    else if (const auto aliased = extension_classes_.find(name); aliased != extension_classes_.end())
      classes = aliased->second; // `extension(...)`: one extension of each class it may hold
    for (const std::string &extension_class : classes)
      record_extension(call, function, arguments, extension_class, guard);
  }

  void record_extension(TSNode call, TSNode function, TSNode arguments, const std::string &name,
                        Guard guard) {
    Fact fact = make_fact(manifest_fact_kind::CxxExtension, name, line_of(call), column_of(call),
                          static_cast<std::uint32_t>(text_of(function).size()));
    fact.guard = guard;
    std::vector<std::string> sources, cuda_sources;
    std::string ext_name, shown_name = "its extension";
    const std::uint32_t count = ts_node_named_child_count(arguments);
    std::uint32_t positional = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      const TSNode argument = ts_node_named_child(arguments, i);
      if (type_of(argument) == "comment") // `CUDAExtension(  # note` then the name: no argument
        continue;
      std::string keyword;
      TSNode value = argument;
      if (type_of(argument) == "keyword_argument") {
        keyword = text_of(field(argument, "name"));
        value = field(argument, "value");
      } else {
        ++positional;
      }
      Argument fact_argument;
      fact_argument.keyword = keyword;
      fact_argument.text = text_of(value);
      if (const auto literal = string_value(value)) {
        fact_argument.value = *literal;
        fact_argument.is_string = true;
      }
      if (keyword == "name" || (keyword.empty() && positional == 1)) {
        if (fact_argument.is_string)
          ext_name = fact_argument.value;
        shown_name = fact_argument.text; // an f-string or a variable: as written
      }
      if (keyword == "sources" || (keyword.empty() && positional == 2))
        collect_strings(value, sources, 0);
      fact.arguments.push_back(std::move(fact_argument));
    }
    for (const auto &source : sources) {
      const std::string lower = to_lower(source);
      if (ends_with(lower, ".cu") || ends_with(lower, ".cuh"))
        cuda_sources.push_back(source);
    }
    const auto join = [](const std::vector<std::string> &items) {
      std::string out;
      for (const auto &item : items)
        out += (out.empty() ? "" : ",") + item;
      return out;
    };
    if (!ext_name.empty())
      fact.set_attribute("ext_name", ext_name);
    // For messages: the module's name, or its expression when it is built at
    // run time (`f"pkg._{arch}_C"`); ext_name stays a name imports can match.
    fact.set_attribute("extension", ext_name.empty() ? shown_name : ext_name);
    fact.set_attribute("sources", join(sources));
    if (!cuda_sources.empty())
      fact.set_attribute("cuda_sources", join(cuda_sources));
    fact.set_attribute("value", std::string(trim(lines_.line_text(line_of(call)))));
    facts_.facts.push_back(std::move(fact));
  }

  void collect_strings(TSNode node, std::vector<std::string> &out, int depth) const {
    if (depth > kMaxDepth)
      return;
    if (const auto literal = string_value(node)) {
      out.push_back(*literal);
      return;
    }
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i)
      collect_strings(ts_node_named_child(node, i), out, depth + 1);
  }

  // Dependency facts for every requirement string in `node` (a list, a
  // string, or a name whose contributions are looked up).
  void read_requirements(TSNode node, Guard guard, std::string_view source, const std::string &extra,
                         int depth) {
    if (depth > 8 || ts_node_is_null(node))
      return;
    const std::string_view type = type_of(node);
    if (type == "identifier") {
      const auto found = contributions_.find(text_of(node));
      if (found == contributions_.end())
        return;
      for (const auto &[value, value_guard] : found->second)
        read_requirements(value, combine(guard, value_guard), source, extra, depth + 1);
      return;
    }
    if (const auto literal = string_value(node)) {
      std::string error;
      const auto requirement = parse_requirement(*literal, error);
      if (!requirement) {
        add_diagnostic(facts_, DiagnosticLevel::Warning, path_, line_of(node), "invalid-requirement",
                       "cannot read requirement '" + *literal + "': " + error);
        return;
      }
      // One past the opening quote (and any r/u prefix).
      const std::string literal_text = text_of(node);
      const auto quote = literal_text.find_first_of("'\"");
      Fact fact =
          dependency_fact(*requirement, *literal, source, line_of(node),
                          column_of(node) + static_cast<std::uint32_t>(quote + 1 + requirement->name_offset));
      if (fact.guard == Guard::None)
        fact.guard = guard;
      if (!extra.empty()) {
        fact.set_attribute("extra", extra);
        if (fact.guard == Guard::None)
          fact.guard = Guard::OptionalExtra;
      }
      facts_.facts.push_back(std::move(fact));
      return;
    }
    if (type == "list" || type == "tuple" || type == "parenthesized_expression" ||
        type == "binary_operator" || type == "list_comprehension" || type == "set") {
      const std::uint32_t count = ts_node_named_child_count(node);
      for (std::uint32_t i = 0; i < count; ++i)
        read_requirements(ts_node_named_child(node, i), guard, source, extra, depth + 1);
      return;
    }
    if (type == "conditional_expression" && ts_node_named_child_count(node) == 3) {
      const auto [then_guard, else_guard] = condition_guard(ts_node_named_child(node, 1));
      read_requirements(ts_node_named_child(node, 0), combine(guard, then_guard), source, extra, depth + 1);
      read_requirements(ts_node_named_child(node, 2), combine(guard, else_guard), source, extra, depth + 1);
    }
  }

  // The key/value pairs of a dict literal, through names assigned to it
  // (`extras = {...}; setup(extras_require=extras)`).
  template <typename OnPair> void for_each_dict_pair(TSNode node, int depth, const OnPair &on_pair) {
    if (depth > 8 || ts_node_is_null(node))
      return;
    if (type_of(node) == "identifier") {
      const auto found = contributions_.find(text_of(node));
      if (found != contributions_.end())
        for (const auto &[value, value_guard] : found->second)
          for_each_dict_pair(value, depth + 1, on_pair);
      return;
    }
    if (type_of(node) != "dictionary")
      return;
    const std::uint32_t count = ts_node_named_child_count(node);
    for (std::uint32_t i = 0; i < count; ++i) {
      const TSNode pair = ts_node_named_child(node, i);
      if (type_of(pair) == "pair")
        on_pair(pair);
    }
  }

  void read_extras(TSNode node) {
    for_each_dict_pair(node, 0, [&](TSNode pair) {
      const auto key = string_value(field(pair, "key"));
      read_requirements(field(pair, "value"), Guard::None, "setup-py", key.value_or("?"), 0);
    });
  }

  // entry_points={"console_scripts": ["cmd = pkg.mod:func"]}: the project's
  // commands, for the assessment's entry points.
  void read_entry_points(TSNode node) {
    for_each_dict_pair(node, 0, [&](TSNode pair) {
      const auto group = string_value(field(pair, "key"));
      if (!group || (*group != "console_scripts" && *group != "gui_scripts"))
        return;
      std::vector<std::string> specs;
      collect_strings(field(pair, "value"), specs, 0);
      for (const std::string &spec : specs) {
        const auto equals = spec.find('=');
        if (equals == std::string::npos)
          continue;
        const std::string reference(trim(std::string_view(spec).substr(equals + 1)));
        Fact fact =
            make_fact(manifest_fact_kind::EntryPoint, reference.substr(0, reference.find_first_of(" [")),
                      line_of(pair), column_of(pair), 1);
        fact.set_attribute("script", std::string(trim(std::string_view(spec).substr(0, equals))));
        facts_.facts.push_back(std::move(fact));
      }
    });
  }

  void read_setup_call(TSNode call) {
    const TSNode arguments = field(call, "arguments");
    const std::uint32_t count = ts_node_named_child_count(arguments);
    for (std::uint32_t i = 0; i < count; ++i) {
      const TSNode argument = ts_node_named_child(arguments, i);
      if (type_of(argument) != "keyword_argument")
        continue;
      const std::string keyword = text_of(field(argument, "name"));
      const TSNode value = field(argument, "value");
      if (keyword == "install_requires")
        read_requirements(value, Guard::None, "setup-py", {}, 0);
      else if (keyword == "setup_requires")
        read_requirements(value, Guard::None, "build-system", {}, 0);
      else if (keyword == "extras_require")
        read_extras(value);
      else if (keyword == "entry_points")
        read_entry_points(value);
      else if (keyword == "cmdclass" && text_of(value).find("BuildExtension") != std::string::npos) {
        Fact fact = make_fact(manifest_fact_kind::Build, "cmdclass", line_of(argument), column_of(argument),
                              static_cast<std::uint32_t>(keyword.size()));
        fact.set_attribute("value", text_of(value));
        fact.set_attribute("build_ext", "BuildExtension");
        facts_.facts.push_back(std::move(fact));
      }
    }
  }

  std::string_view text_;
  LineIndex lines_;
  const std::string &path_;
  FileFacts &facts_;
  std::vector<TSNode> setup_calls_;
  std::map<std::string, std::vector<std::pair<TSNode, Guard>>> contributions_;
  std::vector<Owner> owners_; // innermost last: what the expression being walked feeds
  std::vector<SourceLiteral> source_literals_;
  std::map<std::string, std::vector<Read>> reads_;
  bool cpu_extension_outside_cuda_ = false;
  // A variable bound to extension classes -> those classes.
  std::map<std::string, std::set<std::string>> extension_classes_;
  std::map<std::string, std::uint32_t> probe_functions_; // name -> the line that runs nvcc
  int function_depth_ = 0;
  int without_cuda_ = 0;     // branches walked that run only where CUDA is missing
  int other_conditions_ = 0; // branches walked under a test that is not about CUDA
};

} // namespace

FileFacts extract_setup_py(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "ast";
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  if (!ts_parser_set_language(parser.get(), tree_sitter_python())) {
    add_diagnostic(facts, DiagnosticLevel::Error, path, 0, "internal-error",
                   "the tree-sitter Python grammar does not match the tree-sitter library");
    facts.mode = "error";
    return facts;
  }
  std::unique_ptr<TSTree, TreeDeleter> tree(
      ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<std::uint32_t>(text.size())));
  if (!tree) {
    add_diagnostic(facts, DiagnosticLevel::Error, path, 0, "parse-error", "setup.py could not be parsed");
    facts.mode = "error";
    return facts;
  }
  SetupPyReader(text, path, facts).read(ts_tree_root_node(tree.get()));
#if MPSAUDIT_HAVE_PYTHON_FRONTEND
  // The generic Python facts (imports, torch.cuda calls) of the same file;
  // its syntax diagnostics would repeat ours, so only its facts are kept.
  FileFacts python = extract_python_source(text, path);
  for (auto &fact : python.facts)
    facts.facts.push_back(std::move(fact));
#endif
  return facts;
}

} // namespace mpsaudit
