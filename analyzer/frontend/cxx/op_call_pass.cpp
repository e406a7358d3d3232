#include "frontend/cxx/op_call_pass.h"

#include <map>
#include <string>

#include "core/compiled_op.h"
#include "frontend/cxx/fact_access.h"
#include "frontend/cxx/vocabulary.h"

namespace mpsaudit {
namespace {

using cxx::attribute_or;
using cxx::last_component;

// A dispatch that tests a tensor's device at run time and has a CPU arm
// (MPS843). One decided by #if alone (`get_cuda_version`) need not take tensors.
bool is_cpu_fallback_dispatch(const Fact &fact) {
  return fact.kind == cxx::kind::DeviceDispatch && attribute_or(fact, "cpu_fallback") == "true" &&
         attribute_or(fact, "runtime") == "true";
}

struct Dispatch {
  std::string function;   // the dispatching C++ function
  std::string at;         // "csrc/op.h:22"
  std::string cpu_target; // what the CPU arm runs
};

struct Binding {
  std::string ns;
  std::string function; // last component of the bound C++ function
};

// What a call of an op name reaches, when every registration of that name
// (in the call's namespace) binds a dispatch with a CPU arm.
class OpDispatchIndex {
public:
  void add_cxx_fact(const Fact &fact, const std::string &path) {
    if (is_cpu_fallback_dispatch(fact))
      dispatches_.emplace(fact.name, Dispatch{fact.name, path + ":" + std::to_string(fact.span.line),
                                              attribute_or(fact, "cpu_target")});
    else if (fact.kind == cxx::kind::OpRegistration && fact.attribute("function"))
      bindings_.emplace(attribute_or(fact, "op"), Binding{attribute_or(fact, "namespace"),
                                                          last_component(*fact.attribute("function"))});
  }

  // The dispatch a call of `name` reaches (the first binding's), if every
  // candidate binding has one; null otherwise.
  const Dispatch *reached_by(const CompiledOpName &name) const {
    const Dispatch *reached = nullptr;
    const auto [begin, end] = bindings_.equal_range(name.op);
    for (auto it = begin; it != end; ++it) {
      if (!name.ns.empty() && it->second.ns != name.ns)
        continue;
      const auto dispatch = dispatches_.find(it->second.function);
      if (dispatch == dispatches_.end())
        return nullptr;
      if (!reached)
        reached = &dispatch->second;
    }
    return reached;
  }

private:
  std::map<std::string, Dispatch> dispatches_;   // function -> where it tests the device
  std::multimap<std::string, Binding> bindings_; // op -> the functions registered for it
};

// A call without arguments passes no tensor; one with a `.cpu()` argument
// already moves its inputs.
bool passes_no_mps_tensor(const Fact &call) {
  if (call.arguments.empty())
    return true;
  for (const Argument &argument : call.arguments)
    if (argument.text.find(".cpu()") != std::string::npos)
      return true;
  return false;
}

} // namespace

void find_cpu_dispatched_op_calls(std::vector<ProjectFile> &files) {
  OpDispatchIndex index;
  for (const auto &file : files)
    if (is_cxx_code(file.kind))
      for (const auto &fact : file.facts.facts)
        index.add_cxx_fact(fact, file.path);

  for (auto &file : files) {
    if (!is_python_code(file.kind))
      continue;
    std::vector<Fact> added;
    for (const Fact &fact : file.facts.facts) {
      if (!is_compiled_op_call(fact) || fact.guard == Guard::CudaCheck || passes_no_mps_tensor(fact))
        continue;
      const Dispatch *reached = index.reached_by(compiled_op_name(fact));
      if (!reached)
        continue;
      Fact note = fact_at(fact, std::string(kCpuDispatchedOpCallFact), fact.name);
      note.set_attribute("function", reached->function);
      note.set_attribute("dispatch_at", reached->at);
      note.set_attribute("cpu_target", reached->cpu_target);
      added.push_back(std::move(note));
    }
    append_facts(file, std::move(added));
  }
}

FactRetention op_call_retention(const Fact &fact) {
  if (fact.kind == fact_kind::Call)
    return is_compiled_op_call(fact) ? FactRetention::Keep : FactRetention::Drop;
  if (fact.kind == cxx::kind::OpRegistration || is_cpu_fallback_dispatch(fact))
    return FactRetention::Keep;
  return FactRetention::Drop;
}

} // namespace mpsaudit
