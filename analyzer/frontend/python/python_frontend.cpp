// The Python front end: one tree-sitter parse per file, one walk over the
// tree, and a flat list of facts with canonical (alias-resolved) names.
//
// What the walk tracks, and why:
//   - an import table, so `th.cuda.synchronize()` is known to be
//     torch.cuda.synchronize and `F.interpolate` torch.nn.functional.interpolate;
//   - the enclosing class and function, so factory calls inside
//     nn.Module.forward can be told apart from set-up code;
//   - guards (try/except ImportError, CUDA availability branches), so code
//     that already has a fallback is reported differently from code that
//     has none.
#include "frontend/python/python_frontend.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include <tree_sitter/api.h>

#include "core/fact_kinds.h"
#include "core/text.h"

extern "C" const TSLanguage *tree_sitter_python(void);

namespace mpsaudit {
namespace {

// Deeper nesting than this is not walked: it only occurs in generated or
// hostile code, and an unbounded recursion would exhaust the stack.
constexpr int kMaxDepth = 1000;

// Node type and field ids, looked up once per process.
struct Grammar {
  const TSLanguage *language = tree_sitter_python();
  TSSymbol symbol(const char *name) const {
    return ts_language_symbol_for_name(language, name, static_cast<uint32_t>(std::strlen(name)), true);
  }
  TSFieldId field(const char *name) const {
    return ts_language_field_id_for_name(language, name, static_cast<uint32_t>(std::strlen(name)));
  }
  TSSymbol module = symbol("module"), import_statement = symbol("import_statement"),
           import_from_statement = symbol("import_from_statement"), aliased_import = symbol("aliased_import"),
           dotted_name = symbol("dotted_name"), identifier = symbol("identifier"),
           attribute = symbol("attribute"), call = symbol("call"), argument_list = symbol("argument_list"),
           keyword_argument = symbol("keyword_argument"), string = symbol("string"),
           string_start = symbol("string_start"), string_end = symbol("string_end"),
           concatenated_string = symbol("concatenated_string"), class_definition = symbol("class_definition"),
           function_definition = symbol("function_definition"), try_statement = symbol("try_statement"),
           except_clause = symbol("except_clause"), if_statement = symbol("if_statement"),
           elif_clause = symbol("elif_clause"), else_clause = symbol("else_clause"),
           conditional_expression = symbol("conditional_expression"), not_operator = symbol("not_operator"),
           assignment = symbol("assignment"), comparison_operator = symbol("comparison_operator"),
           default_parameter = symbol("default_parameter"),
           typed_default_parameter = symbol("typed_default_parameter"), tuple = symbol("tuple"),
           wildcard_import = symbol("wildcard_import"), relative_import = symbol("relative_import"),
           decorated_definition = symbol("decorated_definition"), comment = symbol("comment"),
           block = symbol("block"), assert_statement = symbol("assert_statement"),
           raise_statement = symbol("raise_statement"), true_literal = symbol("true"),
           false_literal = symbol("false"), integer = symbol("integer"),
           boolean_operator = symbol("boolean_operator"), float_literal = symbol("float"),
           binary_operator = symbol("binary_operator"), unary_operator = symbol("unary_operator"),
           parenthesized_expression = symbol("parenthesized_expression");
  TSFieldId f_name = field("name"), f_alias = field("alias"), f_module_name = field("module_name"),
            f_function = field("function"), f_arguments = field("arguments"), f_object = field("object"),
            f_attribute = field("attribute"), f_value = field("value"), f_body = field("body"),
            f_superclasses = field("superclasses"), f_condition = field("condition"),
            f_consequence = field("consequence"), f_alternative = field("alternative"),
            f_left = field("left"), f_right = field("right"), f_definition = field("definition"),
            f_key = field("key");
};

const Grammar &grammar() {
  static const Grammar instance;
  return instance;
}

// Classes whose subclasses are nn.Modules, after alias resolution.
bool is_module_base(std::string_view canonical) {
  return canonical == "torch.nn.Module" || canonical == "torch.nn.modules.module.Module" ||
         ends_with(canonical, "LightningModule") || canonical == "nn.Module";
}

// Names of CUDA availability checks: a branch under one of them only runs
// where CUDA exists.
bool is_cuda_availability_call(std::string_view canonical) {
  return canonical == "torch.cuda.is_available" || canonical == "torch.cuda.device_count" ||
         canonical == "torch.cuda.is_initialized";
}

bool is_device_literal(std::string_view value) {
  if (value == "cuda")
    return true;
  return starts_with(value, "cuda:");
}

class Walker {
public:
  Walker(std::string_view source, const std::string &path, FileFacts &out)
      : g_(grammar()), source_(source), path_(path), out_(out) {}
  ~Walker() {
    for (TSTreeCursor &cursor : cursor_pool_)
      ts_tree_cursor_delete(&cursor);
  }
  Walker(const Walker &) = delete;
  Walker &operator=(const Walker &) = delete;

  void run(TSNode root) {
    collect_module_classes(root);
    visit(root, 0);
    find_option_only_definitions();
    mark_optional_functions();
    mark_option_only_imports();
    report_cuda_only_scalers();
    report_option_device_helper_calls();
  }

private:
  // --- text and positions -------------------------------------------------
  std::string_view text(TSNode node) const {
    const uint32_t begin = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (begin >= source_.size() || end < begin)
      return {};
    return source_.substr(begin, std::min<std::size_t>(end, source_.size()) - begin);
  }
  static Span span_of(TSNode node) {
    const TSPoint start = ts_node_start_point(node), end = ts_node_end_point(node);
    return Span{start.row + 1, start.column + 1, end.row + 1, end.column + 1};
  }
  TSNode field(TSNode node, TSFieldId id) const { return ts_node_child_by_field_id(node, id); }
  bool is(TSNode node, TSSymbol symbol) const {
    return !ts_node_is_null(node) && ts_node_symbol(node) == symbol;
  }

  // Calls `visit_child` for every child, through a cursor (linear, unlike
  // repeated ts_node_child calls).
  // Cursors are pooled by nesting level and reset rather than re-created:
  // creating one allocates, and this runs for every node.
  template <typename Fn> void for_each_child(TSNode node, Fn &&visit_child) const {
    if (cursor_depth_ == cursor_pool_.size())
      cursor_pool_.push_back(ts_tree_cursor_new(node));
    else
      ts_tree_cursor_reset(&cursor_pool_[cursor_depth_], node);
    const std::size_t slot = cursor_depth_++;
    if (ts_tree_cursor_goto_first_child(&cursor_pool_[slot])) {
      do {
        TSTreeCursor &cursor = cursor_pool_[slot]; // the pool may have grown
        visit_child(ts_tree_cursor_current_node(&cursor), ts_tree_cursor_current_field_id(&cursor));
      } while (ts_tree_cursor_goto_next_sibling(&cursor_pool_[slot]));
    }
    --cursor_depth_;
  }

  // Whether `holds` is true of a named child of `node`; stops at the first.
  template <typename Predicate> bool any_named_child(TSNode node, Predicate holds) const {
    bool found = false;
    for_each_child(node, [&](TSNode child, TSFieldId) {
      if (!found && ts_node_is_named(child))
        found = holds(child);
    });
    return found;
  }

  Fact make_fact(std::string_view kind, std::string name, TSNode node) const {
    Fact fact;
    fact.kind = std::string(kind);
    fact.name = std::move(name);
    fact.span = span_of(node);
    fact.guard = guard_;
    fact.scope = scope_;
    fact.in_forward = in_forward_;
    if (fact.guard == Guard::None && !option_branch_.empty() && is_optional_kind(fact)) {
      fact.guard = Guard::OptionalPath;
      fact.set_attribute("option", std::string(option_branch_));
    }
    return fact;
  }

  // What an option branch makes optional: the lazily imported packages and
  // the multi-process machinery that only a launcher's option turns on. Other
  // code in such a branch (a tensor made without a device, say) may well run
  // by default, so it keeps its findings as they are.
  static bool is_optional_kind(const Fact &fact) {
    if (fact.kind == fact_kind::Import)
      return true;
    return fact.kind == fact_kind::Call &&
           (starts_with(fact.name, "torch.distributed.") || starts_with(fact.name, "torch.nn.parallel.") ||
            starts_with(fact.name, "torch.nn.SyncBatchNorm"));
  }

  // A module-level function or class whose every use in this file sits in an
  // arm that runs only when an option is chosen (`if engine:
  // export_engine(...)`, `Fast if opt.fast else Plain`; not the else arm,
  // which runs when it is not) runs only then: its imports are optional too.
  // One never used here stays as it is: another module may use it on its
  // default path.
  void mark_optional_functions() {
    for (Fact &fact : out_.facts) {
      if (fact.guard != Guard::None || !is_optional_kind(fact) || fact.scope.empty())
        continue;
      const auto gated =
          option_only_definitions_.find(std::string_view(fact.scope).substr(0, fact.scope.find('.')));
      if (gated == option_only_definitions_.end())
        continue;
      fact.guard = Guard::OptionalPath;
      fact.set_attribute("option", std::string(gated->second.option) + " (every use of " +
                                       std::string(gated->first) + ")");
    }
  }

  // Uses of top-level definitions and imported names: calls (`f(x)`) and
  // references (`block = Cls`), with where they sit.
  struct NameUse {
    std::string_view name;       // the bare name or the import's bound name
    std::string_view definition; // the top-level definition holding the use, or ""
    std::string_view option;     // the optional arm or guarded branch holding it, or ""
  };
  struct OptionOnly {
    std::string_view option; // one option that chooses it
  };

  std::string_view current_definition() const { return std::string_view(scope_).substr(0, scope_.find('.')); }

  void note_name_use(std::string_view name) {
    if (!top_level_definitions_.count(name) && !aliases_.count(std::string(name)) &&
        !relative_names_.count(name))
      return;
    const std::string_view definition = current_definition();
    if (definition == name)
      return; // recursion, super(Cls, self) and the definition's own name are no uses
    // The definition name is kept as a view of the source (names are source text).
    const auto held = top_level_definitions_.find(definition);
    const std::string_view stable = held == top_level_definitions_.end() ? std::string_view() : *held;
    std::string_view option = optional_arm_;
    if (option.empty() && guard_ != Guard::None)
      option = "a guarded branch";
    uses_.push_back({name, stable, option});
  }

  // A use is optional when an option branch holds it, or a definition used
  // only optionally. Grows to a fixed point: a helper used only by an
  // option-only class is option-only too.
  bool use_is_optional(const NameUse &use) const {
    return !use.option.empty() || (!use.definition.empty() && option_only_definitions_.count(use.definition));
  }

  void find_option_only_definitions() {
    std::unordered_map<std::string_view, std::vector<const NameUse *>> uses_of;
    for (const NameUse &use : uses_)
      if (top_level_definitions_.count(use.name))
        uses_of[use.name].push_back(&use);
    bool changed = true;
    while (changed) {
      changed = false;
      for (const auto &entry : uses_of) {
        const std::string_view name = entry.first;
        const std::vector<const NameUse *> &uses = entry.second;
        if (option_only_definitions_.count(name))
          continue;
        const bool optional = std::all_of(uses.begin(), uses.end(), [&](const NameUse *use) {
          return use->definition != name && use_is_optional(*use);
        });
        if (!optional)
          continue;
        std::string_view option = uses.front()->option;
        if (option.empty())
          option = option_only_definitions_.at(uses.front()->definition).option;
        option_only_definitions_.emplace(name, OptionOnly{option});
        changed = true;
      }
    }
  }

  // An import whose names this file uses only behind options
  // (`use = "optional"`): the assessment then knows the imported module's
  // code runs here only when an option chooses it (assess/option_gating.h).
  void mark_option_only_imports() {
    std::unordered_map<std::string_view, std::pair<int, int>> counts; // name -> (uses, optional uses)
    for (const NameUse &use : uses_) {
      auto &[total, optional] = counts[use.name];
      ++total;
      optional += use_is_optional(use);
    }
    const auto only_optional = [&](std::string_view name) {
      const auto found = counts.find(name);
      return found != counts.end() && found->second.first > 0 && found->second.first == found->second.second;
    };
    auto binding = import_bindings_.begin(); // in the order of the facts
    for (std::size_t index = 0; index < out_.facts.size(); ++index) {
      Fact &fact = out_.facts[index];
      const bool bound = binding != import_bindings_.end() && binding->first == index;
      if (fact.kind != fact_kind::Import)
        continue;
      bool optional = false;
      if (bound)
        optional = only_optional((binding++)->second);
      else if (const std::string *names = fact.attribute("names"))
        optional = every_listed_name(*names, only_optional);
      if (optional)
        fact.set_attribute("use", "optional");
    }
  }

  template <typename Predicate> static bool every_listed_name(std::string_view names, Predicate holds) {
    bool all = !names.empty();
    for_each_listed_name(names, [&](std::string_view name) { all = all && holds(name); });
    return all;
  }

  // --- names ---------------------------------------------------------------
  // The dotted text of an identifier/attribute chain, or "" when the chain
  // has another kind of expression at its root (a call, a subscript...).
  // A loop, not recursion: an attribute chain can be as long as the file.
  std::string dotted(TSNode node) const {
    std::vector<std::string_view> parts; // innermost last
    while (is(node, g_.attribute)) {
      parts.push_back(text(field(node, g_.f_attribute)));
      node = field(node, g_.f_object);
    }
    if (!is(node, g_.identifier))
      return {};
    std::string chain(text(node));
    for (auto part = parts.rbegin(); part != parts.rend(); ++part)
      chain.append(".").append(*part);
    return chain;
  }

