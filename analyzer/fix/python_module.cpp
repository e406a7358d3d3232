#include "fix/python_module.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "core/text.h"

extern "C" const TSLanguage *tree_sitter_python(void);

namespace mpsaudit {
namespace {

TSPoint point(std::uint32_t line, std::uint32_t column) {
  return TSPoint{line > 0 ? line - 1 : 0, column > 0 ? column - 1 : 0};
}

bool same_point(TSPoint a, TSPoint b) {
  return a.row == b.row && a.column == b.column;
}

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

} // namespace

PythonModule::PythonModule(std::string_view text, const FileFacts *facts, std::string target_torch)
    : text_(text), target_torch_(std::move(target_torch)) {
  (void)facts; // bindings are read from the tree, which also sees code the facts summarise
  parser_ = ts_parser_new();
  ts_parser_set_language(parser_, tree_sitter_python());
  tree_ = ts_parser_parse_string(parser_, nullptr, text_.data(), static_cast<uint32_t>(text_.size()));
  if (!tree_)
    return;
  find_torch_binding(nullptr);
  find_layout();
}

PythonModule::~PythonModule() {
  if (tree_)
    ts_tree_delete(tree_);
  if (parser_)
    ts_parser_delete(parser_);
}

bool PythonModule::has_error() const {
  return !tree_ || ts_node_has_error(root());
}

TSNode PythonModule::root() const {
  return ts_tree_root_node(tree_);
}

std::string_view PythonModule::text(TSNode node) const {
  if (ts_node_is_null(node))
    return {};
  const std::size_t b = begin(node), e = end(node);
  if (b > text_.size() || e < b)
    return {};
  return text_.substr(b, std::min(e, text_.size()) - b);
}

bool PythonModule::is(TSNode node, std::string_view type) {
  return !ts_node_is_null(node) && type == ts_node_type(node);
}

TSNode PythonModule::field(TSNode node, const char *name) {
  return ts_node_child_by_field_name(node, name, static_cast<uint32_t>(std::strlen(name)));
}

std::vector<TSNode> PythonModule::named_children(TSNode node) {
  std::vector<TSNode> children;
  if (ts_node_is_null(node))
    return children;
  const uint32_t count = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_named_child(node, i);
    if (!is(child, "comment"))
      children.push_back(child);
  }
  return children;
}

std::optional<TSNode> PythonModule::node_at(const Span &span) const {
  if (!tree_)
    return std::nullopt;
  const TSPoint start = point(span.line, span.column), stop = point(span.end_line, span.end_column);
  TSNode node = ts_node_descendant_for_point_range(root(), start, stop);
  while (!ts_node_is_null(node)) {
    if (same_point(ts_node_start_point(node), start) && same_point(ts_node_end_point(node), stop))
      return node;
    node = ts_node_parent(node);
  }
  return std::nullopt;
}

std::optional<TSNode> PythonModule::call_at(const Span &span) const {
  if (!tree_)
    return std::nullopt;
  const TSPoint start = point(span.line, span.column), stop = point(span.end_line, span.end_column);
  TSNode node = ts_node_descendant_for_point_range(root(), start, stop);
  while (!ts_node_is_null(node)) {
    if (is(node, "call") && same_point(ts_node_end_point(node), stop))
      return node;
    node = ts_node_parent(node);
  }
  return std::nullopt;
}

std::optional<std::vector<TSNode>> PythonModule::call_arguments(TSNode call) const {
  const TSNode arguments = field(call, "arguments");
  if (!is(arguments, "argument_list"))
    return std::nullopt;
  return named_children(arguments);
}

bool PythonModule::has_splat(const std::vector<TSNode> &arguments) {
  return std::any_of(arguments.begin(), arguments.end(), [](TSNode argument) {
    return is(argument, "list_splat") || is(argument, "dictionary_splat");
  });
}

std::optional<TSNode> PythonModule::keyword_argument(const std::vector<TSNode> &arguments,
                                                     std::string_view name) const {
  for (const TSNode argument : arguments)
    if (is(argument, "keyword_argument") && text(field(argument, "name")) == name)
      return argument;
  return std::nullopt;
}

bool PythonModule::is_string(TSNode node) const {
  return is(node, "string") || is(node, "concatenated_string");
}

