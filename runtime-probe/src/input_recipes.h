// Input recipes for operator families whose arguments have constraints the
// generic, name-driven builder cannot guess: the channels of a transposed
// convolution, 3-D attention inputs, integer class indices, symmetric
// positive-definite matrices, RNN weights that match input_size. A recipe
// names the arguments it builds; the others come from the generic builder.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

namespace mpsaudit::probe {

// Builds one argument's value; `float_type` is the run's floating dtype
// (float32 for the live probe, float64 for the downcast measurement).
using ArgumentMaker = std::function<c10::IValue(const c10::Argument &argument, at::ScalarType float_type)>;

struct InputRecipe {
  std::string family;                             // "transposed convolution 2-D", "LSTM", ...
  std::vector<int64_t> main_shape;                // the shape generic arguments (size lists, ...) follow
  std::string preferred_overload;                 // tried first when set ("input" for lstm)
  std::map<std::string, ArgumentMaker> arguments; // by schema argument name
};

// The recipe for an ATen base name, or nullptr (generic inputs only).
const InputRecipe *input_recipe(const std::string &aten_name);

} // namespace mpsaudit::probe