  // Resolves the root of a dotted name through the import table.
  // Returns {canonical, rooted_in_import}.
  std::pair<std::string, bool> resolve(std::string_view dotted_name) const {
    const auto dot = dotted_name.find('.');
    const std::string root(dotted_name.substr(0, dot));
    const auto it = aliases_.find(root);
    if (it == aliases_.end())
      return {std::string(dotted_name), false};
    std::string canonical = it->second;
    if (dot != std::string_view::npos)
      canonical += dotted_name.substr(dot);
    return {canonical, true};
  }

  // Canonical name of a callee: "torch.cuda.synchronize", "model.cuda", or
  // "?.cuda" when the receiver is an arbitrary expression.
  std::pair<std::string, bool> callee_name(TSNode function) const {
    const std::string chain = dotted(function);
    if (!chain.empty())
      return resolve(chain);
    if (is(function, g_.attribute))
      return {"?." + std::string(text(field(function, g_.f_attribute))), false};
    return {"?", false};
  }

  // The contents of a string literal: the text between its delimiters, with
  // f-string interpolations kept as written ("cuda:{rank}").
  std::string string_value(TSNode node) const {
    if (is(node, g_.concatenated_string)) {
      std::string joined;
      for_each_child(node, [&](TSNode child, TSFieldId) {
        if (is(child, g_.string))
          joined += string_value(child);
      });
      return joined;
    }
    uint32_t begin = ts_node_start_byte(node), end = ts_node_end_byte(node);
    for_each_child(node, [&](TSNode child, TSFieldId) {
      if (is(child, g_.string_start))
        begin = ts_node_end_byte(child);
      else if (is(child, g_.string_end))
        end = ts_node_start_byte(child);
    });
    if (end < begin || end > source_.size())
      return {};
    return std::string(source_.substr(begin, end - begin));
  }
  bool is_string(TSNode node) const { return is(node, g_.string) || is(node, g_.concatenated_string); }
  bool is_fstring(TSNode node) const {
    const std::string_view t = text(node);
    const auto quote = t.find_first_of("\"'");
    const std::string_view prefix = t.substr(0, quote == std::string_view::npos ? 0 : quote);
    return prefix.find_first_of("fF") != std::string_view::npos;
  }

  // --- imports -------------------------------------------------------------
  void record_import(TSNode node, std::string canonical, const std::string &bound_name,
                     const std::string &binding) {
    aliases_[bound_name] = binding;
    if (guard_ == Guard::ImportFallback)
      fallback_imports_[bound_name] = canonical;
    import_bindings_.emplace_back(out_.facts.size(), bound_name);
    out_.facts.push_back(make_fact(fact_kind::Import, std::move(canonical), node));
  }

  [[gnu::noinline]] void visit_import(TSNode node) {
    for_each_child(node, [&](TSNode child, TSFieldId field_id) {
      if (field_id != g_.f_name)
        return;
      if (is(child, g_.aliased_import)) {
        const std::string module(text(field(child, g_.f_name)));
        record_import(child, module, std::string(text(field(child, g_.f_alias))), module);
      } else if (is(child, g_.dotted_name)) {
        // `import torch.nn.functional` binds `torch`.
        const std::string module(text(child));
        const std::string root = module.substr(0, module.find('.'));
        record_import(child, module, root, root);
      }
    });
  }

  [[gnu::noinline]] void visit_import_from(TSNode node) {
    const TSNode module_node = field(node, g_.f_module_name);
    if (is(module_node, g_.relative_import)) {
      // Relative imports name this repository's own modules; record them so
      // project passes can see them, but never bind them to a package.
      Fact fact = make_fact(fact_kind::Import, std::string(text(module_node)), node);
      fact.set_attribute("relative", "true");
      // The names it imports (`from . import _C`, `from . import losses`): the
      // extension-import pass resolves them against the modules setup.py
      // builds, and the assessment's module graph against submodules
      // (assess/reachability.h).
      std::string names;
      for_each_child(node, [&](TSNode child, TSFieldId field_id) {
        if (field_id != g_.f_name)
          return;
        const TSNode name = is(child, g_.aliased_import) ? field(child, g_.f_name) : child;
        names += (names.empty() ? "" : ",") + std::string(text(name));
        const std::string_view bound = text(is(child, g_.aliased_import) ? field(child, g_.f_alias) : child);
        relative_names_.insert(bound);
        if (guard_ == Guard::ImportFallback)
          relative_fallback_imports_[std::string(bound)] = {std::string(text(module_node)),
                                                            std::string(text(name))};
      });
      if (!names.empty())
        fact.set_attribute("names", names);
      out_.facts.push_back(std::move(fact));
      return;
    }
    const std::string module(text(module_node));
    bool any_name = false;
    for_each_child(node, [&](TSNode child, TSFieldId field_id) {
      if (is(child, g_.wildcard_import)) {
        any_name = true;
        Fact fact = make_fact(fact_kind::Import, module + ".*", child);
        out_.facts.push_back(std::move(fact));
        return;
      }
      if (field_id != g_.f_name)
        return;
      any_name = true;
      if (is(child, g_.aliased_import)) {
        const std::string symbol(text(field(child, g_.f_name)));
        record_import(child, module + "." + symbol, std::string(text(field(child, g_.f_alias))),
                      module + "." + symbol);
      } else {
        const std::string symbol(text(child));
        record_import(child, module + "." + symbol, symbol, module + "." + symbol);
      }
    });
    if (!any_name)
      out_.facts.push_back(make_fact(fact_kind::Import, module, node));
  }

  // --- classes -------------------------------------------------------------
  // Pre-pass over top-level classes, so that `class Block(Base)` where Base is
  // an nn.Module defined later in the file is still known to be a module.
  void collect_module_classes(TSNode root) {
    // Imports first, so that bases resolve; the main walk re-records them.
    std::vector<std::pair<std::string, std::vector<std::string>>> classes;
    for_each_child(root, [&](TSNode child, TSFieldId) {
      TSNode definition = child;
      if (is(child, g_.decorated_definition))
        definition = field(child, g_.f_definition);
      if (is(definition, g_.import_statement))
        visit_import(definition);
      else if (is(definition, g_.import_from_statement))
        visit_import_from(definition);
      else if (is(definition, g_.class_definition))
        classes.emplace_back(std::string(text(field(definition, g_.f_name))), base_names(definition));
      if (is(definition, g_.class_definition) || is(definition, g_.function_definition))
        top_level_definitions_.insert(text(field(definition, g_.f_name)));
    });
    out_.facts.clear(); // the walk proper records imports with their guards
    import_bindings_.clear();
    bool changed = true;
    while (changed) {
      changed = false;
      for (const auto &[name, bases] : classes) {
        if (module_classes_.count(name))
          continue;
        for (const auto &base : bases)
          if (is_module_base(base) || module_classes_.count(base)) {
            module_classes_.insert(name);
            changed = true;
            break;
          }
      }
    }
  }

  std::vector<std::string> base_names(TSNode class_node) const {
    std::vector<std::string> bases;
    const TSNode superclasses = field(class_node, g_.f_superclasses);
    if (ts_node_is_null(superclasses))
      return bases;
    for_each_child(superclasses, [&](TSNode child, TSFieldId) {
      const std::string chain = dotted(child);
      if (!chain.empty())
        bases.push_back(resolve(chain).first);
    });
    return bases;
  }

  // --- conditions ----------------------------------------------------------
  // Whether an expression tests for CUDA: torch.cuda.is_available(),
  // device.type == "cuda", args.cuda, use_cuda...
  bool mentions_cuda(TSNode node, int depth = 0) const {
    if (ts_node_is_null(node) || depth > 50)
      return false;
    if (is(node, g_.call)) {
      if (is_cuda_availability_call(callee_name(field(node, g_.f_function)).first))
        return true;
    }
    if (is(node, g_.identifier) || is(node, g_.attribute)) {
      const std::string lower = to_lower(text(node));
      if (lower.find("cuda") != std::string::npos || lower.find("gpu") != std::string::npos)
        return true;
    }
    if (is_string(node) && is_device_literal(string_value(node)))
      return true;
    return any_named_child(node, [&](TSNode child) { return mentions_cuda(child, depth + 1); });
  }

  bool calls_cuda_availability(TSNode node, int depth = 0) const {
    if (ts_node_is_null(node) || depth > 50)
      return false;
    if (is(node, g_.call) && is_cuda_availability_call(callee_name(field(node, g_.f_function)).first))
      return true;
    if ((is(node, g_.identifier) || is(node, g_.attribute)) && cuda_flags_.count(std::string(text(node))))
      return true;
    return any_named_child(node, [&](TSNode child) { return calls_cuda_availability(child, depth + 1); });
  }

  // Whether the value of `node` is a CUDA availability test: the call, a
  // flag, or not/and/or/comparisons of them. A value chosen by one
  // (`torch.device("cuda" if torch.cuda.is_available() else "cpu")`,
  // `net.to(device)`) is not a flag: asserting on it requires nothing.
  bool is_cuda_availability_value(TSNode node, int depth = 0) const {
    if (ts_node_is_null(node) || depth > 50)
      return false;
    if (is(node, g_.call))
      return is_cuda_availability_call(callee_name(field(node, g_.f_function)).first);
    if (is(node, g_.identifier) || is(node, g_.attribute))
      return cuda_flags_.count(std::string(text(node))) > 0;
    const std::string_view type = ts_node_type(node);
    if (!is(node, g_.not_operator) && !is(node, g_.comparison_operator) && type != "boolean_operator" &&
        type != "parenthesized_expression")
      return false;
    return any_named_child(node, [&](TSNode child) { return is_cuda_availability_value(child, depth + 1); });
  }

  // `"cuda" if args.cuda else "cpu"`: a user option that can only ask for
  // CUDA. On a Mac the option stays off and the work lands on the CPU, the
  // same outcome as a choice keyed on torch.cuda.is_available().
  bool chooses_cuda_or_cpu_by_option(const std::vector<TSNode> &arms_and_condition, TSNode condition) const {
    const TSNode chosen = arms_and_condition[0], otherwise = arms_and_condition[2];
    return mentions_cuda(condition) && is_string(chosen) && is_device_literal(string_value(chosen)) &&
           is_string(otherwise) && string_value(otherwise) == "cpu";
  }

  // `x.cuda(...)` that moves x itself: a statement of its own (a module moves
  // in place) or assigned back to x. A `.cuda()` copy made for one call
  // (`op(x.cuda()).cpu()`, a test comparing with the GPU) chooses nothing.
  bool moves_to_cuda(TSNode call) const {
    const TSNode function = field(call, g_.f_function);
    if (!is(function, g_.attribute) || text(field(function, g_.f_attribute)) != "cuda")
      return false;
    const TSNode object = field(function, g_.f_object);
    const TSNode parent = ts_node_parent(call);
    if (std::string_view(ts_node_type(parent)) == "expression_statement")
      return true;
    return is(parent, g_.assignment) && text(field(parent, g_.f_left)) == text(object);
  }

  // Whether `node` contains an MPS alternative or a device literal (or a
  // `.cuda()` placement).
  void scan_selection(TSNode node, bool &has_mps, bool &has_device, bool &has_accelerator,
                      int depth = 0) const {
    if (ts_node_is_null(node) || depth > 200)
      return;
    if (is_string(node)) {
      const std::string value = string_value(node);
      if (value == "mps" || starts_with(value, "mps:"))
        has_mps = true;
      if (is_device_literal(value) || value == "cpu")
        has_device = true;
      return;
    }
    // `model.cuda()` places a tensor or module as surely as `.to("cuda")`.
    if (is(node, g_.call) && moves_to_cuda(node))
      has_device = true;
    if (is(node, g_.identifier) || is(node, g_.attribute)) {
      const std::string chain = dotted(node);
      const std::string canonical = chain.empty() ? std::string() : resolve(chain).first;
      if (canonical.find("mps") != std::string::npos)
        has_mps = true;
      if (starts_with(canonical, "torch.accelerator"))
        has_accelerator = true;
      if (canonical == "torch.device")
        has_device = true;
    }
    for_each_child(node, [&](TSNode child, TSFieldId) {
      if (ts_node_is_named(child))
        scan_selection(child, has_mps, has_device, has_accelerator, depth + 1);
    });
  }

  bool offers_mps_or_accelerator(TSNode node) const {
    bool has_mps = false, has_device = false, has_accelerator = false;
    scan_selection(node, has_mps, has_device, has_accelerator);
    return has_mps || has_accelerator;
  }

  // A device choice keyed on CUDA availability: `"cuda" if
  // torch.cuda.is_available() else "cpu"`, or an if/elif chain.
  void record_device_selection(TSNode whole, TSNode condition) {
    bool has_mps = false, has_device = false, has_accelerator = false;
    scan_selection(whole, has_mps, has_device, has_accelerator);
    if (!has_device)
      return;
    // `if cuda: return "cuda"` with no else: the statements after it are the
    // rest of the chain (`if mps: return "mps"`, `return "cpu"`). A few
    // statements only: a chain is short, and a module can be long.
    constexpr int kChainStatements = 8;
    int looked_at = 0;
    if (is(whole, g_.if_statement) && ts_node_is_null(field(whole, g_.f_alternative)))
      for (TSNode next = ts_node_next_named_sibling(whole);
           !ts_node_is_null(next) && !has_mps && !has_accelerator && looked_at++ < kChainStatements;
           next = ts_node_next_named_sibling(next)) {
        bool ignored = false;
        scan_selection(next, has_mps, ignored, has_accelerator);
      }
    Fact fact = make_fact(fact_kind::DeviceSelection, std::string(trim(text(condition))), condition);
    fact.guard = Guard::None; // the selection itself is what is being judged
    fact.set_attribute("has_mps", has_mps ? "true" : "false");
    fact.set_attribute("has_accelerator", has_accelerator ? "true" : "false");
    if (has_mps && !has_accelerator && is(whole, g_.if_statement) && picks_cuda_unasked(condition) &&
        mps_only_by_name(whole))
      fact.set_attribute("mps_by_name", "true");
    out_.facts.push_back(std::move(fact));
    if (!has_mps && !has_accelerator)
      record_flag_decision(condition);
  }