std::string PythonModule::string_value(TSNode node) const {
  if (is(node, "concatenated_string")) {
    std::string joined;
    for (const TSNode part : named_children(node))
      if (is(part, "string"))
        joined += string_value(part);
    return joined;
  }
  std::size_t b = begin(node), e = end(node);
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_child(node, i);
    if (is(child, "string_start"))
      b = end(child);
    else if (is(child, "string_end"))
      e = begin(child);
  }
  if (e < b || e > text_.size())
    return {};
  return std::string(text_.substr(b, e - b));
}

bool PythonModule::is_cuda_literal(TSNode node) const {
  if (!is_string(node))
    return false;
  const std::string value = string_value(node);
  return value == "cuda" || starts_with(value, "cuda:");
}

// In source order; a loop over an explicit stack, as an expression can nest
// as deep as the file is long.
std::vector<TSNode> PythonModule::cuda_literals(TSNode root) const {
  std::vector<TSNode> found;
  std::vector<TSNode> pending{root};
  while (!pending.empty()) {
    const TSNode node = pending.back();
    pending.pop_back();
    if (ts_node_is_null(node))
      continue;
    if (is_string(node)) {
      if (is_cuda_literal(node))
        found.push_back(node);
      continue;
    }
    for (uint32_t i = ts_node_named_child_count(node); i > 0; --i)
      pending.push_back(ts_node_named_child(node, i - 1));
  }
  return found;
}

std::string PythonModule::literal_like(TSNode literal, std::string_view value) const {
  const std::string_view written = text(literal);
  const auto quote = written.find_first_of("\"'");
  const char q = quote == std::string_view::npos ? '"' : written[quote];
  return std::string(1, q) + std::string(value) + std::string(1, q);
}

bool PythonModule::is_torch_device_call(TSNode call) const {
  if (!is(call, "call"))
    return false;
  const std::string_view callee = text(field(call, "function"));
  return callee == "torch.device" || (!torch_binding_.empty() && callee == torch_binding_ + ".device");
}

// --- names ---------------------------------------------------------------------

void PythonModule::find_torch_binding(const FileFacts *) {
  // Module-level imports, including those inside a top-level try/if (an
  // import with a fallback still binds the name where torch is installed).
  std::size_t torch_statement_end = 0;
  auto scan_import = [&](TSNode statement, TSNode top_level) {
    if (!is(statement, "import_statement"))
      return;
    for (const TSNode name : named_children(statement)) {
      if (is(name, "aliased_import")) {
        if (text(field(name, "name")) == "torch" && torch_binding_.empty()) {
          torch_binding_ = std::string(text(field(name, "alias")));
          torch_statement_end = end(top_level);
        }
      } else if (is(name, "dotted_name")) {
        const std::string_view dotted = text(name);
        if ((dotted == "torch" || starts_with(dotted, "torch.")) && torch_binding_.empty()) {
          torch_binding_ = "torch";
          torch_statement_end = end(top_level);
        }
      }
    }
  };
  for (const TSNode child : named_children(root())) {
    if (is(child, "import_statement")) {
      scan_import(child, child);
    } else if (is(child, "try_statement") || is(child, "if_statement")) {
      const TSNode body = is(child, "try_statement") ? field(child, "body") : field(child, "consequence");
      for (const TSNode statement : named_children(body))
        scan_import(statement, child);
    }
    if (!torch_binding_.empty())
      break;
  }
  prelude_offset_ = torch_statement_end; // refined by find_layout()
}

// --- layout --------------------------------------------------------------------

std::size_t PythonModule::line_start(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  const auto newline = text_.rfind('\n', offset == 0 ? 0 : offset - 1);
  if (offset == 0 || newline == std::string_view::npos)
    return 0;
  return newline + 1;
}

std::string PythonModule::line_indent(std::size_t offset) const {
  std::size_t i = line_start(offset);
  const std::size_t start = i;
  while (i < text_.size() && is_space(text_[i]))
    ++i;
  return std::string(text_.substr(start, i - start));
}

bool PythonModule::alone_on_lines(TSNode node) const {
  for (std::size_t i = line_start(begin(node)); i < begin(node); ++i)
    if (!is_space(text_[i]))
      return false;
  std::size_t i = end(node);
  while (i < text_.size() && is_space(text_[i]))
    ++i;
  return i >= text_.size() || text_[i] == '\n' || text_[i] == '\r' || text_[i] == '#';
}

