#include "probe_engine.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>

#include "input_recipes.h"
#include "output_compare.h"

namespace mpsaudit::probe {

namespace {

using c10::IValue;

constexpr std::uint64_t kInputSeed = 20240229;
constexpr int kMaxOverloads = 8;

// One way of building inputs: the rank of the main tensor, and whether index
// tensors are 1-D (index_select) or shaped like the main tensor (gather).
struct InputPlan {
  std::vector<int64_t> shape;
  bool index_like_main = false;
  const InputRecipe *recipe = nullptr; // arguments it names come from the recipe
};

const std::vector<InputPlan> &input_plans() {
  static const std::vector<InputPlan> plans = [] {
    std::vector<InputPlan> result;
    for (const std::vector<int64_t> &shape :
         std::vector<std::vector<int64_t>>{{2, 3, 4, 4}, {4, 4}, {2, 4, 4}, {4}, {2, 3, 4, 4, 4}})
      for (bool index_like_main : {false, true})
        result.push_back({shape, index_like_main});
    return result;
  }();
  return plans;
}

// The operator's recipe first (when it has one), then the generic plans.
std::vector<InputPlan> plans_for(const std::string &aten_name) {
  std::vector<InputPlan> plans;
  if (const InputRecipe *recipe = input_recipe(aten_name))
    plans.push_back({recipe->main_shape, false, recipe});
  const std::vector<InputPlan> &generic = input_plans();
  plans.insert(plans.end(), generic.begin(), generic.end());
  return plans;
}

bool has_name(const std::string &name, std::initializer_list<const char *> names) {
  return std::any_of(names.begin(), names.end(), [&](const char *n) { return name == n; });
}

std::string first_line(const std::string &message) {
  std::string line = message.substr(0, message.find('\n'));
  if (line.size() > 400)
    line = line.substr(0, 400) + "...";
  return line;
}

// Builds one argument's value, or returns nullopt when the engine does not
// know how (the overload is then skipped). `device` is where tensors and
// `device=` arguments go; inputs are always made on the CPU first, from a
// seeded generator, so that every run sees the same values.
class ArgumentBuilder {
public:
  ArgumentBuilder(const InputPlan &plan, at::ScalarType float_type) : plan_(plan), float_type_(float_type) {}

  std::optional<IValue> build(const c10::Argument &argument) const {
    if (plan_.recipe) {
      auto made = plan_.recipe->arguments.find(argument.name());
      if (made != plan_.recipe->arguments.end())
        return made->second(argument, float_type_);
    }
    const c10::TypePtr &type = argument.type();
    if (argument.default_value()) {
      // Optional tensors and most knobs have defaults; use them, except that
      // `device=None` would send a factory's output to the CPU.
      if (argument.name() == "device")
        return IValue(kDevicePlaceholder());
      // clamp(min=None, max=None) rejects both missing.
      if (argument.name() == "min" && argument.default_value()->isNone())
        return IValue(-0.5);
      return *argument.default_value();
    }
    if (type->kind() == c10::TypeKind::OptionalType) {
      auto element = type->castRaw<c10::OptionalType>()->getElementType();
      // Optional inputs without a default (bias, running_mean) stay None:
      // their shapes depend on the other inputs, and None is always accepted.
      if (argument.name() == "output_size" || argument.name() == "device")
        return build_value(argument, element);
      return IValue(); // None
    }
    return build_value(argument, type);
  }

  // Placeholder device, replaced with the run's device by to_device().
  static c10::Device kDevicePlaceholder() { return c10::Device(c10::DeviceType::CPU); }

private:
  at::Tensor floating(const std::vector<int64_t> &shape) const {
    return at::randn(shape, at::TensorOptions().dtype(float_type_));
  }

  at::Tensor index_tensor(const std::vector<int64_t> &shape) const {
    return at::randint(0, 2, shape, at::TensorOptions().dtype(at::kLong));
  }

  std::vector<int64_t> spatial_list(const c10::Argument &argument, int64_t value) const {
    int64_t count =
        argument.N() ? *argument.N() : std::max<int64_t>(1, static_cast<int64_t>(plan_.shape.size()) - 2);
    return std::vector<int64_t>(static_cast<std::size_t>(count), value);
  }