  // Whether a condition asks for MPS by name: `device == "mps"`, a flag
  // assigned from such a test (`mps = device == "mps"`), or a conjunction
  // that includes one. A disjunction may be true without the request.
  bool requests_mps_by_name(TSNode condition, int depth = 0) const {
    if (ts_node_is_null(condition) || depth > 50)
      return false;
    if (is(condition, g_.identifier) || is(condition, g_.attribute))
      return mps_request_flags_.count(std::string(text(condition))) > 0;
    if (is(condition, g_.comparison_operator))
      return compares_with_mps_literal(condition);
    if (is(condition, g_.boolean_operator)) {
      const TSNode op = ts_node_child_by_field_name(condition, "operator", 8);
      if (ts_node_is_null(op) || text(op) != "and")
        return false;
      return requests_mps_by_name(field(condition, g_.f_left), depth + 1) ||
             requests_mps_by_name(field(condition, g_.f_right), depth + 1);
    }
    if (std::string_view(ts_node_type(condition)) == "parenthesized_expression")
      return requests_mps_by_name(ts_node_named_child(condition, 0), depth + 1);
    return false;
  }

  // `x == "mps"` (either side), but not `!=`.
  bool compares_with_mps_literal(TSNode comparison) const {
    bool literal = false, equality = false;
    for_each_child(comparison, [&](TSNode child, TSFieldId) {
      if (is_string(child) && string_value(child) == "mps")
        literal = true;
      else if (!ts_node_is_named(child) && text(child) == "==")
        equality = true;
    });
    return literal && equality;
  }

  // A CUDA test that takes CUDA without the caller naming it: not
  // `device == "cuda" and torch.cuda.is_available()`.
  bool picks_cuda_unasked(TSNode condition) const {
    bool named = false;
    visit_strings(condition, [&](const std::string &value) {
      if (is_device_literal(value))
        named = true;
    });
    return !named;
  }

  template <typename Fn> void visit_strings(TSNode node, Fn &&on_string, int depth = 0) const {
    if (ts_node_is_null(node) || depth > 50)
      return;
    if (is_string(node))
      return on_string(string_value(node));
    for_each_child(node, [&](TSNode child, TSFieldId) {
      if (ts_node_is_named(child))
        visit_strings(child, on_string, depth + 1);
    });
  }

  // An if/elif chain (and, after `if cuda: return cuda`, the statements that
  // follow it) whose every way to MPS is behind a request for "mps" by name:
  // left empty, the device is CUDA or the CPU, never MPS.
  bool mps_only_by_name(TSNode if_node) const {
    bool any_mps = false, all_by_name = true;
    // A branch picks MPS when its body names MPS or its test asks torch
    // whether MPS is available.
    auto judge = [&](TSNode condition, TSNode body) {
      bool body_mps = false, unused_device = false, unused_accelerator = false;
      scan_selection(body, body_mps, unused_device, unused_accelerator);
      const bool picks_mps = body_mps || (!ts_node_is_null(condition) && asks_mps_availability(condition));
      if (!picks_mps)
        return;
      any_mps = true;
      if (ts_node_is_null(condition) || !requests_mps_by_name(condition))
        all_by_name = false;
    };
    auto judge_chain = [&](TSNode statement) {
      judge(field(statement, g_.f_condition), field(statement, g_.f_consequence));
      for_each_child(statement, [&](TSNode clause, TSFieldId) {
        if (is(clause, g_.elif_clause))
          judge(field(clause, g_.f_condition), field(clause, g_.f_consequence));
        else if (is(clause, g_.else_clause))
          judge(TSNode{}, field(clause, g_.f_body));
      });
    };
    judge_chain(if_node);
    constexpr int kChainStatements = 8;
    int looked_at = 0;
    if (ts_node_is_null(field(if_node, g_.f_alternative)))
      for (TSNode next = ts_node_next_named_sibling(if_node);
           !ts_node_is_null(next) && looked_at++ < kChainStatements;
           next = ts_node_next_named_sibling(next)) {
        if (is(next, g_.if_statement))
          judge_chain(next);
        else
          judge(TSNode{}, next);
      }
    return any_mps && all_by_name;
  }

  bool asks_mps_availability(TSNode node, int depth = 0) const {
    if (ts_node_is_null(node) || depth > 50)
      return false;
    if (is(node, g_.call) &&
        starts_with(callee_name(field(node, g_.f_function)).first, "torch.backends.mps."))
      return true;
    return any_named_child(node, [&](TSNode child) { return asks_mps_availability(child, depth + 1); });
  }

  // `use_cuda = not args.no_cuda and torch.cuda.is_available()` ... later
  // `torch.device("cuda" if use_cuda else "cpu")`: the choice is made where
  // the flag is assigned, so that line is part of the selection too (once
  // per flag).
  void record_flag_decision(TSNode condition) {
    const auto found = cuda_flag_assignments_.find(std::string(trim(text(condition))));
    if (found == cuda_flag_assignments_.end() || !reported_flags_.insert(found->first).second)
      return;
    Fact fact = make_fact(fact_kind::DeviceSelection, std::string(trim(text(found->second))), found->second);
    fact.guard = Guard::None;
    fact.set_attribute("has_mps", "false");
    fact.set_attribute("has_accelerator", "false");
    fact.set_attribute("decides", std::string(trim(text(condition))));
    out_.facts.push_back(std::move(fact));
  }

  // --- the walk --------------------------------------------------------------
  // Saves and restores the walk's context around a nested region.
  struct ContextSave {
    Walker &walker;
    Guard guard;
    std::string scope;
    std::string_view option_branch;
    std::string_view optional_arm;
    bool in_forward;
    bool in_module_class;
    explicit ContextSave(Walker &w)
        : walker(w), guard(w.guard_), scope(w.scope_), option_branch(w.option_branch_),
          optional_arm(w.optional_arm_), in_forward(w.in_forward_), in_module_class(w.in_module_class_) {}
    ~ContextSave() {
      walker.guard_ = guard;
      walker.scope_ = scope;
      walker.option_branch_ = option_branch;
      walker.optional_arm_ = optional_arm;
      walker.in_forward_ = in_forward;
      walker.in_module_class_ = in_module_class;
    }
  };

  void visit_children(TSNode node, int depth) {
    // In a block, `if not torch.cuda.is_available(): return` guards every
    // statement after it, as an explicit branch would.
    const bool block = is(node, g_.block) || is(node, g_.module);
    ContextSave save(*this);
    for_each_child(node, [&](TSNode child, TSFieldId) {
      if (!ts_node_is_named(child))
        return;
      visit(child, depth + 1);
      if (block && guard_ == Guard::None && is_early_exit_without_cuda(child)) {
        if (ends_in_raise_or_exit(field(child, g_.f_consequence)))
          record_cuda_requirement(field(child, g_.f_condition), "exit-without-cuda");
        guard_ = Guard::CudaCheck;
      }
    });
  }

  // A block's last statement, past trailing comments; null when it has none.
  TSNode last_statement(TSNode body) const {
    const uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
    for (uint32_t i = count; i > 0; --i) {
      const TSNode child = ts_node_named_child(body, i - 1);
      if (!is(child, g_.comment))
        return child;
    }
    return TSNode{};
  }

  // Whether a block's last statement raises or ends the program: the code
  // refuses to go on, rather than skipping one step.
  bool ends_in_raise_or_exit(TSNode body) const {
    const TSNode last = last_statement(body);
    if (ts_node_is_null(last))
      return false;
    return is(last, g_.raise_statement) || text(last).find("exit(") != std::string_view::npos;
  }

  // Code that stops without CUDA: `assert torch.cuda.is_available()`, `if not
  // torch.cuda.is_available(): raise`, an `else: raise` after a CUDA test, and
  // CUDA device queries run on import. On a Mac the program ends there.
  void record_cuda_requirement(TSNode node, std::string_view form) {
    if (guard_ != Guard::None)
      return;
    Fact fact = make_fact(fact_kind::CudaRequirement, std::string(trim(text(node))), node);
    fact.set_attribute("form", std::string(form));
    // Under `elif opt.device:` or `if LOCAL_RANK != -1:` only that option stops.
    if (!option_branch_.empty()) {
      fact.guard = Guard::OptionalPath;
      fact.set_attribute("option", std::string(option_branch_));
    }
    out_.facts.push_back(std::move(fact));
  }

  // `if not <cuda test>: return|raise|continue|break|sys.exit()` with no else.
  bool is_early_exit_without_cuda(TSNode statement) const {
    if (!is(statement, g_.if_statement) || !ts_node_is_null(field(statement, g_.f_alternative)))
      return false;
    if (!negated_cuda_test(field(statement, g_.f_condition)))
      return false;
    const TSNode body = field(statement, g_.f_consequence);
    const uint32_t count = ts_node_named_child_count(body);
    if (count == 0)
      return false;
    const TSNode last = ts_node_named_child(body, count - 1);
    const std::string_view type = ts_node_type(last);
    if (type == "return_statement" || type == "raise_statement" || type == "continue_statement" ||
        type == "break_statement")
      return true;
    const std::string_view last_text = text(last);
    return last_text.find("exit(") != std::string_view::npos;
  }

  // visit() recurses up to kMaxDepth levels, so its own frame must stay small:
  // the handlers it dispatches to are kept out of line (noinline), otherwise
  // their locals would be part of every level's frame. Inlined, the frame was
  // 1 KiB per level in a release build and 10 KiB under AddressSanitizer, whose
  // 10,000-bracket test then overflowed an 8 MiB stack.
  void visit(TSNode node, int depth) {
    if (depth > kMaxDepth) {
      if (!depth_reported_) {
        depth_reported_ = true;
        out_.diagnostics.push_back({DiagnosticLevel::Warning, path_, ts_node_start_point(node).row + 1,
                                    "nesting-limit",
                                    "nesting deeper than " + std::to_string(kMaxDepth) +
                                        " levels; code below that depth was not analysed"});
      }
      return;
    }
    const TSSymbol symbol = ts_node_symbol(node);
    if (symbol == g_.import_statement)
      return visit_import(node);
    if (symbol == g_.import_from_statement)
      return visit_import_from(node);
    if (symbol == g_.class_definition)
      return visit_class(node, depth);
    if (symbol == g_.function_definition)
      return visit_function(node, depth);
    if (symbol == g_.try_statement)
      return visit_try(node, depth);
    if (symbol == g_.if_statement)
      return visit_if(node, depth);
    if (symbol == g_.assert_statement && !ts_node_is_null(ts_node_named_child(node, 0)) &&
        calls_cuda_availability(ts_node_named_child(node, 0)) &&
        !is(ts_node_named_child(node, 0), g_.not_operator))
      record_cuda_requirement(ts_node_named_child(node, 0), "assert");
    if (symbol == g_.conditional_expression)
      return visit_conditional(node, depth);
    if (symbol == g_.call)
      return visit_call(node, depth);
    if (symbol == g_.attribute || symbol == g_.identifier)
      return visit_reference(node, depth);
    if (symbol == g_.assignment)
      return visit_assignment(node, depth);
    if (symbol == g_.string || symbol == g_.concatenated_string)
      return visit_string(node, "other", "");
    if (symbol == g_.default_parameter || symbol == g_.typed_default_parameter) {
      const TSNode value = field(node, g_.f_value);
      record_setting(fact_kind_parameter_default, std::string(text(field(node, g_.f_name))), value, node);
      if (is_string(value))
        return visit_string(value, "default", std::string(text(field(node, g_.f_name))));
      return visit_children(node, depth);
    }
    if (symbol == g_.comparison_operator) {
      record_cpu_device_test(node);
      // Strings compared against are tests, not device choices.
      for_each_child(node, [&](TSNode child, TSFieldId) {
        if (is_string(child))
          visit_string(child, "comparison", "");
        else if (ts_node_is_named(child))
          visit(child, depth + 1);
      });
      return;
    }
    visit_children(node, depth);
  }

  [[gnu::noinline]] void visit_class(TSNode node, int depth) {
    ContextSave save(*this);
    const std::string name(text(field(node, g_.f_name)));
    in_module_class_ = module_classes_.count(name) > 0;
    if (!in_module_class_) {
      for (const auto &base : base_names(node))
        if (is_module_base(base) || module_classes_.count(base))
          in_module_class_ = true;
    }
    scope_ = scope_.empty() ? name : scope_ + "." + name;
    in_forward_ = false;
    Fact fact = make_fact(fact_kind::ClassDef, name, field(node, g_.f_name));
    if (in_module_class_)
      fact.set_attribute("nn_module", "true");
    out_.facts.push_back(std::move(fact));
    visit_children(node, depth);
  }