void PythonModule::find_layout() {
  if (text_.find("\r\n") != std::string_view::npos)
    newline_ = "\r\n";
  // The first block indented under its header gives the indentation unit.
  std::vector<TSNode> stack{root()};
  while (!stack.empty()) {
    const TSNode node = stack.back();
    stack.pop_back();
    if (is(node, "block")) {
      const TSNode parent = ts_node_parent(node);
      if (!ts_node_is_null(parent) && ts_node_start_point(node).row > ts_node_start_point(parent).row) {
        const std::string inner = line_indent(begin(node)), outer = line_indent(begin(parent));
        if (inner.size() > outer.size() && starts_with(inner, outer)) {
          indent_unit_ = inner.substr(outer.size());
          break;
        }
      }
    }
    const uint32_t count = ts_node_named_child_count(node);
    for (uint32_t i = count; i > 0; --i)
      stack.push_back(ts_node_named_child(node, i - 1));
  }

  // After the leading imports (docstring, comments and imports at the top);
  // never before the statement that imports torch.
  std::size_t after = 0;
  bool saw_import = false;
  const uint32_t count = ts_node_named_child_count(root());
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_named_child(root(), i);
    if (is(child, "comment"))
      continue;
    if (is(child, "import_statement") || is(child, "import_from_statement") ||
        is(child, "future_import_statement")) {
      after = end(child);
      saw_import = true;
      continue;
    }
    if (!saw_import && is(child, "expression_statement") && named_children(child).size() == 1 &&
        is_string(named_children(child).front())) {
      after = end(child); // the module docstring
      continue;
    }
    break;
  }
  if (!saw_import && after == 0) {
    // Leading comment lines (shebang, licence, coding) stay first.
    std::size_t offset = 0;
    while (offset < text_.size() && text_[offset] == '#') {
      const auto newline = text_.find('\n', offset);
      offset = newline == std::string_view::npos ? text_.size() : newline + 1;
      after = offset;
    }
  }
  after = std::max(after, prelude_offset_);
  prelude_after_import_ = saw_import || prelude_offset_ > 0;
  // To the start of the next line.
  if (after > 0 && after <= text_.size() && (after == text_.size() || text_[after - 1] != '\n')) {
    const auto newline = text_.find('\n', after);
    after = newline == std::string_view::npos ? text_.size() : newline + 1;
  }
  prelude_offset_ = after;
}

bool PythonModule::use_accelerator() const {
  return compare_releases(target_torch_.empty() ? kDefaultFixTargetTorch : target_torch_, "2.6") >= 0;
}

std::string PythonModule::device_selection_expression() const {
  const std::string t = torch();
  if (use_accelerator())
    return t + ".accelerator.current_accelerator() if " + t + ".accelerator.is_available() else " + t +
           ".device(\"cpu\")";
  return t + ".device(\"cuda\" if " + t + ".cuda.is_available() else \"mps\" if " + t +
         ".backends.mps.is_available() else \"cpu\")";
}

TextEdit PythonModule::prelude_edit(bool torch_import, bool module_device) const {
  TextEdit edit;
  edit.begin = edit.end = prelude_offset_;
  std::string &out = edit.replacement;
  if (prelude_offset_ > 0 && text_[prelude_offset_ - 1] != '\n')
    out += newline_; // the file ends without a newline
  if (torch_import)
    out += "import torch" + newline_;
  if (module_device) {
    if (prelude_after_import_ || torch_import)
      out += newline_;
    out +=
        use_accelerator()
            ? "# One device for this module: the accelerator (CUDA, MPS, ...), else the CPU (mpsaudit fix)."
            : "# One device for this module: CUDA, then Apple MPS, then the CPU (mpsaudit fix).";
    out += newline_ + "device = " + device_selection_expression() + newline_;
  }
  if (prelude_offset_ < text_.size() && text_[prelude_offset_] != '\n' && text_[prelude_offset_] != '\r')
    out += newline_; // code follows at once: keep it apart
  return edit;
}

// --- scope ---------------------------------------------------------------------

std::optional<TSNode> PythonModule::enclosing_function(TSNode node) const {
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent); parent = ts_node_parent(parent))
    if (is(parent, "function_definition"))
      return parent;
  return std::nullopt;
}

