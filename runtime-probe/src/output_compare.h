// How the live probe decides that a target's outputs agree with the CPU's:
// per operator, a comparison that respects the operator's mathematics
// (invariants for decompositions, sets for order-unstable outputs, shapes
// and statistics for random ones) and a tolerance per dtype and operator
// class. docs/runtime-probe.md ("Comparing outputs") holds the tables and
// their sources.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

namespace mpsaudit::probe {

// What kind of arithmetic produces an operator's floating outputs; decides
// the tolerance. Accumulating classes scale their atol with the reference's
// largest magnitude, because their rounding errors grow with the size of the
// summed terms, not with the size of one result element.
enum class OperatorClass { Pointwise, Reduction, Matmul, Convolution, Decomposition };

std::string class_name(OperatorClass operator_class);
OperatorClass operator_class(const std::string &aten_name);

struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
  bool atol_scales_with_reference = false;
};

// The strict tolerance of a class for an output dtype (float32, float16,
// bfloat16; other floating types get float32's).
Tolerance tolerance_for(OperatorClass operator_class, at::ScalarType dtype);

// The wider tolerance used when a target may run float32 matmuls or
// convolutions with TF32-class inputs (10-bit mantissa): PyTorch's own
// tests compare TF32 results at 5e-3 (tf32_on_and_off(0.005)).
Tolerance reduced_precision_tolerance();

// Whether a class may fall back to reduced_precision_tolerance().
bool may_use_reduced_precision(OperatorClass operator_class);

struct ComparisonInput {
  std::string aten_name;                        // base name: "linalg_svd"
  std::map<std::string, c10::IValue> arguments; // the CPU inputs by schema argument name
  std::vector<at::Tensor> expected;             // CPU reference outputs
  std::vector<at::Tensor> actual;               // the target's outputs, copied to the CPU
  std::vector<std::string> output_names;        // schema return names, where they match the outputs
  // The target is an accelerator that may run float32 matmuls/convolutions in
  // reduced precision (TF32, Winograd); the CPU never does.
  bool target_may_reduce_precision = false;
};

struct ComparisonResult {
  // ok | mismatch | not-comparable (random outputs: shapes, dtypes and
  // statistics agree, values cannot be compared)
  std::string verdict = "ok";
  std::string method;            // elementwise | invariants | set | statistics
  std::string tolerance_class;   // pointwise | reduction | matmul | convolution | decomposition
  double rtol = 0.0, atol = 0.0; // the tolerance that decided (atol before scaling)
  double max_abs_error = 0.0;    // largest |target - cpu| over the compared quantities
  double max_rel_error = 0.0;    // largest |target - cpu| / |cpu| where |cpu| > atol (scaled)
  bool reduced_precision_adjusted = false;
  std::string message; // names the output, the errors and the tolerance
};

// Compares deterministic outputs with the method the operator needs.
ComparisonResult compare_operator_outputs(const ComparisonInput &input);

// Random operators (dropout, rand*, multinomial): shapes and dtypes must
// agree, and the means may not differ by more than 8 standard errors;
// otherwise the verdict is not-comparable.
ComparisonResult compare_random_outputs(const ComparisonInput &input);

} // namespace mpsaudit::probe