  [[gnu::noinline]] void visit_function(TSNode node, int depth) {
    ContextSave save(*this);
    const std::string name(text(field(node, g_.f_name)));
    const bool method_of_module = in_module_class_ && !scope_.empty();
    Fact fact = make_fact(fact_kind::FunctionDef, name, field(node, g_.f_name));
    out_.facts.push_back(std::move(fact));
    if (method_of_module && name == "forward")
      in_forward_ = true;
    in_module_class_ = false; // nested classes and functions start afresh
    scope_ = scope_.empty() ? name : scope_ + "." + name;
    // Local names are the function's own; the enclosing ones come back after.
    std::unordered_map<std::string, NumpyOrigin> outer_arrays;
    outer_arrays.swap(numpy_float_names_);
    std::unordered_map<std::string, std::string> outer_params = empty_default_parameters(node);
    outer_params.swap(empty_default_params_);
    std::unordered_set<std::string> outer_type_strings;
    outer_type_strings.swap(type_string_names_);
    visit_children(node, depth);
    numpy_float_names_.swap(outer_arrays);
    empty_default_params_.swap(outer_params);
    type_string_names_.swap(outer_type_strings);
  }

  static bool catches_import_error(std::string_view exception_text) {
    return exception_text.empty() || exception_text.find("ImportError") != std::string_view::npos ||
           exception_text.find("ModuleNotFoundError") != std::string_view::npos ||
           exception_text.find("Exception") != std::string_view::npos ||
           exception_text.find("BaseException") != std::string_view::npos;
  }

  // What an import statement brings in, by full name: `import a.b as c`
  // gives "a.b", `from a.b import c, d as e` gives "a.b.c" and "a.b.d".
  void imported_names(TSNode statement, std::vector<std::string> &names) const {
    const bool from = is(statement, g_.import_from_statement);
    const std::string module = from ? std::string(text(field(statement, g_.f_module_name))) : std::string();
    for_each_child(statement, [&](TSNode child, TSFieldId field_id) {
      if (field_id != g_.f_name)
        return;
      const TSNode name = is(child, g_.aliased_import) ? field(child, g_.f_name) : child;
      names.push_back(from ? module + "." + std::string(text(name)) : std::string(text(name)));
    });
  }

  // What is imported anywhere under `node` (a few levels deep).
  void imported_names_under(TSNode node, int depth, std::vector<std::string> &names) const {
    if (depth > 8)
      return;
    for_each_child(node, [&](TSNode child, TSFieldId) {
      if (!ts_node_is_named(child))
        return;
      if (is(child, g_.import_statement) || is(child, g_.import_from_statement))
        imported_names(child, names);
      else if (!is(child, g_.except_clause))
        imported_names_under(child, depth + 1, names);
    });
  }

  // Whether an except clause offers a way on without the failed import. One
  // that raises, exits, or imports the same module again (after installing
  // or building it, say) only reports the failure; another module of the
  // same package (`from pkg import ops_cpu` for `ops_cuda`) is a way on.
  bool handler_falls_back(TSNode clause, const std::vector<std::string> &tried) const {
    bool falls_back = true;
    for_each_child(clause, [&](TSNode child, TSFieldId) {
      if (!is(child, g_.block))
        return;
      for_each_child(child, [&](TSNode statement, TSFieldId) {
        const std::string_view type = ts_node_type(statement);
        if (type == "raise_statement" ||
            (type == "expression_statement" && text(statement).find("exit(") != std::string_view::npos))
          falls_back = false;
      });
      std::vector<std::string> again;
      imported_names_under(child, 0, again);
      for (const std::string &name : again)
        if (std::find(tried.begin(), tried.end(), name) != tried.end())
          falls_back = false;
    });
    return falls_back;
  }

  [[gnu::noinline]] void visit_try(TSNode node, int depth) {
    std::vector<std::string> tried; // what the try body imports
    imported_names_under(field(node, g_.f_body), 0, tried);
    bool import_guard = false;
    for_each_child(node, [&](TSNode child, TSFieldId) {
      if (is(child, g_.except_clause)) {
        const TSNode value = field(child, g_.f_value);
        if (catches_import_error(ts_node_is_null(value) ? std::string_view{} : text(value)) &&
            handler_falls_back(child, tried))
          import_guard = true;
      }
    });
    for_each_child(node, [&](TSNode child, TSFieldId field_id) {
      if (!ts_node_is_named(child))
        return;
      ContextSave save(*this);
      if (field_id == g_.f_body && import_guard && guard_ == Guard::None)
        guard_ = Guard::ImportFallback;
      visit(child, depth + 1);
    });
  }

  // `x.is_cuda` or `x.device.type == "cuda"`: a test that one tensor is on
  // CUDA (not whether CUDA exists).
  bool tests_tensor_on_cuda(TSNode condition) const {
    const std::string_view test = trim(text(condition));
    if (is(condition, g_.attribute))
      return ends_with(test, ".is_cuda");
    return is(condition, g_.comparison_operator) && test.find(".device.type") != std::string_view::npos &&
           test.find("==") != std::string_view::npos &&
           (test.find("\"cuda\"") != std::string_view::npos || test.find("'cuda'") != std::string_view::npos);
  }

  // `if x.is_cuda: <kernel> else: raise ...`: the op exists for CUDA tensors
  // alone, and an MPS tensor reaches the raise.
  void record_tensor_device_raise(TSNode condition, TSNode else_body) {
    const TSNode last = last_statement(else_body);
    if (ts_node_is_null(last) || guard_ != Guard::None || !is(last, g_.raise_statement))
      return;
    Fact fact = make_fact(fact_kind::TensorDeviceRaise, std::string(trim(text(last))), last);
    fact.set_attribute("test", std::string(trim(text(condition))));
    out_.facts.push_back(std::move(fact));
  }

  // Whether a condition is `not <cuda test>`: then the else-branch is the
  // CUDA-only one.
  bool negated_cuda_test(TSNode condition) const {
    return is(condition, g_.not_operator) && mentions_cuda(condition);
  }

  bool is_main_guard(TSNode condition) const {
    const std::string_view test = text(condition);
    return test.find("__name__") != std::string_view::npos && test.find("__main__") != std::string_view::npos;
  }

  [[gnu::noinline]] void visit_if(TSNode node, int depth) {
    const TSNode condition = field(node, g_.f_condition);
    // `if __name__ == "__main__":` marks a script entry point (component
    // roles: tooling and training scripts).
    if (scope_.empty() && is_main_guard(condition))
      out_.facts.push_back(make_fact(fact_kind::MainGuard, "__main__", condition));
    const bool cuda_test = mentions_cuda(condition);
    const bool negated = negated_cuda_test(condition);
    const bool option_test = !cuda_test && !is_main_guard(condition);
    if (calls_cuda_availability(condition))
      record_device_selection(node, condition);
    record_required_import(condition, field(node, g_.f_consequence));
    visit(condition, depth + 1);
    for_each_child(node, [&](TSNode child, TSFieldId field_id) {
      if (!ts_node_is_named(child) || field_id == g_.f_condition)
        return;
      if (is(child, g_.else_clause) && !negated && calls_cuda_availability(condition) &&
          ends_in_raise_or_exit(field(child, g_.f_body)))
        record_cuda_requirement(condition, "else-raise");
      if (is(child, g_.else_clause) && tests_tensor_on_cuda(condition))
        record_tensor_device_raise(condition, field(child, g_.f_body));
      ContextSave save(*this);
      const bool consequence = field_id == g_.f_consequence;
      if (cuda_test && guard_ == Guard::None && (consequence != negated) &&
          (consequence || is(child, g_.else_clause)))
        guard_ = Guard::CudaCheck;
      if (option_test && option_branch_.empty() && (consequence || is(child, g_.else_clause)))
        option_branch_ = trim(text(condition));
      if (option_test && consequence && optional_arm_.empty() && !is(condition, g_.not_operator))
        optional_arm_ = trim(text(condition));
      if (is(child, g_.elif_clause)) {
        visit_elif(child, depth + 1);
        return;
      }
      visit(child, depth + 1);
    });
  }

  void visit_elif(TSNode node, int depth) {
    const TSNode condition = field(node, g_.f_condition);
    const bool mentions = mentions_cuda(condition);
    const bool cuda_test = mentions && !negated_cuda_test(condition);
    visit(condition, depth + 1);
    for_each_child(node, [&](TSNode child, TSFieldId field_id) {
      if (!ts_node_is_named(child) || field_id == g_.f_condition)
        return;
      ContextSave save(*this);
      if (cuda_test && guard_ == Guard::None && field_id == g_.f_consequence)
        guard_ = Guard::CudaCheck;
      if (!mentions && option_branch_.empty() && field_id == g_.f_consequence)
        option_branch_ = trim(text(condition));
      if (!mentions && optional_arm_.empty() && field_id == g_.f_consequence &&
          !is(condition, g_.not_operator))
        optional_arm_ = trim(text(condition));
      visit(child, depth + 1);
    });
  }

  // The module bound to NAME by an ImportError fallback, for `NAME is None`
  // or `not NAME`.
  // The name a failed-import test checks (`not fn`, `fn is None`), or empty.
  static std::string_view name_tested_for_none(std::string_view test) {
    test = trim(test);
    if (starts_with(test, "not "))
      return trim(test.substr(4));
    if (ends_with(test, " is None"))
      return trim(test.substr(0, test.size() - 8));
    return {};
  }

  const std::string *fallback_import_tested_by(std::string_view test) const {
    const std::string_view name = name_tested_for_none(test);
    const auto found = name.empty() ? fallback_imports_.end() : fallback_imports_.find(std::string(name));
    return found == fallback_imports_.end() ? nullptr : &found->second;
  }

  // The same for `from .mod import fn` behind try/except ImportError: the
  // relative module and the imported name.
  const std::pair<std::string, std::string> *relative_fallback_import_tested_by(std::string_view test) const {
    const std::string_view name = name_tested_for_none(test);
    const auto found =
        name.empty() ? relative_fallback_imports_.end() : relative_fallback_imports_.find(std::string(name));
    return found == relative_fallback_imports_.end() ? nullptr : &found->second;
  }

  template <typename Visit> static void for_each_or_operand(std::string_view test, Visit &&visit) {
    for (std::size_t start = 0;;) {
      const std::size_t split = test.find(" or ", start);
      visit(test.substr(start, split == std::string_view::npos ? std::string_view::npos : split - start));
      if (split == std::string_view::npos)
        return;
      start = split + 4;
    }
  }

  // `if ops is None: raise ...` after `try: import ops / except ImportError:
  // ops = None`: the fallback only postpones the failure. A
  // `required-import` fact names the module where the program stops. Any
  // operand of an `or` may be the test (`if fn is None or other is None:`).
  void record_required_import(TSNode condition, TSNode consequence) {
    if ((fallback_imports_.empty() && relative_fallback_imports_.empty()) ||
        !ends_in_raise_or_exit(consequence))
      return;
    const std::string *module = nullptr;
    const std::pair<std::string, std::string> *relative = nullptr;
    for_each_or_operand(trim(text(condition)), [&](std::string_view operand) {
      if (!module && !relative)
        module = fallback_import_tested_by(operand);
      if (!module && !relative)
        relative = relative_fallback_import_tested_by(operand);
    });
    if (!module && !relative)
      return;
    // A relative one is named as its import is: the module, `relative` and
    // the imported name (python_imports.h resolves them).
    Fact fact = make_fact(fact_kind::RequiredImport, module ? *module : relative->first, condition);
    if (relative) {
      fact.set_attribute("relative", "true");
      fact.set_attribute("names", relative->second);
    }
    if (fact.guard == Guard::ImportFallback)
      fact.guard = Guard::None;
    // Inside `if self.fused:` the failure happens only with that option on;
    // the option stays a fact for the passes, not a guard (its default may
    // well be on).
    if (!option_branch_.empty())
      fact.set_attribute("option", std::string(option_branch_));
    out_.facts.push_back(std::move(fact));
  }

  // `a if cond else b`: named children are a, cond, b (no fields).
  [[gnu::noinline]] void visit_conditional(TSNode node, int depth) {
    std::vector<TSNode> parts;
    for_each_child(node, [&](TSNode child, TSFieldId) {
      if (ts_node_is_named(child) && !is(child, g_.comment))
        parts.push_back(child);
    });
    if (parts.size() != 3)
      return visit_children(node, depth);
    const TSNode condition = parts[1];
    const bool cuda_test = mentions_cuda(condition);
    const bool negated = negated_cuda_test(condition);
    const bool selects_device =
        calls_cuda_availability(condition) || chooses_cuda_or_cpu_by_option(parts, condition);
    if (selects_device && !inside_selection_)
      record_device_selection(node, condition);
    const bool outer_selection = inside_selection_;
    // Nested `x if a else y if b else z` is one selection when it chooses a
    // device or offers MPS anywhere; around a user's override (`args.device
    // if args.device else "cuda" if ... else "cpu"`) the inner choice is the
    // default a Mac gets, judged on its own.
    inside_selection_ = outer_selection || selects_device || offers_mps_or_accelerator(node);
    visit(condition, depth + 1);
    for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
      ContextSave save(*this);
      if (cuda_test && guard_ == Guard::None && ((i == 0) != negated))
        guard_ = Guard::CudaCheck;
      if (!cuda_test && i == 0 && optional_arm_.empty() && !is(condition, g_.not_operator))
        optional_arm_ = trim(text(condition));
      visit(parts[i], depth + 1);
    }
    inside_selection_ = outer_selection;
  }

  Argument make_argument(TSNode node, std::string keyword) const {
    Argument argument;
    argument.keyword = std::move(keyword);
    argument.text = std::string(text(node));
    const std::string chain = dotted(node);
    if (!chain.empty()) {
      const auto [canonical, rooted] = resolve(chain);
      if (rooted)
        argument.canonical = canonical;
    }
    if (is_string(node)) {
      argument.is_string = true;
      argument.value = string_value(node);
    }
    return argument;
  }