namespace {

// A place where a name is bound in one scope.
struct Binding {
  std::size_t offset = 0;
  TSNode assignment{}; // the assignment when bound as `name = value`
  bool has_assignment = false;
  bool parameter = false;
};

bool is_scope_boundary(TSNode node) {
  return PythonModule::is(node, "function_definition") || PythonModule::is(node, "class_definition") ||
         PythonModule::is(node, "lambda");
}

} // namespace

namespace {

class ScopeReader {
public:
  explicit ScopeReader(const PythonModule &module) : module_(module) {}

  // Every binding of every simple name in one scope (not nested scopes).
  void read_scope(TSNode scope_node, std::vector<std::pair<std::string, Binding>> &out) const {
    if (PythonModule::is(scope_node, "function_definition")) {
      for (const TSNode parameter :
           PythonModule::named_children(PythonModule::field(scope_node, "parameters"))) {
        TSNode name = parameter;
        if (PythonModule::is(parameter, "default_parameter") ||
            PythonModule::is(parameter, "typed_default_parameter"))
          name = PythonModule::field(parameter, "name");
        else if (PythonModule::is(parameter, "typed_parameter") && ts_node_named_child_count(parameter) > 0)
          name = ts_node_named_child(parameter, 0);
        if (PythonModule::is(name, "identifier")) {
          Binding binding;
          binding.offset = PythonModule::begin(name);
          binding.parameter = true;
          out.emplace_back(std::string(module_.text(name)), binding);
        }
      }
      walk(PythonModule::field(scope_node, "body"), out, 0);
    } else {
      walk(scope_node, out, 0);
    }
  }

private:
  // The names an assignment target binds, in source order. A loop over an
  // explicit stack, not recursion: `((((a,),),),) = x` can nest as deep as
  // the file is long.
  void add_targets(TSNode target, std::vector<std::pair<std::string, Binding>> &out) const {
    std::vector<TSNode> pending{target};
    while (!pending.empty()) {
      const TSNode node = pending.back();
      pending.pop_back();
      if (PythonModule::is(node, "identifier")) {
        Binding binding;
        binding.offset = PythonModule::begin(node);
        out.emplace_back(std::string(module_.text(node)), binding);
      } else if (PythonModule::is(node, "pattern_list") || PythonModule::is(node, "tuple_pattern") ||
                 PythonModule::is(node, "list_pattern") || PythonModule::is(node, "list_splat_pattern")) {
        const std::vector<TSNode> parts = PythonModule::named_children(node);
        pending.insert(pending.end(), parts.rbegin(), parts.rend());
      }
    }
  }

  void walk(TSNode node, std::vector<std::pair<std::string, Binding>> &out, int depth) const {
    if (ts_node_is_null(node) || depth > 400)
      return;
    if (is_scope_boundary(node)) {
      // The definition binds its name in this scope; its body is another scope.
      const TSNode name = PythonModule::field(node, "name");
      if (PythonModule::is(name, "identifier"))
        add_targets(name, out);
      return;
    }
    if (PythonModule::is(node, "assignment") || PythonModule::is(node, "augmented_assignment")) {
      const TSNode left = PythonModule::field(node, "left");
      if (PythonModule::is(left, "identifier") && PythonModule::is(node, "assignment")) {
        Binding binding;
        binding.offset = PythonModule::begin(left);
        binding.assignment = node;
        binding.has_assignment = true;
        out.emplace_back(std::string(module_.text(left)), binding);
      } else {
        add_targets(left, out);
      }
    } else if (PythonModule::is(node, "for_statement") || PythonModule::is(node, "for_in_clause")) {
      add_targets(PythonModule::field(node, "left"), out);
    } else if (PythonModule::is(node, "as_pattern")) {
      const TSNode alias = PythonModule::field(node, "alias");
      for (const TSNode part : PythonModule::named_children(alias))
        add_targets(part, out);
      if (PythonModule::is(alias, "identifier"))
        add_targets(alias, out);
    } else if (PythonModule::is(node, "named_expression")) {
      add_targets(PythonModule::field(node, "name"), out);
    } else if (PythonModule::is(node, "aliased_import")) {
      add_targets(PythonModule::field(node, "alias"), out);
    } else if (PythonModule::is(node, "import_statement") ||
               PythonModule::is(node, "import_from_statement")) {
      for (const TSNode name : PythonModule::named_children(node)) {
        if (PythonModule::is(name, "aliased_import")) {
          add_targets(PythonModule::field(name, "alias"), out);
        } else if (PythonModule::is(name, "dotted_name") &&
                   !(PythonModule::is(node, "import_from_statement") &&
                     ts_node_eq(name, PythonModule::field(node, "module_name")))) {
          // `import a.b` binds a; `from m import b` binds b.
          const TSNode first = ts_node_named_child(name, 0);
          const TSNode last = ts_node_named_child(name, ts_node_named_child_count(name) - 1);
          add_targets(PythonModule::is(node, "import_statement") ? first : last, out);
        }
      }
      return;
    }
    const uint32_t count = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < count; ++i)
      walk(ts_node_named_child(node, i), out, depth + 1);
  }

