// MPS203: a device selection that only knows CUDA gets an MPS branch before
// its CPU fallback (or a torch.accelerator branch when the target release
// has it, 2.6+). The CUDA branch comes first and is kept as written, so on
// a CUDA machine the same device is chosen: a safe fix.
//
//   "cuda" if torch.cuda.is_available() else "cpu"
//   -> "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
//   "cuda" if "cuda" in device else "cpu"          (the user's choice, asked again)
//   -> "cuda" if "cuda" in device else "mps" if "mps" in device else "cpu"
//
//   if torch.cuda.is_available():        if torch.cuda.is_available():
//       device = torch.device("cuda")        device = torch.device("cuda")
//   else:                          ->    elif torch.backends.mps.is_available():
//       device = torch.device("cpu")         device = torch.device("mps")
//                                        else:
//                                            device = torch.device("cpu")
#include <algorithm>

#include "fix/python_module.h"

namespace mpsaudit {
namespace {

// The CUDA choice rewritten for the other branch: every CUDA literal becomes
// "mps" (or the current accelerator). Empty when the choice does more than
// name a device (it still mentions CUDA afterwards).
std::string other_choice(const PythonModule &module, TSNode choice, std::size_t from, std::size_t to,
                         bool accelerator) {
  const std::string t = module.torch();
  std::vector<TextEdit> edits;
  for (const TSNode literal : module.cuda_literals(choice)) {
    TextEdit edit;
    edit.begin = PythonModule::begin(literal) - from;
    edit.end = PythonModule::end(literal) - from;
    if (!accelerator) {
      edit.replacement = module.literal_like(literal, "mps");
    } else {
      // torch.device("cuda") becomes the accelerator's device; a bare
      // "cuda" string its type name.
      const TSNode list = ts_node_parent(literal);
      const TSNode call = ts_node_is_null(list) ? list : ts_node_parent(list);
      if (PythonModule::is(list, "argument_list") && module.is_torch_device_call(call) &&
          PythonModule::named_children(list).size() == 1 && PythonModule::begin(call) >= from &&
          PythonModule::end(call) <= to) {
        edit.begin = PythonModule::begin(call) - from;
        edit.end = PythonModule::end(call) - from;
        edit.replacement = t + ".accelerator.current_accelerator()";
      } else {
        edit.replacement = t + ".accelerator.current_accelerator().type";
      }
    }
    edits.push_back(std::move(edit));
  }
  if (edits.empty())
    return {};
  // `from`/`to` may be wider than the choice (whole lines of a block).
  const std::string rewritten = apply_edits(module.source().substr(from, to - from), edits);
  // Whatever else the branch does with CUDA cannot be copied to MPS.
  if (rewritten.find("cuda") != std::string::npos)
    return {};
  return rewritten;
}

std::string availability_test(const PythonModule &module) {
  const std::string t = module.torch();
  return module.use_accelerator() ? t + ".accelerator.is_available()" : t + ".backends.mps.is_available()";
}

// The MPS branch's test. A condition that reads the user's choice
// (`"cuda" in device`, `args.device == "cuda"`) is asked the same of "mps",
// so that a CPU chosen on a Mac stays the CPU; a CUDA availability test
// becomes MPS availability. Empty when the condition mixes the two.
std::string mps_test(const PythonModule &module, TSNode condition) {
  const std::vector<TSNode> literals = module.cuda_literals(condition);
  if (literals.empty())
    return availability_test(module);
  const std::size_t from = PythonModule::begin(condition);
  std::string test(module.text(condition));
  for (auto literal = literals.rbegin(); literal != literals.rend(); ++literal)
    test.replace(PythonModule::begin(*literal) - from,
                 PythonModule::end(*literal) - PythonModule::begin(*literal),
                 module.literal_like(*literal, "mps"));
  return test.find("cuda") == std::string::npos ? test : std::string();
}

// Whether the branch chooses the current accelerator (2.6+): only after an
// availability test; a test of the user's choice names "mps" itself.
bool accelerator_branch(const PythonModule &module, TSNode condition) {
  return module.use_accelerator() && module.cuda_literals(condition).empty();
}

FixOutcome fix_conditional(PythonModule &module, TSNode expression, TSNode condition) {
  const auto parts = PythonModule::named_children(expression);
  if (parts.size() != 3 || !ts_node_eq(parts[1], condition))
    return FixOutcome::none("not a `a if cond else b` selection");
  if (module.cuda_literals(parts[0]).empty())
    return FixOutcome::none("the CUDA device is not the first choice of the selection");
  const std::string test = mps_test(module, condition);
  if (test.empty())
    return FixOutcome::none("the condition tests both CUDA's availability and a CUDA name");
  const std::string choice = other_choice(module, parts[0], PythonModule::begin(parts[0]),
                                          PythonModule::end(parts[0]), accelerator_branch(module, condition));
  if (choice.empty())
    return FixOutcome::none("the CUDA branch does more than name a device");
  PlannedFix fix;
  TextEdit edit;
  edit.begin = edit.end = PythonModule::begin(parts[2]);
  edit.replacement = choice + " if " + test + " else ";
  fix.edits.push_back(std::move(edit));
  fix.description = module.use_accelerator()
                        ? "device selection: add a torch.accelerator branch before the CPU"
                        : "device selection: add an MPS branch before the CPU";
  fix.needs_torch_import = module.torch_binding().empty();
  return FixOutcome::with(std::move(fix));
}

FixOutcome fix_if_statement(PythonModule &module, TSNode clause, TSNode statement) {
  const TSNode body = PythonModule::field(clause, "consequence");
  if (ts_node_is_null(body))
    return FixOutcome::none("the CUDA branch has no body");
  if (module.cuda_literals(body).empty())
    return FixOutcome::none("the CUDA branch names no CUDA device");
  // The clause header and its body on one line: `if cond: device = "cuda"`.
  const bool inline_body = ts_node_start_point(body).row == ts_node_start_point(clause).row;
  const std::string indent = module.line_indent(PythonModule::begin(statement));
  const std::string &nl = module.newline();
  const std::size_t from =
      inline_body ? PythonModule::begin(body) : module.line_start(PythonModule::begin(body));
  const std::size_t to = PythonModule::end(body);
  const TSNode condition = PythonModule::field(clause, "condition");
  const std::string test = mps_test(module, condition);
  if (test.empty())
    return FixOutcome::none("the condition tests both CUDA's availability and a CUDA name");
  const std::string branch = other_choice(module, body, from, to, accelerator_branch(module, condition));
  if (branch.empty())
    return FixOutcome::none("the CUDA branch does more than choose a device");
  const std::string header = indent + "elif " + test + ":";
  const std::string inserted = inline_body ? header + " " + branch + nl : header + nl + branch + nl;

  // Before `else:`, or after the last clause when there is none.
  TSNode else_clause{};
  bool has_else = false;
  for (const TSNode child : PythonModule::named_children(statement))
    if (PythonModule::is(child, "else_clause")) {
      else_clause = child;
      has_else = true;
    }
  TextEdit edit;
  if (has_else) {
    if (module.line_indent(PythonModule::begin(else_clause)).size() !=
        PythonModule::begin(else_clause) - module.line_start(PythonModule::begin(else_clause)))
      return FixOutcome::none("`else` does not start its line");
    edit.begin = edit.end = module.line_start(PythonModule::begin(else_clause));
  } else {
    std::size_t after = PythonModule::end(statement);
    const std::string_view rest = module.text(module.root()).substr(after);
    const auto newline = rest.find('\n');
    after = newline == std::string_view::npos ? after + rest.size() : after + newline + 1;
    edit.begin = edit.end = after;
    if (newline == std::string_view::npos)
      edit.replacement = nl;
  }
  edit.replacement += inserted;
  PlannedFix fix;
  fix.edits.push_back(std::move(edit));
  fix.description = module.use_accelerator() ? "device selection: add an `elif torch.accelerator` branch"
                                             : "device selection: add an `elif` MPS branch";
  fix.needs_torch_import = module.torch_binding().empty();
  return FixOutcome::with(std::move(fix));
}

FixOutcome plan(FixContext &context, const Finding &finding) {
  PythonModule &module = context.python();
  const auto condition = module.node_at(finding.span);
  if (!condition)
    return FixOutcome::none("the selection's condition was not found");
  const TSNode parent = ts_node_parent(*condition);
  if (PythonModule::is(parent, "conditional_expression"))
    return fix_conditional(module, parent, *condition);
  if (PythonModule::is(parent, "if_statement") &&
      ts_node_eq(PythonModule::field(parent, "condition"), *condition))
    return fix_if_statement(module, parent, parent);
  if (PythonModule::is(parent, "elif_clause") &&
      ts_node_eq(PythonModule::field(parent, "condition"), *condition))
    return fix_if_statement(module, parent, ts_node_parent(parent));
  return FixOutcome::none("the CUDA test is part of a larger condition");
}

} // namespace

void register_device_selection_fix(FixRegistry &registry) {
  registry.add("device-selection", {FileKind::Python}, plan);
}

} // namespace mpsaudit