  // The call's own fact; returns the callee's name. Out of line so that the
  // fact under construction is not part of visit_call's frame, which is on
  // the stack once per nesting level of calls such as f(f(f(...))).
  [[gnu::noinline]] std::string record_call(TSNode node, TSNode function, TSNode arguments) {
    // Named variables, not structured bindings: lambdas below capture them.
    const auto callee = callee_name(function);
    const std::string &name = callee.first;
    const bool rooted = callee.second;
    Fact fact = make_fact(fact_kind::Call, name, node);
    // A method call on a value (x.cuda(), model.to(...)) rather than a
    // function reached through an imported module.
    if (!rooted && is(function, g_.attribute)) {
      fact.set_attribute("method", "true");
      fact.set_attribute("method_name", std::string(text(field(function, g_.f_attribute))));
      if (converts_to_type_string(function, arguments))
        fact.set_attribute("type_string", "true");
    }
    // Report the call at its callee's end: for chains such as
    // `torch.zeros(3).cuda()` the column then points at `cuda`.
    if (is(function, g_.attribute)) {
      const TSNode attribute = field(function, g_.f_attribute);
      const Span at = span_of(attribute);
      fact.span.line = at.line;
      fact.span.column = at.column;
    }
    if (is(arguments, g_.argument_list)) {
      for_each_child(arguments, [&](TSNode child, TSFieldId) {
        if (!ts_node_is_named(child) || is(child, g_.comment))
          return;
        if (is(child, g_.keyword_argument)) {
          const std::string keyword(text(field(child, g_.f_name)));
          const TSNode value = field(child, g_.f_value);
          fact.arguments.push_back(make_argument(value, keyword));
        } else if (std::string_view(ts_node_type(child)) == "dictionary_splat") {
          add_splatted_keywords(child, fact);
        } else {
          fact.arguments.push_back(make_argument(child, ""));
        }
      });
    }
    out_.facts.push_back(std::move(fact));
    // Outside any function these run when the module is imported.
    if (scope_.empty() &&
        (name == "torch.cuda.get_device_capability" || name == "torch.cuda.get_device_properties"))
      record_cuda_requirement(node, "import-time-query");
    return name;
  }

  // --- Legacy type strings ------------------------------------------------------
  // `x.type()` without arguments: the tensor's type as a string.
  bool is_type_string_call(TSNode node) const {
    if (!is(node, g_.call))
      return false;
    const TSNode function = field(node, g_.f_function);
    const TSNode arguments = field(node, g_.f_arguments);
    return is(function, g_.attribute) && text(field(function, g_.f_attribute)) == "type" &&
           is(arguments, g_.argument_list) && ts_node_named_child_count(arguments) == 0;
  }

  void track_type_strings(const std::string &target, TSNode right) {
    if (target.empty() || ts_node_is_null(right))
      return;
    if (is_type_string_call(right))
      type_string_names_.insert(target);
    else
      type_string_names_.erase(target);
  }

  // `y.type(x.type())` or `y.type(t)` with `t = x.type()`: a conversion to
  // another tensor's type string, which names the device too.
  bool converts_to_type_string(TSNode function, TSNode arguments) const {
    if (!is(function, g_.attribute) || text(field(function, g_.f_attribute)) != "type" ||
        !is(arguments, g_.argument_list) || ts_node_named_child_count(arguments) != 1)
      return false;
    const TSNode argument = ts_node_named_child(arguments, 0);
    return is_type_string_call(argument) ||
           (is(argument, g_.identifier) && type_string_names_.count(std::string(text(argument))));
  }

  // --- NumPy float64 on its way to the device ---------------------------------
  // NumPy makes float64 unless told otherwise, and torch keeps the dtype: a
  // tensor made from such an array on the device is float64, which MPS
  // refuses. Tracked within one function through assignments (and through
  // `self.x` within a class), reported where the tensor reaches the device.
  struct NumpyOrigin {
    std::string call; // numpy.linspace
    uint32_t line = 0;
  };

  // numpy calls whose result is float64 when no dtype is given.
  static bool makes_float64(std::string_view name) {
    static const std::unordered_set<std::string_view> calls = {
        "numpy.linspace",      "numpy.logspace",
        "numpy.random.randn",  "numpy.random.rand",
        "numpy.random.normal", "numpy.random.uniform",
        "numpy.random.random", "numpy.random.standard_normal",
        "numpy.mean",          "numpy.std",
        "numpy.var",           "numpy.zeros",
        "numpy.ones",          "numpy.empty",
        "numpy.eye",           "numpy.identity",
        "numpy.exp",           "numpy.log",
        "numpy.sqrt",          "numpy.cos",
        "numpy.sin",           "numpy.interp",
        "numpy.hanning",       "numpy.hamming"};
    return calls.count(name) > 0;
  }
  // numpy functions whose result has their first argument's dtype.
  static bool keeps_argument_dtype(std::string_view name) {
    static const std::unordered_set<std::string_view> calls = {
        "numpy.cumprod",     "numpy.cumsum",  "numpy.clip",    "numpy.sort",  "numpy.flip",
        "numpy.concatenate", "numpy.stack",   "numpy.asarray", "numpy.array", "numpy.sum",
        "numpy.abs",         "numpy.maximum", "numpy.minimum"};
    return calls.count(name) > 0;
  }
  // Methods of an array that keep its float64 dtype.
  static bool keeps_dtype(std::string_view method) {
    static const std::unordered_set<std::string_view> methods = {
        "reshape", "transpose", "copy",   "clip",    "squeeze", "flatten", "ravel", "sum",
        "mean",    "std",       "cumsum", "cumprod", "max",     "min",     "repeat"};
    return methods.count(method) > 0;
  }

  bool contains_float_literal(TSNode node, int depth = 0) const {
    if (ts_node_is_null(node) || depth > 50)
      return false;
    if (is(node, g_.float_literal))
      return true;
    return any_named_child(node, [&](TSNode child) { return contains_float_literal(child, depth + 1); });
  }

  // The float64 NumPy origin of an expression, if it has one.
  const NumpyOrigin *numpy_float_origin(TSNode node, int depth = 0) {
    if (ts_node_is_null(node) || depth > 50)
      return nullptr;
    if (is(node, g_.identifier) || is(node, g_.attribute)) {
      const std::string key = array_key(dotted(node));
      if (const auto local = numpy_float_names_.find(key); local != numpy_float_names_.end())
        return &local->second;
      if (const auto member = class_arrays_.find(key); member != class_arrays_.end())
        return &member->second;
      if (is(node, g_.attribute) && text(field(node, g_.f_attribute)) == "T")
        return numpy_float_origin(field(node, g_.f_object), depth + 1);
      return nullptr;
    }
    if (is(node, g_.parenthesized_expression) || is(node, g_.unary_operator))
      return numpy_float_origin(ts_node_named_child(node, 0), depth + 1);
    if (is(node, g_.binary_operator)) {
      const NumpyOrigin *left = numpy_float_origin(field(node, g_.f_left), depth + 1);
      return left != nullptr ? left : numpy_float_origin(field(node, g_.f_right), depth + 1);
    }
    if (!is(node, g_.call))
      return nullptr;
    const TSNode function = field(node, g_.f_function);
    const TSNode arguments = field(node, g_.f_arguments);
    if (is(function, g_.attribute) && !resolve(dotted(function)).second) {
      // a.reshape(...), a.sum(): the array's dtype carries on.
      if (!keeps_dtype(text(field(function, g_.f_attribute))))
        return nullptr;
      return numpy_float_origin(field(function, g_.f_object), depth + 1);
    }
    const std::string name = callee_name(function).first;
    if (!starts_with(name, "numpy.") || !is(arguments, g_.argument_list) || has_keyword(arguments, "dtype"))
      return nullptr;
    const bool from_float_literals =
        (name == "numpy.array" || name == "numpy.asarray" || name == "numpy.arange") &&
        contains_float_literal(arguments);
    if (!from_float_literals && keeps_argument_dtype(name))
      return numpy_float_origin(ts_node_named_child(arguments, 0), depth + 1);
    if (!makes_float64(name) && !from_float_literals)
      return nullptr;
    call_origin_ = {name, ts_node_start_point(node).row + 1};
    return &call_origin_;
  }

  // The value of `keyword=` in a call's argument list; null when absent.
  TSNode keyword_value(TSNode arguments, std::string_view keyword) const {
    TSNode value{};
    for_each_child(arguments, [&](TSNode child, TSFieldId) {
      if (is(child, g_.keyword_argument) && text(field(child, g_.f_name)) == keyword)
        value = field(child, g_.f_value);
    });
    return value;
  }

  // `"cpu"` or `torch.device("cpu")`.
  bool names_the_cpu(TSNode value) const {
    if (ts_node_is_null(value))
      return false;
    if (is_string(value))
      return string_value(value) == "cpu";
    if (!is(value, g_.call) || callee_name(field(value, g_.f_function)).first != "torch.device")
      return false;
    const TSNode first = ts_node_named_child(field(value, g_.f_arguments), 0);
    return !ts_node_is_null(first) && is_string(first) && string_value(first) == "cpu";
  }

  // Where a float64 dtype is used. "host" when the value cannot reach the
  // device as float64: an entry of a lookup table or a comparison
  // (`x.dtype == torch.float64`), a tensor built with device="cpu", or one
  // cast to another dtype at once (`torch.tensor(a, dtype=torch.float64).float()`).
  // "unknown" otherwise: a device move may follow anywhere.
  std::string_view float64_placement(TSNode dtype) const {
    const TSNode parent = ts_node_parent(dtype);
    if (ts_node_is_null(parent))
      return "unknown";
    const std::string_view type = ts_node_type(parent);
    if (type == "pair" || type == "dictionary" || type == "list" || type == "tuple" || type == "set" ||
        is(parent, g_.comparison_operator))
      return "host";
    if (!is(parent, g_.keyword_argument))
      return "unknown";
    const TSNode arguments = ts_node_parent(parent);
    const TSNode call = ts_node_is_null(arguments) ? TSNode{} : ts_node_parent(arguments);
    if (ts_node_is_null(call) || !is(call, g_.call))
      return "unknown";
    if (names_the_cpu(keyword_value(arguments, "device")))
      return "host";
    const TSNode cast = ts_node_parent(call);
    if (!ts_node_is_null(cast) && is(cast, g_.attribute) && ts_node_eq(field(cast, g_.f_object), call)) {
      const std::string_view method = text(field(cast, g_.f_attribute));
      const TSNode cast_call = ts_node_parent(cast);
      if ((method == "float" || method == "half" || method == "bfloat16") && !ts_node_is_null(cast_call) &&
          is(cast_call, g_.call))
        return "host";
    }
    return "unknown";
  }

  bool has_keyword(TSNode arguments, std::string_view keyword) const {
    bool found = false;
    for_each_child(arguments, [&](TSNode child, TSFieldId) {
      if (is(child, g_.keyword_argument) && text(field(child, g_.f_name)) == keyword)
        found = true;
    });
    return found;
  }

  // `self.x` is kept per class, so that a later method sees it; other names
  // are the function's own.
  std::string array_key(const std::string &name) const {
    if (starts_with(name, "self."))
      return scope_.substr(0, scope_.rfind('.')) + "::" + name;
    return name;
  }

  void track_numpy_floats(const std::string &target, TSNode right) {
    if (target.empty() || ts_node_is_null(right))
      return;
    const std::string key = array_key(target);
    const NumpyOrigin *origin = numpy_float_origin(right);
    std::unordered_map<std::string, NumpyOrigin> &names =
        starts_with(target, "self.") ? class_arrays_ : numpy_float_names_;
    if (origin == nullptr) {
      names.erase(key); // rebound: `x = x.astype(np.float32)`
      return;
    }
    const NumpyOrigin copy = *origin; // `origin` may point into `names`
    names[key] = copy;
  }

  // Whether a call's arguments name a device other than the CPU: a `device=`
  // keyword (or, for `.to`, the first argument) that is not "cpu" or None.
  bool targets_device(TSNode arguments, bool first_is_device) const {
    bool device = false, positional_seen = false;
    for_each_child(arguments, [&](TSNode child, TSFieldId) {
      if (!ts_node_is_named(child) || is(child, g_.comment))
        return;
      TSNode value = child;
      if (is(child, g_.keyword_argument)) {
        if (text(field(child, g_.f_name)) != "device")
          return;
        value = field(child, g_.f_value);
      } else if (!first_is_device || positional_seen) {
        positional_seen = true;
        return;
      }
      positional_seen = true;
      const std::string literal = is_string(value) ? string_value(value) : std::string();
      if (literal != "cpu" && text(value) != "None")
        device = true;
    });
    return device;
  }
  // A dtype given anywhere in the call (`dtype=`, `.to(d, torch.float32)`).
  bool names_a_dtype(TSNode arguments) const {
    const std::string_view all = text(arguments);
    return all.find("float") != std::string_view::npos || all.find("half") != std::string_view::npos ||
           all.find("dtype") != std::string_view::npos;
  }