  const PythonModule &module_;
};

} // namespace

// Whether an assignment's value is a device choice, and of which kind.
PythonModule::DeviceChoice PythonModule::classify_device_choice(TSNode assignment) const {
  DeviceChoice choice;
  TSNode value = field(assignment, "right");
  // `torch.device(<selection>)` is a torch.device chosen by the selection.
  bool device_call = false;
  if (is_torch_device_call(value)) {
    device_call = true;
    const auto arguments = call_arguments(value);
    if (arguments && arguments->size() == 1 && !is(arguments->front(), "keyword_argument"))
      value = arguments->front();
  }
  TSNode first_choice = value;
  bool cuda_test = false;
  if (is(value, "conditional_expression")) {
    const auto parts = named_children(value);
    if (parts.size() == 3) {
      first_choice = parts[0];
      const std::string_view condition = text(parts[1]);
      cuda_test = (condition.find("cuda") != std::string_view::npos ||
                   condition.find("accelerator") != std::string_view::npos) &&
                  condition.find("is_available") != std::string_view::npos &&
                  condition.find("not ") == std::string_view::npos;
    }
  } else {
    // `device = torch.device("cuda")` inside `if torch.cuda.is_available():`.
    for (TSNode parent = ts_node_parent(assignment); !ts_node_is_null(parent);
         parent = ts_node_parent(parent)) {
      if (is(parent, "block")) {
        const TSNode clause = ts_node_parent(parent);
        if ((is(clause, "if_statement") || is(clause, "elif_clause")) &&
            ts_node_eq(field(clause, "consequence"), parent)) {
          const std::string_view condition = text(field(clause, "condition"));
          cuda_test = condition.find("cuda.is_available") != std::string_view::npos &&
                      condition.find("not ") == std::string_view::npos;
        }
        break;
      }
    }
  }
  const bool first_is_cuda = !cuda_literals(first_choice).empty() ||
                             text(first_choice).find("current_accelerator") != std::string_view::npos;
  choice.device_like = device_call || is_torch_device_call(first_choice) ||
                       text(first_choice).find("current_accelerator()") != std::string_view::npos ||
                       (is_string(first_choice) && (first_is_cuda || cuda_test));
  if (!choice.device_like)
    return choice;
  choice.cuda_first = cuda_test && first_is_cuda;
  if (device_call || is_torch_device_call(first_choice) ||
      (text(first_choice).find("current_accelerator()") != std::string_view::npos &&
       text(first_choice).find(".type") == std::string_view::npos))
    choice.type = DeviceRef::Type::TorchDevice;
  else if (is_string(first_choice) || text(first_choice).find(".type") != std::string_view::npos)
    choice.type = DeviceRef::Type::String;
  return choice;
}

// One binding of a device candidate, classified once.
struct PythonModule::CandidateBinding {
  std::size_t offset = 0;
  bool parameter = false;
  bool has_assignment = false;
  DeviceChoice choice; // of the assignment, when there is one
};

// The names of one scope that may hold a device (`device`, or a name bound
// by a device choice), `device` first, each with its bindings in order.
struct PythonModule::ScopeDevices {
  std::vector<std::pair<std::string, std::vector<CandidateBinding>>> candidates;
};

// Scopes are read once per module, not once per use: a file with thousands
// of findings asks about the same scope thousands of times.
struct PythonModule::ScopeCache {
  std::map<const void *, ScopeDevices> by_scope;
};