  std::optional<IValue> build_tensor(const std::string &name) const {
    const std::vector<int64_t> &shape = plan_.shape;
    if (has_name(name, {"index", "indices"})) {
      if (plan_.index_like_main)
        return IValue(index_tensor(shape)); // gather: repeats are fine when only reading
      // index_copy/index_put with a repeated index write one slot twice, in an
      // order that differs between devices; distinct indices keep it comparable.
      return IValue(at::arange(2, at::TensorOptions().dtype(at::kLong)));
    }
    if (has_name(name, {"target", "labels"})) {
      if (!plan_.index_like_main || shape.size() < 2)
        return IValue(index_tensor({shape[0]}));
      std::vector<int64_t> without_classes = shape;
      without_classes.erase(without_classes.begin() + 1);
      return IValue(index_tensor(without_classes));
    }
    if (name == "mask")
      return IValue(at::randn(shape) > 0);
    if (name == "grid" && shape.size() >= 4) {
      std::vector<int64_t> grid_shape = {shape[0]};
      grid_shape.insert(grid_shape.end(), shape.begin() + 2, shape.end());
      grid_shape.push_back(static_cast<int64_t>(shape.size()) - 2);
      return IValue(at::rand(grid_shape, at::TensorOptions().dtype(float_type_)) * 2 - 1);
    }
    return IValue(floating(shape));
  }