  // torch.tensor(x, device=d), torch.as_tensor(x, device=d), and
  // torch.from_numpy(x) / torch.tensor(x) followed by .to(d) or .cuda().
  void check_numpy_float_to_device(TSNode call, const std::string &name) {
    const TSNode arguments = field(call, g_.f_arguments);
    if (!is(arguments, g_.argument_list))
      return;
    TSNode made = call; // the call that makes the tensor from the array
    std::string sink = name;
    if (name == "torch.tensor" || name == "torch.as_tensor") {
      if (!targets_device(arguments, false) || names_a_dtype(arguments))
        return;
    } else {
      const std::string_view leaf = std::string_view(name).substr(name.rfind('.') + 1);
      const TSNode function = field(call, g_.f_function);
      if ((leaf != "to" && leaf != "cuda") || !is(function, g_.attribute))
        return;
      made = field(function, g_.f_object);
      if (!is(made, g_.call))
        return;
      const std::string maker = callee_name(field(made, g_.f_function)).first;
      if (maker != "torch.from_numpy" && maker != "torch.tensor" && maker != "torch.as_tensor")
        return;
      if (names_a_dtype(arguments) || names_a_dtype(field(made, g_.f_arguments)))
        return;
      if (leaf == "to" && !targets_device(arguments, true))
        return;
      sink = maker + "(...)." + std::string(leaf);
    }
    const TSNode made_arguments = field(made, g_.f_arguments);
    if (!is(made_arguments, g_.argument_list))
      return;
    const TSNode array = ts_node_named_child(made_arguments, 0);
    if (ts_node_is_null(array) || is(array, g_.keyword_argument))
      return;
    const NumpyOrigin *origin = numpy_float_origin(array);
    if (origin == nullptr)
      return;
    Fact fact = make_fact(fact_kind::NumpyFloat64ToDevice, sink, call);
    fact.span = out_.facts.back().span; // where the call's own fact points
    fact.set_attribute("origin", origin->call);
    fact.set_attribute("origin_line", std::to_string(origin->line));
    fact.set_attribute("array", std::string(trim(text(array))));
    out_.facts.push_back(std::move(fact));
  }

  // --- device helpers called with an empty device ---------------------------
  // `select_device(device)` with `device=None`, `select_device("")`, or
  // `select_device(opt.device)` with `--device` defaulting to empty: which of
  // these helpers pick MPS only by name is known once every file is read
  // (frontend/python/device_helper_pass.cpp); here each such call of a
  // function named like a device helper becomes a `device-helper-call` fact.
  static bool is_device_helper_name(std::string_view name) {
    const std::string_view leaf = name.substr(name.rfind('.') + 1);
    return !starts_with(name, "torch.") && to_lower(leaf).find("device") != std::string::npos &&
           leaf != "device";
  }

  // Parameters whose default is None or "": name -> the default as written.
  std::unordered_map<std::string, std::string> empty_default_parameters(TSNode function) const {
    std::unordered_map<std::string, std::string> params;
    const TSNode parameters = ts_node_child_by_field_name(function, "parameters", 10);
    if (ts_node_is_null(parameters))
      return params;
    for_each_child(parameters, [&](TSNode child, TSFieldId) {
      if (!is(child, g_.default_parameter) && !is(child, g_.typed_default_parameter))
        return;
      const TSNode value = field(child, g_.f_value);
      if (text(value) == "None" || text(value) == "\"\"" || text(value) == "''")
        params.emplace(std::string(text(field(child, g_.f_name))), std::string(text(value)));
    });
    return params;
  }

  // `parser.add_argument("--device", default="")` (or no default): the
  // option's value is empty unless the user gives one.
  void note_empty_option(const std::string &name, const Fact &call) {
    const std::string_view leaf = std::string_view(name).substr(name.rfind('.') + 1);
    if ((leaf != "add_argument" && leaf != "option") || call.arguments.empty() ||
        !call.arguments[0].is_string || !starts_with(call.arguments[0].value, "--"))
      return;
    std::string dest = call.arguments[0].value.substr(2);
    std::replace(dest.begin(), dest.end(), '-', '_');
    if (to_lower(dest).find("device") == std::string::npos)
      return;
    std::string empty_default = "None";
    for (const Argument &argument : call.arguments) {
      if (argument.keyword == "required" || argument.keyword == "action")
        return;
      if (argument.keyword == "default") {
        if (argument.is_string && argument.value.empty())
          empty_default = "\"\"";
        else if (argument.text != "None")
          return;
      }
    }
    Fact option = call;
    option.arguments.clear();
    option.set_attribute("how",
                         "the " + call.arguments[0].value + " option, which defaults to " + empty_default);
    empty_options_.try_emplace(dest, std::move(option));
  }

  void note_device_helper_call(TSNode arguments, const std::string &name) {
    if (!is_device_helper_name(name) || !is(arguments, g_.argument_list))
      return;
    const Fact &call = out_.facts.back();
    const Argument *device = find_argument(call.arguments, "device", 0);
    std::string how;
    if (device == nullptr)
      how = "no device argument";
    else if (device->is_string && device->value.empty())
      how = "an empty device";
    else if (device->text == "None")
      how = "device=None";
    else if (const auto param = empty_default_params_.find(device->text);
             param != empty_default_params_.end())
      how = "`" + param->first + "`, which defaults to " + param->second;
    else if (const auto dot = device->text.rfind('.');
             dot != std::string::npos && device->canonical.empty()) {
      // `opt.device`: empty when its option has an empty default (known at
      // the end of the file).
      option_uses_.emplace_back(device->text.substr(dot + 1), name);
      return;
    } else
      return;
    Fact fact = call;
    fact.kind = fact_kind::DeviceHelperCall;
    fact.arguments.clear();
    fact.set_attribute("how", how);
    out_.facts.push_back(std::move(fact));
  }

  // Once per option: reported where the option is declared.
  void report_option_device_helper_calls() {
    for (const auto &[dest, helper] : option_uses_) {
      const auto option = empty_options_.find(dest);
      if (option == empty_options_.end() || !reported_options_.insert(dest).second)
        continue;
      Fact fact = option->second;
      fact.kind = fact_kind::DeviceHelperCall;
      fact.name = helper;
      out_.facts.push_back(std::move(fact));
    }
  }

  // --- mixed precision ------------------------------------------------------
  // fp16 autocast that follows the device (`device_type=device.type`) runs on
  // MPS too; a GradScaler made only for CUDA then leaves MPS without loss
  // scaling. Scalers are held until the whole file is read: the autocast is
  // often in another function, after the scaler.
  static bool is_autocast(std::string_view name) {
    return name == "torch.autocast" || name == "torch.amp.autocast" ||
           name == "torch.amp.autocast_mode.autocast";
  }
  // A fact's arguments, or a copy of them with the first dropped.
  template <typename Arguments>
  static const Argument *find_argument(const Arguments &arguments, std::string_view keyword, int position) {
    int index = 0;
    for (const Argument &argument : arguments) {
      if (argument.keyword == keyword)
        return &argument;
      if (argument.keyword.empty() && index++ == position)
        return &argument;
    }
    return nullptr;
  }
  // torch.autocast(device_type=<not a literal>, dtype=<not bf16>), directly
  // or through functools.partial(torch.autocast, ...).
  static bool is_device_following_fp16_autocast(const Fact &call) {
    std::vector<Argument> arguments(call.arguments.begin(), call.arguments.end());
    if (call.name == "functools.partial") {
      if (arguments.empty() || !is_autocast(arguments.front().canonical))
        return false;
      arguments.erase(arguments.begin());
    } else if (!is_autocast(call.name)) {
      return false;
    }
    const Argument *device_type = find_argument(arguments, "device_type", 0);
    if (device_type == nullptr || device_type->is_string)
      return false;
    const Argument *dtype = find_argument(arguments, "dtype", 1);
    if (dtype != nullptr &&
        (dtype->text.find("bfloat16") != std::string::npos || dtype->text.find("bf16") != std::string::npos))
      return false;
    const Argument *enabled = find_argument(arguments, "enabled", 2);
    return enabled == nullptr || enabled->text != "False";
  }
  static bool is_grad_scaler(std::string_view name) {
    const std::string_view leaf = name.substr(name.rfind('.') + 1);
    return ends_with(leaf, "GradScaler") || leaf == "NativeScaler";
  }
  void note_mixed_precision(const Fact &call) {
    if (autocast_line_ == 0 && is_device_following_fp16_autocast(call))
      autocast_line_ = call.span.line;
    if (!is_grad_scaler(call.name))
      return;
    const Argument *enabled = find_argument(call.arguments, "enabled", -1);
    const bool enabled_on_cuda =
        enabled != nullptr && to_lower(enabled->text).find("cuda") != std::string::npos;
    if (guard_ != Guard::CudaCheck && !enabled_on_cuda)
      return;
    Fact scaler = call;
    scaler.kind = fact_kind::CudaOnlyGradScaler;
    scaler.guard = Guard::None; // the CUDA test is what is reported
    scaler.arguments.clear();
    pending_scalers_.push_back(std::move(scaler));
  }
  void report_cuda_only_scalers() {
    if (autocast_line_ == 0)
      return;
    for (Fact &scaler : pending_scalers_) {
      scaler.set_attribute("autocast_line", std::to_string(autocast_line_));
      out_.facts.push_back(std::move(scaler));
    }
  }

  // `torch.utils.cpp_extension.load(name, sources=[...])` builds its sources
  // when the call runs. Behind a fallback (try/except, a CUDA check) the
  // program goes on without them: their `build-source` facts say they are
  // optional, as a setup.py that adds .cu files only with CUDA does, so the
  // cpu-fallback pass credits the kernels (frontend/cxx/fallback_pass.h).
  //
  // The same holds for the tree's own wrapper of it (`get_plugin(name,
  // sources=sources)`): a call that passes CUDA sources as `sources=` builds
  // them. The sources may be a list named earlier in the same scope
  // (track_native_source_lists).
  void record_jit_build_sources(const Fact &call) {
    if (call.kind != fact_kind::Call)
      return;
    const bool jit_load = call.name == "torch.utils.cpp_extension.load";
    // CppExtension, CUDAExtension, setuptools' Extension: what `pip install`
    // builds, which the setup.py front end reads with its own CUDA tests.
    const std::string_view name = call.name;
    if (!jit_load && ends_with(name.substr(name.rfind('.') + 1), "Extension"))
      return;
    const Argument *sources = nullptr;
    for (const Argument &argument : call.arguments)
      if (argument.keyword == "sources")
        sources = &argument;
    if (!sources && jit_load)
      sources = call.positional_argument(1);
    if (!sources)
      return;
    std::vector<std::string> files = quoted_native_sources(sources->text);
    if (files.empty())
      if (const auto named = native_source_lists_.find(scope_ + "::" + sources->text);
          named != native_source_lists_.end())
        files = named->second;
    const bool builds_cuda = std::any_of(files.begin(), files.end(), [](const std::string &file) {
      return ends_with(file, ".cu") || ends_with(file, ".cuh");
    });
    if (!jit_load && !builds_cuda)
      return;
    // Built apart and appended after: `call` lives in out_.facts, which
    // appending may move.
    std::vector<Fact> built;
    for (const std::string &file : files) {
      built.push_back(fact_at(call, std::string(fact_kind::BuildSource), file));
      built.back().set_attribute("optional", call.guard == Guard::None ? "false" : "true");
      // Behind a guard, the program goes on when the build fails: nothing
      // the build would register is needed without it.
      if (call.guard != Guard::None)
        built.back().set_attribute("runs_without", "true");
    }
    for (Fact &source : built)
      out_.facts.push_back(std::move(source));
  }

  // The string literals naming C/C++/CUDA files in an argument's text
  // (`[os.path.join(here, "csrc", "k.cu"), "b.cpp"]` -> k.cu, b.cpp).
  static std::vector<std::string> quoted_native_sources(std::string_view text) {
    static constexpr std::array<std::string_view, 6> kNative{".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c"};
    std::vector<std::string> files;
    std::size_t at = 0;
    while ((at = text.find_first_of("\"'", at)) != std::string_view::npos) {
      const char quote = text[at];
      const std::size_t end = text.find(quote, at + 1);
      if (end == std::string_view::npos)
        break;
      const std::string_view literal = text.substr(at + 1, end - at - 1);
      for (std::string_view extension : kNative)
        if (ends_with(literal, extension)) {
          files.emplace_back(literal);
          break;
        }
      at = end + 1;
    }
    return files;
  }

  // The facts of one call, out of line: visit_call recurses through nested
  // calls, so its own frame must stay small (see visit()).
  [[gnu::noinline]] std::string record_call_facts(TSNode node, TSNode function, TSNode arguments) {
    std::string name = record_call(node, function, arguments);
    note_mixed_precision(out_.facts.back());
    check_numpy_float_to_device(node, name);
    note_empty_option(name, out_.facts.back());
    note_device_helper_call(arguments, name);
    record_jit_build_sources(out_.facts.back());
    if (const std::string chain = dotted(function); !chain.empty())
      note_name_use(text(function).substr(0, std::min(chain.find('.'), chain.size())));
    return name;
  }

  [[gnu::noinline]] void visit_call(TSNode node, int depth) {
    const TSNode function = field(node, g_.f_function);
    const TSNode arguments = field(node, g_.f_arguments);
    const std::string name = record_call_facts(node, function, arguments);

    // The callee chain: visit the receiver (it may contain calls) but not the
    // chain itself as an attribute read.
    if (is(function, g_.attribute)) {
      const TSNode object = field(function, g_.f_object);
      if (!is(object, g_.identifier) && !is(object, g_.attribute))
        visit(object, depth + 1);
      else
        visit_receiver_chain(object, depth + 1);
    } else if (!is(function, g_.identifier)) {
      visit(function, depth + 1);
    }
    if (!is(arguments, g_.argument_list)) {
      if (!ts_node_is_null(arguments))
        visit(arguments, depth + 1);
      return;
    }
    // A string is a device argument when the parameter takes a device;
    // elsewhere (print("cuda"), log messages) it is just text.
    const std::string_view leaf = std::string_view(name).substr(name.rfind('.') + 1);
    const bool positional_device = leaf == "to" || leaf == "device" || leaf == "set_default_device" ||
                                   leaf == "autocast" || leaf == "Generator" || leaf == "set_device";
    std::size_t position = 0;
    for_each_child(arguments, [&](TSNode child, TSFieldId) {
      if (!ts_node_is_named(child) || is(child, g_.comment))
        return;
      if (is(child, g_.keyword_argument)) {
        const TSNode value = field(child, g_.f_value);
        const std::string keyword(text(field(child, g_.f_name)));
        const bool device_keyword = keyword == "device" || keyword == "map_location" ||
                                    keyword == "device_type" || keyword == "output_device";
        if (is_string(value))
          visit_string(value, device_keyword ? "argument" : "other", keyword, name);
        else
          visit(value, depth + 1);
      } else if (is_string(child)) {
        visit_string(child, positional_device && position == 0 ? "argument" : "other", "", name);
        ++position;
      } else {
        visit(child, depth + 1);
        ++position;
      }
    });
  }