const PythonModule::ScopeDevices &PythonModule::scope_devices(TSNode scope) const {
  if (!scope_cache_)
    scope_cache_ = std::make_unique<ScopeCache>();
  const auto cached = scope_cache_->by_scope.find(scope.id);
  if (cached != scope_cache_->by_scope.end())
    return cached->second;
  std::vector<std::pair<std::string, Binding>> bindings;
  ScopeReader(*this).read_scope(scope, bindings);
  std::vector<CandidateBinding> classified(bindings.size());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const auto &[name, binding] = bindings[i];
    classified[i] = {binding.offset, binding.parameter, binding.has_assignment, {}};
    if (binding.has_assignment)
      classified[i].choice = classify_device_choice(binding.assignment);
    if ((name == "device" || classified[i].choice.device_like) &&
        std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  std::stable_sort(names.begin(), names.end(),
                   [](const std::string &a, const std::string &b) { return a == "device" && b != "device"; });
  ScopeDevices devices;
  for (const auto &name : names) {
    auto &candidate = devices.candidates.emplace_back(name, std::vector<CandidateBinding>{});
    for (std::size_t i = 0; i < bindings.size(); ++i)
      if (bindings[i].first == name)
        candidate.second.push_back(classified[i]);
  }
  return scope_cache_->by_scope.emplace(scope.id, std::move(devices)).first->second;
}

// Looks for a device variable among one scope's candidates. `ordered`: the
// binding must come before the use (module level, or the use's function).
bool PythonModule::find_scope_device(const ScopeDevices &scope, bool ordered, std::size_t use_offset,
                                     DeviceRef &found) {
  for (const auto &[name, bindings] : scope.candidates) {
    const auto usable = std::find_if(bindings.begin(), bindings.end(), [&](const CandidateBinding &binding) {
      return binding.parameter || !ordered || binding.offset < use_offset;
    });
    if (usable == bindings.end()) {
      if (name == "device") {
        found.blocked = "`device` is assigned only after this line in its scope";
        return true;
      }
      continue;
    }
    found.name = name;
    if (usable->has_assignment) {
      if (usable->choice.device_like) {
        found.cuda_first = usable->choice.cuda_first;
        found.type = usable->choice.type;
      }
      // Several assignments: the kind is only known when they agree.
      for (const auto &other : bindings)
        if (other.has_assignment && other.offset != usable->offset && other.choice.type != found.type)
          found.type = DeviceRef::Type::Unknown;
    }
    return true;
  }
  return false;
}

DeviceRef PythonModule::device_for(TSNode use) const {
  DeviceRef result;
  if (!tree_) {
    result.blocked = "the file could not be parsed";
    return result;
  }
  const std::size_t use_offset = begin(use);
  // Enclosing functions, innermost first, then the module.
  bool in_function = false;
  for (TSNode scope = use; !ts_node_is_null(scope); scope = ts_node_parent(scope)) {
    if (!is(scope, "function_definition"))
      continue;
    const bool innermost = !in_function;
    in_function = true;
    if (find_scope_device(scope_devices(scope), innermost, use_offset, result))
      return result;
  }
  if (find_scope_device(scope_devices(root()), !in_function, use_offset, result))
    return result;

  // None in scope: fix adds one after the imports.
  if (!in_function && use_offset < prelude_offset_) {
    result.blocked = "module-level code above where a device variable can be added";
    return result;
  }
  result.name = "device";
  result.type = DeviceRef::Type::TorchDevice;
  result.introduced = true;
  return result;
}

TextEdit PythonModule::append_argument(TSNode call, const std::string &argument) const {
  TextEdit edit;
  const TSNode list = field(call, "arguments");
  const auto arguments = named_children(list);
  if (arguments.empty()) {
    edit.begin = edit.end = begin(list) + 1; // just inside `(`
    edit.replacement = argument;
  } else {
    edit.begin = edit.end = end(arguments.back());
    edit.replacement = ", " + argument;
  }
  return edit;
}

std::string PythonModule::device_type_expression(const DeviceRef &device) const {
  if (device.type == DeviceRef::Type::TorchDevice)
    return device.name + ".type";
  return torch() + ".device(" + device.name + ").type";
}

} // namespace mpsaudit