  std::optional<IValue> build_value(const c10::Argument &argument, const c10::TypePtr &type) const {
    const std::string &name = argument.name();
    const std::vector<int64_t> &shape = plan_.shape;
    auto rank = static_cast<int64_t>(shape.size());
    switch (type->kind()) {
    case c10::TypeKind::TensorType:
      return build_tensor(name);
    case c10::TypeKind::IntType:
      if (name == "dtype")
        return IValue(static_cast<int64_t>(float_type_));
      if (has_name(name, {"dim", "dim0", "start_dim"}))
        return IValue(int64_t{0});
      if (has_name(name, {"dim1", "end_dim"}))
        return IValue(std::min<int64_t>(1, rank - 1));
      if (has_name(name, {"chunks", "split_size", "sections", "n", "size", "num_classes"}))
        return IValue(int64_t{2});
      if (has_name(name, {"interpolation_mode", "padding_mode", "diagonal", "offset"}))
        return IValue(int64_t{0});
      if (name == "reduction")
        return IValue(int64_t{1}); // mean
      if (name == "ignore_index")
        return IValue(int64_t{-100});
      return IValue(int64_t{1});
    case c10::TypeKind::FloatType:
      if (name == "eps")
        return IValue(1e-5);
      if (name == "momentum")
        return IValue(0.1);
      return IValue(0.5);
    case c10::TypeKind::BoolType:
      return IValue(has_name(name, {"training", "train"}));
    case c10::TypeKind::NumberType:
      return IValue(int64_t{name == "exponent" ? 2 : 1});
    case c10::TypeKind::StringType:
      if (name == "reduce")
        return IValue(std::string("sum"));
      if (name == "approximate")
        return IValue(std::string("none"));
      if (name == "equation") // einsum over the two tensors of a Tensor[] argument
        return IValue(std::string("...,...->..."));
      return std::nullopt;
    case c10::TypeKind::DeviceObjType:
      return IValue(kDevicePlaceholder());
    case c10::TypeKind::ListType: {
      auto element = type->castRaw<c10::ListType>()->getElementType();
      if (element->kind() == c10::TypeKind::IntType) {
        if (has_name(name, {"kernel_size", "stride", "dilation"}))
          return IValue(spatial_list(argument, 1));
        if (has_name(name, {"padding", "output_padding"}))
          return IValue(spatial_list(argument, 0));
        if (name == "output_size")
          return IValue(spatial_list(argument, 8));
        if (has_name(name, {"size", "sizes", "shape"}))
          return IValue(shape);
        if (has_name(name, {"dims", "perm"})) {
          std::vector<int64_t> identity;
          for (int64_t i = 0; i < rank; ++i)
            identity.push_back(i);
          return IValue(identity);
        }
        if (name == "normalized_shape")
          return IValue(std::vector<int64_t>{shape.back()});
        if (name == "repeats")
          return IValue(std::vector<int64_t>(shape.size(), 1));
        if (name == "pad")
          return IValue(std::vector<int64_t>{1, 1});
        if (name == "dim")
          return IValue(std::vector<int64_t>{0});
        return IValue(spatial_list(argument, 1));
      }
      if (element->kind() == c10::TypeKind::FloatType)
        return IValue(std::vector<double>(argument.N() ? static_cast<std::size_t>(*argument.N())
                                                       : shape.size() - 2 + (shape.size() < 2 ? 2 : 0),
                                          2.0));
      if (element->kind() == c10::TypeKind::BoolType)
        return IValue(std::vector<bool>(argument.N() ? static_cast<std::size_t>(*argument.N()) : 1, true));
      if (element->kind() == c10::TypeKind::TensorType) {
        c10::List<at::Tensor> tensors;
        tensors.push_back(floating(shape));
        tensors.push_back(floating(shape));
        return IValue(tensors);
      }
      if (element->kind() == c10::TypeKind::OptionalType) {
        c10::List<c10::optional<at::Tensor>> indices;
        indices.push_back(index_tensor({2}));
        return IValue(indices);
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
    }
  }

  const InputPlan &plan_;
  at::ScalarType float_type_;
};

IValue to_device(const IValue &value, const c10::Device &device) {
  if (value.isTensor())
    return IValue(value.toTensor().to(device));
  if (value.isDevice())
    return IValue(device);
  if (value.isTensorList()) {
    c10::List<at::Tensor> moved;
    for (at::Tensor tensor : value.toTensorList()) // by value: c10::List yields proxies
      moved.push_back(tensor.to(device));
    return IValue(moved);
  }
  if (value.isList()) {
    // Tensor?[] (index): a generic list of optional tensors.
    auto list = value.toList();
    bool holds_tensors = false;
    for (IValue element : list)
      holds_tensors |= element.isTensor();
    if (holds_tensors) {
      c10::List<c10::optional<at::Tensor>> moved;
      for (IValue element : list)
        moved.push_back(element.isTensor() ? c10::optional<at::Tensor>(element.toTensor().to(device))
                                           : c10::nullopt);
      return IValue(moved);
    }
  }
  return value;
}

// Every tensor in a call's outputs as a CPU copy of its own (an output may
// alias a buffer a later call reuses), scalars as 0-d tensors.
void collect_outputs(const IValue &value, std::vector<at::Tensor> &out) {
  if (value.isTensor()) {
    const at::Tensor &tensor = value.toTensor();
    out.push_back(tensor.defined() ? tensor.to(at::kCPU).clone() : tensor);
  } else if (value.isTensorList()) {
    for (at::Tensor tensor : value.toTensorList()) // by value: c10::List yields proxies
      out.push_back(tensor.to(at::kCPU).clone());
  } else if (value.isTuple()) {
    for (const IValue &element : value.toTuple()->elements())
      collect_outputs(element, out);
  } else if (value.isList()) {
    for (IValue element : value.toList())
      collect_outputs(element, out);
  } else if (value.isDouble()) {
    out.push_back(at::scalar_tensor(value.toDouble(), at::kDouble));
  } else if (value.isInt()) {
    out.push_back(at::scalar_tensor(value.toInt(), at::kLong));
  } else if (value.isBool()) {
    out.push_back(at::scalar_tensor(value.toBool(), at::kBool));
  }
}

// Bit-for-bit equality of two runs' outputs (the CPU's determinism check).
bool identical_outputs(const std::vector<at::Tensor> &first, const std::vector<at::Tensor> &second) {
  if (first.size() != second.size())
    return false;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const at::Tensor &a = first[i];
    const at::Tensor &b = second[i];
    if (a.defined() != b.defined())
      return false;
    if (!a.defined() || a.layout() != at::kStrided || b.layout() != at::kStrided)
      continue;
    if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type())
      return false;
    if (a.numel() == 0)
      continue;
    if (a.is_floating_point() || a.is_complex()) {
      if (!at::isclose(a, b, 0.0, 0.0, /*equal_nan=*/true).all().item<bool>())
        return false;
    } else if (!at::equal(a, b)) {
      return false;
    }
  }
  return true;
}

struct CallOutcome {
  bool ok = false;
  bool not_implemented_type = false;
  std::string message;
  std::vector<at::Tensor> outputs;
};

CallOutcome call_boxed(const c10::OperatorHandle &op, std::vector<IValue> stack, std::uint64_t rng_seed) {
  CallOutcome outcome;
  try {
    at::manual_seed(rng_seed);
    op.callBoxed(&stack);
    for (const IValue &value : stack)
      collect_outputs(value, outcome.outputs);
    outcome.ok = true;
  } catch (const c10::NotImplementedError &error) {
    outcome.not_implemented_type = true;
    outcome.message = first_line(error.what_without_backtrace());
  } catch (const c10::Error &error) {
    outcome.message = first_line(error.what_without_backtrace());
  } catch (const std::exception &error) {
    outcome.message = first_line(error.what());
  }
  return outcome;
}

bool writes_non_self(const c10::FunctionSchema &schema) {
  for (const c10::Argument &argument : schema.arguments())
    if (argument.alias_info() && argument.alias_info()->isWrite() && argument.name() != "self")
      return true;
  return false;
}

bool uses_unbuildable_types(const c10::FunctionSchema &schema) {
  for (const c10::Argument &argument : schema.arguments()) {
    std::string type = argument.type()->str();
    if (type.find("Dimname") != std::string::npos || type.find("Storage") != std::string::npos ||
        type.find("Stream") != std::string::npos)
      return true;
  }
  return false;
}

// The overloads of `aten_name` a Python call can reach, default first.
std::vector<c10::OperatorHandle> callable_overloads(const std::string &aten_name) {
  const InputRecipe *recipe = input_recipe(aten_name);
  std::string preferred = recipe ? recipe->preferred_overload : std::string();
  std::vector<std::pair<std::string, c10::OperatorHandle>> found;
  std::string qualified = "aten::" + aten_name;
  for (const c10::OperatorName &name : c10::Dispatcher::singleton().getAllOpNames()) {
    if (name.name != qualified)
      continue;
    auto handle = c10::Dispatcher::singleton().findSchema(name);
    if (!handle || writes_non_self(handle->schema()) || uses_unbuildable_types(handle->schema()))
      continue;
    found.emplace_back(name.overload_name, *handle);
  }
  std::sort(found.begin(), found.end(), [&preferred](const auto &a, const auto &b) {
    auto rank = [&preferred](const std::string &overload) {
      if (!preferred.empty() && overload == preferred)
        return -1;
      return overload.empty() ? 0 : overload == "Tensor" || overload == "int" ? 1 : 2;
    };
    return std::make_pair(rank(a.first), a.first) < std::make_pair(rank(b.first), b.first);
  });
  std::vector<c10::OperatorHandle> handles;
  for (auto &entry : found)
    if (handles.size() < static_cast<std::size_t>(kMaxOverloads))
      handles.push_back(entry.second);
  return handles;
}

std::optional<std::vector<IValue>> build_stack(const c10::FunctionSchema &schema, const InputPlan &plan,
                                               at::ScalarType float_type) {
  at::manual_seed(kInputSeed);
  ArgumentBuilder builder(plan, float_type);
  std::vector<IValue> stack;
  for (const c10::Argument &argument : schema.arguments()) {
    auto value = builder.build(argument);
    if (!value)
      return std::nullopt;
    stack.push_back(std::move(*value));
  }
  return stack;
}

std::vector<IValue> stack_on(const std::vector<IValue> &stack, const c10::Device &device) {
  std::vector<IValue> moved;
  for (const IValue &value : stack)
    moved.push_back(to_device(value, device));
  return moved;
}

std::string overload_label(const c10::OperatorHandle &op) {
  const c10::OperatorName &name = op.operator_name();
  std::string label = name.name.substr(name.name.find("::") + 2);
  return name.overload_name.empty() ? label : label + "." + name.overload_name;
}

// The first (overload, plan) whose inputs the CPU accepts, and the CPU outputs.
struct AcceptedCall {
  c10::OperatorHandle op;
  InputPlan plan;
  CallOutcome reference;
  bool random_output = false;
};

std::optional<AcceptedCall> find_accepted_call(const std::string &aten_name,
                                               const std::vector<c10::OperatorHandle> &overloads,
                                               at::ScalarType float_type, int &attempts,
                                               std::string &last_error) {
  std::vector<InputPlan> plans = plans_for(aten_name);
  for (const c10::OperatorHandle &op : overloads) {
    for (const InputPlan &plan : plans) {
      auto stack = build_stack(op.schema(), plan, float_type);
      if (!stack) {
        last_error = overload_label(op) + ": no input builder for one of its argument types";
        break; // the types do not depend on the plan
      }
      ++attempts;
      CallOutcome reference = call_boxed(op, *stack, 1);
      if (!reference.ok) {
        last_error = overload_label(op) + ": " + reference.message;
        continue;
      }
      // A second CPU run with the same RNG seed tells nondeterministic ops
      // (threaded reductions, uninitialised outputs) apart, a third with
      // another seed random ones; neither can be compared across devices.
      CallOutcome same_seed = call_boxed(op, *build_stack(op.schema(), plan, float_type), 1);
      CallOutcome other_seed = call_boxed(op, *build_stack(op.schema(), plan, float_type), 2);
      bool random = !same_seed.ok || !other_seed.ok ||
                    !identical_outputs(reference.outputs, same_seed.outputs) ||
                    !identical_outputs(reference.outputs, other_seed.outputs);
      return AcceptedCall{op, plan, std::move(reference), random};
    }
  }
  return std::nullopt;
}

// What the comparison needs: the CPU inputs by argument name, both sides'
// outputs, and the schema's return names where they match the outputs.
ComparisonInput comparison_input_for(const std::string &aten_name, const c10::FunctionSchema &schema,
                                     const std::vector<IValue> &cpu_inputs,
                                     const std::vector<at::Tensor> &expected,
                                     const std::vector<at::Tensor> &actual) {
  ComparisonInput input;
  input.aten_name = aten_name;
  for (std::size_t i = 0; i < schema.arguments().size() && i < cpu_inputs.size(); ++i)
    input.arguments[schema.arguments()[i].name()] = cpu_inputs[i];
  input.expected = expected;
  input.actual = actual;
  if (schema.returns().size() == expected.size())
    for (const c10::Argument &output : schema.returns())
      input.output_names.push_back(output.name());
  return input;
}

// Full float32 precision for the comparison where the backend has a switch:
// CUDA runs float32 matmuls (cuBLAS) and convolutions (cuDNN) in TF32 when
// allowed. MPS has no such switch; there the reduced-precision tolerance of
// output_compare.h is the fallback, and verdicts say when it was used.
NumericsSetup set_up_numerics(const c10::Device &target) {
  NumericsSetup setup;
  if (target.type() == c10::DeviceType::CUDA) {
    at::globalContext().setAllowTF32CuBLAS(false);
    at::globalContext().setAllowTF32CuDNN(false);
    setup.tf32_cublas = at::globalContext().allowTF32CuBLAS();
    setup.tf32_cudnn = at::globalContext().allowTF32CuDNN();
    setup.note = std::string("TF32 turned off for the comparison: cuBLAS ") +
                 (*setup.tf32_cublas ? "still allows it" : "off") + ", cuDNN " +
                 (*setup.tf32_cudnn ? "still allows it" : "off") +
                 "; matmul and convolution results beyond the strict tolerance but within 5e-3 are reported "
                 "as within tolerance after reduced-precision adjustment (other algorithms, e.g. Winograd)";
  } else if (target.type() == c10::DeviceType::MPS) {
    setup.note = "MPS has no TF32 switch: matmul and convolution results beyond the strict tolerance but "
                 "within 5e-3 are reported as within tolerance after reduced-precision adjustment";
  } else {
    setup.note = "the target computes in full float32 like the CPU reference";
  }
  return setup;
}

} // namespace

std::optional<c10::Device> parse_target(const std::string &name) {
  if (name == "auto") {
    if (at::hasMPS())
      return c10::Device(c10::DeviceType::MPS);
    if (at::hasCUDA())
      return c10::Device(c10::DeviceType::CUDA, 0);
    return c10::Device(c10::DeviceType::CPU);
  }
  if (name == "cpu")
    return c10::Device(c10::DeviceType::CPU);
  if (name == "cuda")
    return c10::Device(c10::DeviceType::CUDA, 0);
  if (name == "mps")
    return c10::Device(c10::DeviceType::MPS, 0);
  if (name == "meta")
    return c10::Device(c10::DeviceType::Meta);
  return std::nullopt;
}

std::string target_name(const c10::Device &device) {
  return c10::DeviceTypeName(device.type(), /*lower_case=*/true);
}

std::string classify_error(const std::string &message, bool not_implemented_type) {
  if (not_implemented_type ||
      message.find("not currently implemented for the MPS device") != std::string::npos ||
      message.find("Could not run '") != std::string::npos ||
      message.find("DispatchStub: missing kernel") != std::string::npos ||
      message.find("missing kernel for") != std::string::npos)
    return "not-implemented";
  if (message.find("float64") != std::string::npos ||
      message.find("not implemented for '") != std::string::npos ||
      message.find("does not have support for that dtype") != std::string::npos ||
      message.find("Cannot convert a MPS Tensor to") != std::string::npos ||
      message.find("doesn't support") != std::string::npos ||
      message.find("not supported for") != std::string::npos)
    return "dtype-unsupported";
  return "error";
}

ProbeEngine::ProbeEngine(c10::Device target) : target_(target) {
  numerics_ = set_up_numerics(target);
}

LiveResult ProbeEngine::probe_operator(const std::string &aten_name) const {
  LiveResult result;
  auto overloads = callable_overloads(aten_name);
  if (overloads.empty()) {
    result.outcome = "not-found";
    result.message = "aten::" + aten_name + " has no overload this probe can call in this LibTorch";
    return result;
  }
  std::string last_error;
  auto accepted = find_accepted_call(aten_name, overloads, at::kFloat, result.attempts, last_error);
  if (!accepted) {
    result.outcome = "no-inputs";
    result.message = "no input set the CPU accepts; last error: " + last_error;
    return result;
  }
  result.overload = overload_label(accepted->op);
  result.random_output = accepted->random_output;
  if (accepted->plan.recipe)
    result.input_recipe = accepted->plan.recipe->family;
  auto stack = build_stack(accepted->op.schema(), accepted->plan, at::kFloat);
  CallOutcome on_target;
  try {
    on_target = call_boxed(accepted->op, stack_on(*stack, target_), 1);
  } catch (const std::exception &error) {
    on_target.message = first_line(error.what()); // moving the inputs failed
  }
  if (!on_target.ok) {
    result.outcome = classify_error(on_target.message, on_target.not_implemented_type);
    result.message = on_target.message;
    return result;
  }
  result.outcome = "ok";
  if (target_.type() == c10::DeviceType::Meta)
    return result; // meta tensors hold no values
  ComparisonInput comparison_input = comparison_input_for(aten_name, accepted->op.schema(), *stack,
                                                          accepted->reference.outputs, on_target.outputs);
  comparison_input.target_may_reduce_precision = target_.type() != c10::DeviceType::CPU;
  ComparisonResult comparison;
  try {
    comparison = accepted->random_output ? compare_random_outputs(comparison_input)
                                         : compare_operator_outputs(comparison_input);
  } catch (const std::exception &error) {
    // Outputs the comparison cannot read (an index out of range in a target's
    // output, say) are reported, never thrown, and never called a mismatch.
    comparison.verdict = "not-comparable";
    comparison.message = "the outputs could not be compared: " + first_line(error.what());
  }
  result.compared = !accepted->random_output;
  result.comparison = comparison.method;
  result.tolerance_class = comparison.tolerance_class;
  result.max_abs_diff = comparison.max_abs_error;
  result.max_rel_diff = comparison.max_rel_error;
  result.rtol = comparison.rtol;
  result.atol = comparison.atol;
  result.tolerance_adjusted = comparison.reduced_precision_adjusted;
  result.message = comparison.message;
  if (comparison.verdict == "mismatch")
    result.outcome = "numeric-mismatch";
  else if (comparison.verdict == "not-comparable")
    result.outcome = "not-comparable";
  return result;
}

LiveResult ProbeEngine::probe_float64() const {
  LiveResult result;
  result.overload = "empty.memory_format / _to_copy";
  try {
    at::Tensor created = at::empty({2}, at::TensorOptions().dtype(at::kDouble).device(target_));
    at::Tensor copied = at::ones({2}, at::kDouble).to(target_);
    result.outcome = "ok";
    result.message = "float64 tensors can be created on and copied to " + target_name(target_);
  } catch (const c10::Error &error) {
    result.message = first_line(error.what_without_backtrace());
    result.outcome = classify_error(result.message, false);
  } catch (const std::exception &error) {
    result.message = first_line(error.what());
    result.outcome = classify_error(result.message, false);
  }
  return result;
}

LiveResult ProbeEngine::probe_device_mismatch() const {
  LiveResult result;
  result.overload = "add.Tensor";
  try {
    at::Tensor on_target = at::ones({2, 3}, at::TensorOptions().device(target_));
    at::Tensor no_device = at::zeros({2, 3}); // like torch.zeros(2, 3): the default device
    at::Tensor sum = on_target + no_device;
    result.outcome = "ok";
    result.message = "a tensor made without a device combined with one on " + target_name(target_) +
                     " without error (result on " + sum.device().str() + ")";
  } catch (const c10::Error &error) {
    result.outcome = "error";
    result.message = first_line(error.what_without_backtrace());
  } catch (const std::exception &error) {
    result.outcome = "error";
    result.message = first_line(error.what());
  }
  return result;
}

DowncastMeasurement ProbeEngine::downcast_error(const std::string &aten_name) const {
  DowncastMeasurement measurement;
  auto overloads = callable_overloads(aten_name);
  int attempts = 0;
  std::string last_error;
  auto accepted = find_accepted_call(aten_name, overloads, at::kDouble, attempts, last_error);
  if (!accepted) {
    measurement.outcome = "no-inputs";
    measurement.message = overloads.empty() ? "no callable overload" : last_error;
    return measurement;
  }
  measurement.overload = overload_label(accepted->op);
  if (accepted->random_output) {
    measurement.outcome = "random-output";
    measurement.message = "the output depends on the random generator; not comparable";
    return measurement;
  }
  // Same values: the float32 inputs are the float64 inputs rounded.
  auto stack64 = build_stack(accepted->op.schema(), accepted->plan, at::kDouble);
  std::vector<IValue> stack32;
  for (const IValue &value : *stack64)
    stack32.push_back(value.isTensor() && value.toTensor().scalar_type() == at::kDouble
                          ? IValue(value.toTensor().to(at::kFloat))
                          : value);
  CallOutcome run32 = call_boxed(accepted->op, stack32, 1);
  const std::vector<at::Tensor> &outputs64 = accepted->reference.outputs;
  if (!run32.ok || run32.outputs.size() != outputs64.size()) {
    measurement.outcome = "no-inputs";
    measurement.message = run32.ok ? "float32 run returned different outputs" : run32.message;
    return measurement;
  }
  double worst = 0.0, sum_diff = 0.0, sum_magnitude = 0.0;
  bool any_floating = false;
  for (std::size_t i = 0; i < outputs64.size(); ++i) {
    const at::Tensor &y64 = outputs64[i];
    const at::Tensor &y32 = run32.outputs[i];
    if (!y64.defined() || !y64.is_floating_point() || y64.sizes() != y32.sizes() || y64.numel() == 0)
      continue;
    any_floating = true;
    at::Tensor exact = y64.to(at::kDouble);
    at::Tensor diff = (exact - y32.to(at::kDouble)).abs();
    at::Tensor finite = at::isfinite(exact) & at::isfinite(diff);
    if (!finite.any().item<bool>())
      continue;
    at::Tensor exact_finite = exact.masked_select(finite).abs();
    at::Tensor diff_finite = diff.masked_select(finite);
    double scale = exact_finite.max().item<double>();
    double relative = diff_finite.max().item<double>() / std::max(scale, 1e-300);
    worst = std::max(worst, relative);
    sum_diff += diff_finite.sum().item<double>();
    sum_magnitude += exact_finite.sum().item<double>();
  }
  if (!any_floating) {
    measurement.outcome = "not-floating";
    measurement.message = "no floating-point output";
    return measurement;
  }
  measurement.outcome = "measured";
  measurement.max_relative_error = worst;
  measurement.mean_relative_error = sum_diff / std::max(sum_magnitude, 1e-300);
  return measurement;
}

} // namespace mpsaudit::probe