  // Inside a callee chain such as `a.b(c).d`, nested calls still need facts.
  void visit_receiver_chain(TSNode node, int depth) {
    for (; is(node, g_.attribute); ++depth) // a loop: chains can be as long as the file
      node = field(node, g_.f_object);
    if (!is(node, g_.identifier))
      visit(node, depth + 1);
  }

  // An attribute chain or a name read as a value. Only chains rooted in an
  // import are recorded: `torch.float64`, `torch.backends.cudnn.benchmark`.
  [[gnu::noinline]] void visit_reference(TSNode node, int depth) {
    const std::string chain = dotted(node);
    if (chain.empty()) {
      // e.g. `f(x).attr`: walk the receiver (one level deeper: restarting the
      // count here let f(f(f(x).a).a).a... recurse without bound).
      if (is(node, g_.attribute)) {
        // `next(self.parameters()).is_cuda`: the model's placement, read
        // through a call, tests CUDA as surely as `x.is_cuda`.
        if (text(field(node, g_.f_attribute)) == "is_cuda")
          record_cuda_placement_read(placement_read_name(node), node);
        visit(field(node, g_.f_object), depth + 1);
      }
      return;
    }
    note_name_use(text(node).substr(0, std::min(chain.find('.'), chain.size())));
    const auto [canonical, rooted] = resolve(chain);
    if (!rooted) {
      // Unresolved chains: only property reads that test CUDA placement.
      if (is(node, g_.attribute)) {
        const std::string_view leaf = text(field(node, g_.f_attribute));
        if (leaf == "is_cuda")
          record_cuda_placement_read(chain, node);
      }
      return;
    }
    // A bare module name (`torch`) is no use to any rule.
    if (canonical.find('.') == std::string::npos)
      return;
    record_attribute(canonical, node);
  }

  // The expression as written when it is one short line, else its shape.
  std::string placement_read_name(TSNode node) const {
    constexpr std::size_t kLongestName = 80;
    const std::string_view written = text(node);
    if (written.size() <= kLongestName && written.find('\n') == std::string_view::npos)
      return std::string(written);
    return "(...).is_cuda";
  }

  [[gnu::noinline]] void record_cuda_placement_read(const std::string &chain, TSNode node) {
    Fact fact = make_fact(fact_kind::Attribute, chain, node);
    fact.set_attribute("method", "true");
    out_.facts.push_back(std::move(fact));
  }

  // Out of line for the same reason as record_call_facts: visit_reference is
  // part of every level of a nested receiver chain.
  [[gnu::noinline]] void record_attribute(const std::string &canonical, TSNode node) {
    Fact fact = make_fact(fact_kind::Attribute, canonical, node);
    if (canonical == "torch.float64" || canonical == "torch.double")
      fact.set_attribute("placement", std::string(float64_placement(node)));
    out_.facts.push_back(std::move(fact));
  }

  // `params = {"gpus": n, ...}` starts a keyword dict; `params["key"] = v`
  // adds to it; any other assignment to the name forgets it.
  void track_keyword_dict(TSNode left, TSNode right) {
    if (ts_node_is_null(left) || ts_node_is_null(right))
      return;
    if (is(left, g_.identifier)) {
      const std::string key = scope_ + "::" + std::string(text(left));
      if (std::string_view(ts_node_type(right)) != "dictionary") {
        keyword_dicts_.erase(key);
        return;
      }
      auto &entries = keyword_dicts_[key];
      entries.clear();
      for_each_child(right, [&](TSNode pair, TSFieldId) {
        const TSNode name = field(pair, g_.f_key);
        if (std::string_view(ts_node_type(pair)) == "pair" && is_string(name))
          entries.emplace_back(string_value(name), field(pair, g_.f_value));
      });
      return;
    }
    if (std::string_view(ts_node_type(left)) != "subscript")
      return;
    const TSNode dict = field(left, g_.f_value);
    const TSNode name = ts_node_child_by_field_name(left, "subscript", 9);
    if (!is(dict, g_.identifier) || ts_node_is_null(name) || !is_string(name))
      return;
    const auto found = keyword_dicts_.find(scope_ + "::" + std::string(text(dict)));
    if (found != keyword_dicts_.end())
      found->second.emplace_back(string_value(name), right);
  }

  // The keyword arguments a `**name` argument passes, each placed where its
  // entry was written, so that a finding about one points at it.
  void add_splatted_keywords(TSNode splat, Fact &call) const {
    const TSNode name = ts_node_named_child(splat, 0);
    if (ts_node_is_null(name) || !is(name, g_.identifier))
      return;
    const auto found = keyword_dicts_.find(scope_ + "::" + std::string(text(name)));
    if (found == keyword_dicts_.end())
      return;
    for (const auto &[keyword, value] : found->second) {
      Argument argument = make_argument(value, keyword);
      argument.written_at = span_of(value);
      call.arguments.push_back(std::move(argument));
    }
  }

  // `sources = ["k.cpp", "k.cu"]` names the native files a later call builds
  // (record_jit_build_sources). A reassignment that maps the list over itself
  // (`sources = [os.path.join(here, s) for s in sources]`) keeps it; any
  // other assignment to the name forgets it.
  void track_native_source_lists(TSNode left, TSNode right) {
    if (ts_node_is_null(left) || ts_node_is_null(right) || !is(left, g_.identifier))
      return;
    const std::string name(text(left));
    const std::string key = scope_ + "::" + name;
    const std::string_view value = text(right);
    std::vector<std::string> files = quoted_native_sources(value);
    if (!files.empty())
      native_source_lists_[key] = std::move(files);
    else if (value.find(" in " + name) == std::string_view::npos)
      native_source_lists_.erase(key);
  }

  [[gnu::noinline]] void visit_assignment(TSNode node, int depth) {
    const TSNode left = field(node, g_.f_left);
    const TSNode right = field(node, g_.f_right);
    const std::string target = dotted(left);
    track_numpy_floats(target, right);
    track_keyword_dict(left, right);
    track_native_source_lists(left, right);
    track_type_strings(target, right);
    if (!target.empty() && is(right, g_.comparison_operator) && compares_with_mps_literal(right))
      mps_request_flags_.insert(target); // `mps = device == "mps"`
    if (!target.empty() && !ts_node_is_null(right) && is_cuda_availability_value(right)) {
      cuda_flags_.insert(target); // `use_cuda = torch.cuda.is_available()`
      bool has_mps = false, has_device = false, has_accelerator = false;
      scan_selection(right, has_mps, has_device, has_accelerator);
      if (!has_mps && !has_accelerator)
        cuda_flag_assignments_.try_emplace(target, node);
    }
    if (!target.empty() && !ts_node_is_null(right)) {
      const auto [canonical, rooted] = resolve(target);
      if (rooted) {
        // `torch.backends.cudnn.benchmark = True`: one assignment fact; the
        // target is not also reported as an attribute read.
        Fact fact = make_fact(fact_kind::Assignment, canonical, node);
        fact.arguments.push_back(make_argument(right, ""));
        out_.facts.push_back(std::move(fact));
        return visit(right, depth + 1);
      } else if (is(left, g_.identifier)) {
        // `cuda = torch.cuda` makes `cuda` an alias, like an import would.
        const std::string source_chain = dotted(right);
        if (!source_chain.empty()) {
          const auto [source_canonical, source_rooted] = resolve(source_chain);
          if (source_rooted)
            aliases_[target] = source_canonical;
        }
      }
    }
    // Config modules set their values at module level; inside a function an
    // attribute assignment is code (`m.amp = True` in a check).
    if (scope_.empty() && target.find('.') != std::string::npos)
      record_setting(fact_kind::ConfigValue, target, right, node);
    // A dataclass or config class field (`fused: bool = True`) is the default
    // of a constructor parameter.
    if (is(left, g_.identifier) && is_annotated_class_field(node))
      record_setting(fact_kind_parameter_default, target, right, node, "class_field");
    if (is_string(right)) {
      if (!ts_node_is_null(left))
        visit(left, depth + 1);
      return visit_string(right, is_config_default(node, target) ? "default" : "assignment", target);
    }
    visit_children(node, depth);
  }

  // A literal setting a user would change: a parameter default
  // (`mixed_precision="fp16"`, `amp=True`) or a module-level config entry
  // (`train.amp.enabled = True`). Only literals: computed values are code.
  static constexpr std::string_view fact_kind_parameter_default = fact_kind::ParameterDefault;
  void record_setting(std::string_view kind, std::string name, TSNode value, TSNode node,
                      std::string_view marker = {}) {
    if (ts_node_is_null(value))
      return;
    std::string literal;
    if (is_string(value))
      literal = string_value(value);
    else if (is(value, g_.true_literal) || is(value, g_.false_literal) || is(value, g_.integer))
      literal = std::string(text(value));
    else
      return;
    Fact fact = make_fact(kind, std::move(name), node);
    fact.set_attribute("value", std::move(literal));
    if (!marker.empty())
      fact.set_attribute(std::string(marker), "true");
    out_.facts.push_back(std::move(fact));
  }

  // `name: type = value` directly in a class body.
  bool is_annotated_class_field(TSNode assignment) const {
    if (ts_node_is_null(ts_node_child_by_field_name(assignment, "type", 4)))
      return false;
    const TSNode statement = ts_node_parent(assignment);
    const TSNode body = ts_node_is_null(statement) ? statement : ts_node_parent(statement);
    const TSNode owner = ts_node_is_null(body) ? body : ts_node_parent(body);
    return !ts_node_is_null(owner) && is(owner, g_.class_definition);
  }

  // A value a user configures rather than code that runs: an annotated field
  // (`device: str = "cuda"` in a dataclass) or a config node's DEVICE entry
  // (`_C.MODEL.DEVICE = "cuda"`).
  bool is_config_default(TSNode assignment, const std::string &target) const {
    if (!ts_node_is_null(ts_node_child_by_field_name(assignment, "type", 4)))
      return true;
    const auto dot = target.rfind('.');
    if (dot == std::string::npos)
      return false;
    const std::string leaf = to_lower(std::string_view(target).substr(dot + 1));
    return leaf == "device";
  }

  // `cuda = device.type != "cpu"`, `if str(device) == "cpu": model.float()`:
  // a test against the CPU that stands for "CUDA" or picks the precision.
  // MPS is neither the CPU nor CUDA, and takes the branch written for CUDA.
  // Recorded only where the test's use says which of the two it means.
  void record_cpu_device_test(TSNode comparison) {
    if (ts_node_named_child_count(comparison) != 2)
      return;
    const TSNode first = ts_node_named_child(comparison, 0), second = ts_node_named_child(comparison, 1);
    const bool cpu_second = is_string(second) && string_value(second) == "cpu";
    const bool cpu_first = is_string(first) && string_value(first) == "cpu";
    if (cpu_first == cpu_second)
      return;
    const TSNode subject = cpu_second ? first : second;
    const std::string subject_text(text(subject));
    if (to_lower(subject_text).find("device") == std::string::npos)
      return;
    std::string comparison_operator;
    for_each_child(comparison, [&](TSNode child, TSFieldId) {
      if (!ts_node_is_named(child))
        comparison_operator = ts_node_type(child);
    });
    if (comparison_operator != "==" && comparison_operator != "!=")
      return;
    const std::string_view meaning = cpu_test_meaning(comparison);
    if (meaning.empty())
      return;
    Fact fact = make_fact(fact_kind::CpuDeviceTest, subject_text, comparison);
    fact.set_attribute("operator", comparison_operator);
    fact.set_attribute("means", std::string(meaning));
    fact.set_attribute("decides", meaning == "cuda" ? "whether CUDA is used" : "the precision");
    out_.facts.push_back(std::move(fact));
  }

  // "cuda" where the test's result is kept as a CUDA flag, "precision" where
  // it picks precision or mixed precision (by the name it is stored in, the
  // call it is passed to, what its branch does, or the function it is in);
  // empty otherwise.
  std::string_view cpu_test_meaning(TSNode comparison) const {
    TSNode use = comparison;
    for (TSNode parent = ts_node_parent(use); !ts_node_is_null(parent); parent = ts_node_parent(use)) {
      if (!is(parent, g_.boolean_operator) && !is(parent, g_.not_operator) &&
          !is(parent, g_.parenthesized_expression))
        break;
      use = parent;
    }
    // `torch.cuda.is_available() and device.type != "cpu"` is False on a Mac.
    if (text(use).find("cuda.is_available") != std::string_view::npos)
      return {};
    const TSNode holder = ts_node_parent(use);
    if (ts_node_is_null(holder))
      return {};
    if (is(holder, g_.assignment) || std::string_view(ts_node_type(holder)) == "augmented_assignment") {
      const std::string target = to_lower(text(field(holder, g_.f_left)));
      if (target.find("cuda") != std::string::npos)
        return "cuda";
      return names_precision(target) ? "precision" : std::string_view();
    }
    if (is(holder, g_.keyword_argument)) {
      const TSNode call = ts_node_parent(ts_node_parent(holder));
      const bool precision_call =
          !ts_node_is_null(call) && names_precision(to_lower(text(field(call, g_.f_function))));
      return precision_call || names_precision(to_lower(text(field(holder, g_.f_name)))) ? "precision"
                                                                                         : std::string_view();
    }
    if (is(holder, g_.argument_list)) {
      const TSNode call = ts_node_parent(holder);
      return !ts_node_is_null(call) && names_precision(to_lower(text(field(call, g_.f_function))))
                 ? "precision"
                 : std::string_view();
    }
    if ((is(holder, g_.if_statement) || is(holder, g_.elif_clause)) &&
        ts_node_eq(field(holder, g_.f_condition), use)) {
      if (branch_sets_precision(field(holder, g_.f_consequence)))
        return "precision";
      return names_precision(to_lower(current_function())) ? "precision" : std::string_view();
    }
    return {};
  }

  // Whether a name speaks of precision: one of its words (split at `_`, `.`
  // and the like) is half, amp, fp16, bf16, autocast... or ...precision;
  // `samples` or `clamp` are not.
  static bool names_precision(std::string_view lowered) {
    for (std::size_t start = 0; start < lowered.size();) {
      std::size_t end = start;
      while (end < lowered.size() && std::isalnum(static_cast<unsigned char>(lowered[end])))
        ++end;
      const std::string_view word = lowered.substr(start, end - start);
      if (word == "half" || word == "amp" || word == "fp16" || word == "bf16" ||
          starts_with(word, "autocast") || ends_with(word, "precision"))
        return true;
      start = end + 1;
    }
    return false;
  }

  // A branch that casts (`.float()`, `.half()`, `.double()`, `.bfloat16()`)
  // or names mixed precision.
  bool branch_sets_precision(TSNode block, int depth = 0) const {
    if (ts_node_is_null(block) || depth > 40)
      return false;
    if (is(block, g_.call)) {
      const TSNode function = field(block, g_.f_function);
      if (is(function, g_.attribute)) {
        const std::string_view method = text(field(function, g_.f_attribute));
        if (method == "float" || method == "half" || method == "double" || method == "bfloat16")
          return true;
      }
    }
    if (is(block, g_.identifier) && names_precision(to_lower(text(block))))
      return true;
    bool found = false;
    for_each_child(block, [&](TSNode child, TSFieldId) {
      if (!found && ts_node_is_named(child))
        found = branch_sets_precision(child, depth + 1);
    });
    return found;
  }

  // The innermost function around the walker: the last part of the scope.
  std::string_view current_function() const {
    const std::string_view scope(scope_);
    const auto dot = scope.rfind('.');
    return dot == std::string_view::npos ? scope : scope.substr(dot + 1);
  }

  // A string literal that names a CUDA device. `context` says where it sits:
  // argument (of `callee`), assignment, default, comparison, other.
  [[gnu::noinline]] void visit_string(TSNode node, std::string_view context, const std::string &keyword,
                                      const std::string &callee = "") {
    const std::string value = string_value(node);
    if (!is_device_literal(value))
      return;
    Fact fact = make_fact(fact_kind::DeviceString, value, node);
    fact.set_attribute("context", std::string(context));
    if (!keyword.empty())
      fact.set_attribute("keyword", keyword);
    if (!callee.empty())
      fact.set_attribute("callee", callee);
    if (is_fstring(node))
      fact.set_attribute("fstring", "true");
    out_.facts.push_back(std::move(fact));
  }

  const Grammar &g_;
  std::string_view source_;
  const std::string &path_;
  FileFacts &out_;
  std::unordered_map<std::string, std::string> aliases_;
  std::unordered_set<std::string> cuda_flags_; // names assigned a CUDA availability test
  // CUDA flags assigned without an MPS test -> the assignment; and those
  // already reported as part of a selection.
  std::unordered_map<std::string, TSNode> cuda_flag_assignments_;
  std::unordered_set<std::string> reported_flags_;
  std::unordered_set<std::string> mps_request_flags_; // names assigned `x == "mps"`
  // Keyword arguments gathered in a dict before a `f(**name)` call: the
  // string-keyed entries of `name = {...}` and `name["key"] = value` (scope
  // + name -> (key, value) in source order).
  std::unordered_map<std::string, std::vector<std::pair<std::string, TSNode>>> keyword_dicts_;
  // scope::name -> the native source files a list assigned to it names.
  std::unordered_map<std::string, std::vector<std::string>> native_source_lists_;
  // Names bound to float64 NumPy arrays in the current function, and
  // `self.x` arrays by class (Class::self.x), seen by every later method.
  std::unordered_map<std::string, NumpyOrigin> numpy_float_names_;
  // Names bound in this function to a tensor's legacy type string
  // (`t = x.type()`): "torch.mps.FloatTensor" on MPS.
  std::unordered_set<std::string> type_string_names_;
  std::unordered_map<std::string, NumpyOrigin> class_arrays_;
  NumpyOrigin call_origin_; // the origin of a NumPy call met directly
  // Parameters of the current function that default to None or "".
  std::unordered_map<std::string, std::string> empty_default_params_;
  std::unordered_map<std::string, Fact> empty_options_;          // option dest -> its add_argument call
  std::vector<std::pair<std::string, std::string>> option_uses_; // (dest, helper) of helper(x.dest)
  std::unordered_set<std::string> reported_options_;
  uint32_t autocast_line_ = 0;        // the first device-following fp16 autocast
  std::vector<Fact> pending_scalers_; // GradScalers made only for CUDA
  // Names bound by an import behind try/except ImportError -> the module.
  std::unordered_map<std::string, std::string> fallback_imports_;
  // Bound name -> (relative module, imported name), for the same tests.
  std::unordered_map<std::string, std::pair<std::string, std::string>> relative_fallback_imports_;
  std::unordered_set<std::string> module_classes_;
  Guard guard_ = Guard::None;
  std::string scope_;
  // The condition of the innermost enclosing branch that tests an option
  // rather than CUDA (`elif engine:`), or empty.
  std::string_view option_branch_;
  // The condition of the innermost enclosing arm that runs only when an
  // option is chosen (`if cfg.fast:`, `x if cfg.fast else y`; not an else,
  // which runs when it is not), or empty.
  std::string_view optional_arm_;
  // Module-level classes and functions, and names bound by relative imports
  // (views of the source).
  std::unordered_set<std::string_view> top_level_definitions_;
  std::unordered_set<std::string_view> relative_names_;
  std::vector<NameUse> uses_;
  // The name each `import` binds, by the index of its fact: the walk's own
  // bookkeeping, kept apart from the fact, which a scan may keep whole to
  // the end (an attribute cost about 80 bytes a kept import).
  std::vector<std::pair<std::size_t, std::string>> import_bindings_;
  std::unordered_map<std::string_view, OptionOnly> option_only_definitions_;
  bool in_forward_ = false;
  bool in_module_class_ = false;
  bool inside_selection_ = false;
  bool depth_reported_ = false;
  mutable std::vector<TSTreeCursor> cursor_pool_;
  mutable std::size_t cursor_depth_ = 0;
};

// The first syntax error, for the diagnostic: a depth-first walk with one
// cursor, descending only into nodes that contain an error (a loop, not
// recursion: an error can sit under as many levels as the file has brackets).
bool first_error(TSNode root, TSPoint &where) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  bool found = false;
  for (;;) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    if (std::strcmp(ts_node_type(node), "ERROR") == 0 || ts_node_is_missing(node)) {
      where = ts_node_start_point(node);
      found = true;
      break;
    }
    if (ts_node_has_error(node) && ts_tree_cursor_goto_first_child(&cursor))
      continue;
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor)))
      if (!ts_tree_cursor_goto_parent(&cursor))
        break;
    if (!moved)
      break;
  }
  ts_tree_cursor_delete(&cursor);
  return found;
}

struct ParserDeleter {
  void operator()(TSParser *parser) const { ts_parser_delete(parser); }
};
struct TreeDeleter {
  void operator()(TSTree *tree) const { ts_tree_delete(tree); }
};

// One parser per thread: creating a parser per file costs more than parsing
// a small file.
TSParser *thread_parser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
    ts_parser_set_language(p.get(), tree_sitter_python());
    return p;
  }();
  return parser.get();
}

} // namespace

// The facts of each kind this front end emits, and the words a file must
// contain for it to emit one (see python_kind_triggers in the header). Keep
// in step with the Walker: a kind missing here turns the prefilter off for
// every rule on it (scan/python_prefilter.cpp).
std::optional<PythonKindTriggers> python_kind_triggers(std::string_view kind) {
  static const std::map<std::string_view, PythonKindTriggers> kTriggers{
      {fact_kind::Import, {true, {}}},
      {fact_kind::Call, {true, {}}},
      {fact_kind::Attribute, {true, {}}},
      {fact_kind::Assignment, {true, {}}},
      {"function-def", {true, {}}},
      {"class-def", {true, {}}},
      {"parameter-default", {true, {}}},
      {"config-value", {true, {}}},
      // is_device_literal: "cuda", "cuda:N".
      {fact_kind::DeviceString, {false, {"cuda"}}},
      // visit_if / record_flag_decision: a CUDA availability test.
      {fact_kind::DeviceSelection, {false, {"cuda"}}},
      // record_cuda_requirement: a CUDA test or CUDA device query.
      {"cuda-requirement", {false, {"cuda"}}},
      // record_tensor_device_raise: `.is_cuda` or `.device.type == "cuda"`.
      {fact_kind::TensorDeviceRaise, {false, {"cuda"}}},
      // note_mixed_precision: is_grad_scaler.
      {"cuda-only-grad-scaler", {false, {"gradscaler", "nativescaler"}}},
      // torch.from_numpy / torch.tensor / torch.as_tensor moved to a device.
      {"numpy-float64-to-device", {false, {"torch"}}},
      // note_device_helper_call: a helper whose name contains "device".
      {"device-helper-call", {false, {"device"}}},
      // A fallback import (try/except ImportError) required after all.
      {"required-import", {false, {"import"}}},
      // is_main_guard.
      {"main-guard", {false, {"__main__"}}},
      // record_cpu_device_test: a device compared with "cpu".
      {"cpu-device-test", {false, {"cpu"}}},
  };
  const auto found = kTriggers.find(kind);
  if (found == kTriggers.end())
    return std::nullopt;
  return found->second;
}

namespace {

// Parses `source`; null after a timeout, with the diagnostic in `facts`. A
// tree with errors adds a warning: tree-sitter recovers, so the rest of the
// file is still analysed.
std::unique_ptr<TSTree, TreeDeleter> parse_python(std::string_view source, const std::string &path,
                                                  unsigned timeout_ms, FileFacts &facts) {
  TSParser *parser = thread_parser();
  ts_parser_reset(parser);
  ts_parser_set_timeout_micros(parser, static_cast<uint64_t>(timeout_ms) * 1000u);
  std::unique_ptr<TSTree, TreeDeleter> tree(
      ts_parser_parse_string(parser, nullptr, source.data(), static_cast<uint32_t>(source.size())));
  if (!tree) {
    facts.mode = "error";
    facts.diagnostics.push_back({DiagnosticLevel::Error, path, 0, "parse-timeout",
                                 "parsing took longer than " + std::to_string(timeout_ms) +
                                     " ms (--max-parse-time); the file was not analysed"});
    return tree;
  }
  TSPoint where{};
  if (first_error(ts_tree_root_node(tree.get()), where)) {
    // tree-sitter recovers from errors: facts from the rest of the file are
    // still extracted, so this is a warning, not an error.
    facts.diagnostics.push_back({DiagnosticLevel::Warning, path, where.row + 1, "syntax-error",
                                 "syntax error at line " + std::to_string(where.row + 1) + ", column " +
                                     std::to_string(where.column + 1) +
                                     "; the rest of the file was still analysed"});
  }
  return tree;
}

} // namespace

FileFacts extract_python_source(std::string_view source, const std::string &path, unsigned timeout_ms) {
  FileFacts facts;
  const auto tree = parse_python(source, path, timeout_ms, facts);
  if (!tree)
    return facts;
  Walker walker(source, path, facts);
  walker.run(ts_tree_root_node(tree.get()));
  return facts;
}

namespace {

// Whether the tree nests deeper than `limit` levels: a cursor loop, not a
// recursion, for the same reason as first_error.
bool deeper_than(TSNode root, int limit) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  int depth = 0;
  bool deep = false;
  while (!deep) {
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      deep = ++depth > limit;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return false;
      }
      --depth;
    }
  }
  ts_tree_cursor_delete(&cursor);
  return true;
}

} // namespace

FileFacts extract_python_syntax_only(std::string_view source, const std::string &path, unsigned timeout_ms) {
  FileFacts facts;
  const auto tree = parse_python(source, path, timeout_ms, facts);
  // The walk stops at kMaxDepth with a warning; a tree that deep is walked,
  // so that its warning is the same as in a full extraction.
  if (tree && deeper_than(ts_tree_root_node(tree.get()), kMaxDepth / 2)) {
    Walker walker(source, path, facts);
    walker.run(ts_tree_root_node(tree.get()));
  }
  return facts;
}

void register_python_frontends(ExtractorTable &table) {
  table.add(FileKind::Python, [](const SourceFile &file, const ExtractOptions &options) {
    return extract_python_source(file.text, file.path, options.parse_timeout_ms);
  });
  table.add(FileKind::Notebook, [](const SourceFile &file, const ExtractOptions &options) {
    return extract_notebook_source(file.text, file.path, options.parse_timeout_ms);
  });
}

} // namespace mpsaudit
