// Output comparisons that respect each operator's mathematics
// (output_compare.h): non-unique factors, unordered outputs and
// reduced-precision arithmetic are accepted; real errors are still caught.
#include <ATen/ATen.h>

#include "output_compare.h"

// LibTorch (through glog) defines its own CHECK; Catch2's must win in tests.
#undef CHECK
#include <catch2/catch.hpp>

using namespace mpsaudit::probe;

namespace {

ComparisonInput input_for(const std::string &aten, std::vector<at::Tensor> expected,
                          std::vector<at::Tensor> actual) {
  ComparisonInput input;
  input.aten_name = aten;
  input.expected = std::move(expected);
  input.actual = std::move(actual);
  return input;
}

bool mentions(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// float32 rounded to TF32's 10-bit mantissa (round to nearest on the 13
// dropped bits), as cuBLAS/cuDNN do with TF32 allowed.
at::Tensor round_to_tf32(const at::Tensor &values) {
  at::Tensor bits = values.contiguous().view(at::kInt);
  at::Tensor rounded = at::bitwise_and(bits + 0x1000, static_cast<int64_t>(~0x1FFF));
  return rounded.view(at::kFloat);
}

} // namespace

TEST_CASE("sign-flipped singular vectors are accepted; a wrong singular value or vector is caught") {
  at::manual_seed(7);
  at::Tensor a = at::randn({3, 4, 4});
  auto [u, s, vh] = at::linalg_svd(a, /*full_matrices=*/false);
  // Flip the signs of columns 0 and 2 of U and of the matching rows of Vh.
  at::Tensor signs = at::tensor({-1.0f, 1.0f, -1.0f, 1.0f});
  at::Tensor u_flipped = u * signs;
  at::Tensor vh_flipped = vh * signs.unsqueeze(-1);
  REQUIRE_FALSE(at::allclose(u, u_flipped)); // raw factors differ
  ComparisonInput flipped = input_for("linalg_svd", {u, s, vh}, {u_flipped, s, vh_flipped});
  flipped.output_names = {"U", "S", "Vh"};
  ComparisonResult accepted = compare_operator_outputs(flipped);
  INFO(accepted.message);
  CHECK(accepted.verdict == "ok");
  CHECK(accepted.method == "invariants");
  CHECK(accepted.max_abs_error < 1e-5);

  at::Tensor s_wrong = s.clone();
  s_wrong[1][2] += 0.05;
  ComparisonResult wrong_value =
      compare_operator_outputs(input_for("linalg_svd", {u, s, vh}, {u_flipped, s_wrong, vh_flipped}));
  CHECK(wrong_value.verdict == "mismatch");
  CHECK(mentions(wrong_value.message, "output 1"));
  CHECK(mentions(wrong_value.message, "singular values"));
  CHECK(mentions(wrong_value.message, "max abs error"));
  CHECK(mentions(wrong_value.message, "max rel error"));
  CHECK(mentions(wrong_value.message, "rtol"));

  // Swapped singular vectors reconstruct a different matrix.
  at::Tensor u_swapped = u.index_select(-1, at::tensor({1, 0, 2, 3}, at::kLong));
  ComparisonResult wrong_vectors =
      compare_operator_outputs(input_for("linalg_svd", {u, s, vh}, {u_swapped, s, vh}));
  CHECK(wrong_vectors.verdict == "mismatch");
  CHECK(mentions(wrong_vectors.message, "reconstruction"));

  ComparisonResult wrong_shape =
      compare_operator_outputs(input_for("linalg_svd", {u, s, vh}, {u, s.narrow(-1, 0, 3), vh}));
  CHECK(wrong_shape.verdict == "mismatch");
}

TEST_CASE("other decompositions are compared through their invariants") {
  at::manual_seed(11);
  at::Tensor a = at::randn({2, 4, 4});
  at::Tensor spd = at::matmul(a, a.transpose(-2, -1)) + 4 * at::eye(4);
  at::Tensor signs = at::tensor({1.0f, -1.0f, -1.0f, 1.0f});

  auto [q, r] = at::linalg_qr(a);
  CHECK(compare_operator_outputs(input_for("linalg_qr", {q, r}, {q * signs, r * signs.unsqueeze(-1)}))
            .verdict == "ok");
  at::Tensor r_wrong = r.clone();
  r_wrong[0][0][3] += 0.1;
  CHECK(compare_operator_outputs(input_for("linalg_qr", {q, r}, {q, r_wrong})).verdict == "mismatch");

  auto [values, vectors] = at::linalg_eigh(spd);
  CHECK(compare_operator_outputs(input_for("linalg_eigh", {values, vectors}, {values, vectors * signs}))
            .verdict == "ok");
  CHECK(compare_operator_outputs(input_for("linalg_eigh", {values, vectors}, {values * 1.01, vectors}))
            .verdict == "mismatch");

  at::Tensor l = at::linalg_cholesky(spd);
  CHECK(compare_operator_outputs(input_for("linalg_cholesky", {l}, {l})).verdict == "ok");
  at::Tensor l_wrong = l.clone();
  l_wrong[1][2][1] = -l_wrong[1][2][1];
  ComparisonResult cholesky = compare_operator_outputs(input_for("linalg_cholesky", {l}, {l_wrong}));
  CHECK(cholesky.verdict == "mismatch");
  CHECK(mentions(cholesky.message, "L L^H reconstruction"));

  auto [lu, pivots, info] = at::linalg_lu_factor_ex(a);
  CHECK(compare_operator_outputs(input_for("linalg_lu_factor_ex", {lu, pivots, info}, {lu, pivots, info}))
            .verdict == "ok");

  // General eigenvalues in another order are the same multiset.
  ComparisonInput eig =
      input_for("linalg_eigvals", {at::linalg_eigvals(a)}, {at::linalg_eigvals(a).flip(-1)});
  CHECK(compare_operator_outputs(eig).verdict == "ok");
}

TEST_CASE("permuted unique outputs are accepted; a flipped value or a missing one is caught") {
  at::Tensor x = at::tensor({3.0f, 1.0f, 3.0f, 2.0f, 1.0f, 3.0f});
  auto [values, inverse, counts] =
      at::_unique2(x, /*sorted=*/true, /*return_inverse=*/true, /*return_counts=*/true);
  // Another backend returns the same set in another order: [3, 1, 2].
  at::Tensor order = at::tensor({2, 0, 1}, at::kLong);
  at::Tensor rank = at::tensor({1, 2, 0}, at::kLong); // rank[old position] = new position
  at::Tensor permuted_values = values.index_select(0, order);
  at::Tensor permuted_counts = counts.index_select(0, order);
  at::Tensor permuted_inverse = rank.index_select(0, inverse);
  REQUIRE(at::equal(permuted_values.index_select(0, permuted_inverse), x)); // still a valid unique result
  ComparisonInput permuted =
      input_for("_unique2", {values, inverse, counts}, {permuted_values, permuted_inverse, permuted_counts});
  permuted.arguments = {{"return_inverse", true}, {"return_counts", true}};
  ComparisonResult accepted = compare_operator_outputs(permuted);
  INFO(accepted.message);
  CHECK(accepted.verdict == "ok");
  CHECK(accepted.method == "set");

  ComparisonInput flipped = permuted;
  flipped.actual[0] = permuted_values.clone();
  flipped.actual[0][0] = -3.0f;
  ComparisonResult wrong_value = compare_operator_outputs(flipped);
  CHECK(wrong_value.verdict == "mismatch");
  CHECK(mentions(wrong_value.message, "output 0"));

  ComparisonInput wrong_counts = permuted;
  wrong_counts.actual[2] = counts; // counts not permuted with the values
  CHECK(compare_operator_outputs(wrong_counts).verdict == "mismatch");

  ComparisonInput missing = permuted;
  missing.actual[0] = permuted_values.narrow(0, 0, 2);
  CHECK(compare_operator_outputs(missing).verdict == "mismatch");

  ComparisonInput out_of_range = permuted;
  out_of_range.actual[1] = permuted_inverse + 7; // indexes past the unique values
  CHECK(compare_operator_outputs(out_of_range).verdict == "mismatch");

  // Outputs that were not requested are placeholders: never compared.
  ComparisonInput placeholders = input_for("_unique2", {values, at::empty({0}), at::empty({0})},
                                           {values, at::empty({6}), at::empty({3})});
  placeholders.arguments = {{"return_inverse", false}, {"return_counts", false}};
  CHECK(compare_operator_outputs(placeholders).verdict == "ok");

  // unique along a dim: rows in another order.
  at::Tensor rows = at::tensor({0.0f, 1.0f, 1.0f, 0.0f, 0.0f, 1.0f}).reshape({3, 2});
  auto [row_values, row_inverse, row_counts] = at::unique_dim(rows, 0, true, true, true);
  ComparisonInput by_dim = input_for("unique_dim", {row_values, row_inverse, row_counts},
                                     {row_values.flip(0), 1 - row_inverse, row_counts.flip(0)});
  by_dim.arguments = {{"dim", int64_t{0}}, {"return_inverse", true}, {"return_counts", true}};
  CHECK(compare_operator_outputs(by_dim).verdict == "ok");
  by_dim.arguments["dim"] = int64_t{-2}; // the same dim, counted from the end
  CHECK(compare_operator_outputs(by_dim).verdict == "ok");
  by_dim.actual[2] = row_counts; // counts not permuted with the rows
  CHECK(compare_operator_outputs(by_dim).verdict == "mismatch");
}

TEST_CASE("ties in sort and topk and the order of nonzero rows are not mismatches") {
  at::Tensor x = at::tensor({2.0f, 1.0f, 2.0f, 0.0f}).reshape({1, 4});
  auto [values, indices] = at::sort(x, -1, /*descending=*/true);
  at::Tensor tie_swapped = indices.clone();
  tie_swapped[0][0] = indices[0][1];
  tie_swapped[0][1] = indices[0][0];
  ComparisonInput ties = input_for("sort", {values, indices}, {values, tie_swapped});
  ties.arguments = {{"self", x}, {"dim", int64_t{-1}}};
  CHECK(compare_operator_outputs(ties).verdict == "ok");
  at::Tensor wrong = indices.clone();
  wrong[0][0] = indices[0][3]; // selects 0, not 2
  ties.actual[1] = wrong;
  ComparisonResult caught = compare_operator_outputs(ties);
  CHECK(caught.verdict == "mismatch");
  CHECK(mentions(caught.message, "output 1"));

  ties.actual[1] = indices + 10; // past the end of the input
  CHECK(compare_operator_outputs(ties).verdict == "mismatch");

  at::Tensor nz = at::nonzero(at::tensor({1, 0, 1, 1}).reshape({2, 2}));
  CHECK(compare_operator_outputs(input_for("nonzero", {nz}, {nz.flip(0)})).verdict == "ok");
  CHECK(compare_operator_outputs(input_for("nonzero", {nz}, {nz.narrow(0, 0, 2)})).verdict == "mismatch");
}

TEST_CASE("a TF32-sized perturbation of a convolution is accepted after reduced-precision adjustment, and "
          "says so") {
  at::manual_seed(3);
  at::Tensor x = at::randn({2, 16, 8, 8});
  at::Tensor w = at::randn({8, 16, 3, 3});
  at::Tensor exact = at::conv2d(x, w);
  at::Tensor tf32 = at::conv2d(round_to_tf32(x), round_to_tf32(w));
  REQUIRE_FALSE(at::equal(exact, tf32));

  ComparisonInput on_gpu = input_for("conv2d", {exact}, {tf32});
  on_gpu.target_may_reduce_precision = true;
  ComparisonResult accepted = compare_operator_outputs(on_gpu);
  INFO(accepted.message);
  CHECK(accepted.verdict == "ok");
  CHECK(accepted.tolerance_class == "convolution");
  CHECK(accepted.reduced_precision_adjusted);
  CHECK(mentions(accepted.message, "within tolerance after reduced-precision adjustment"));
  CHECK(accepted.rtol == Approx(5e-3));

  // The CPU never computes in reduced precision: there it is a mismatch.
  ComparisonInput on_cpu = on_gpu;
  on_cpu.target_may_reduce_precision = false;
  ComparisonResult strict = compare_operator_outputs(on_cpu);
  CHECK(strict.verdict == "mismatch");
  CHECK(mentions(strict.message, "float32, convolution"));

  // A flipped value is caught even with the adjustment.
  at::Tensor flipped = tf32.clone();
  flipped[0][3][2][2] = -flipped[0][3][2][2] + 1.0f;
  on_gpu.actual = {flipped};
  ComparisonResult caught = compare_operator_outputs(on_gpu);
  CHECK(caught.verdict == "mismatch");
  CHECK_FALSE(caught.reduced_precision_adjusted);
  CHECK(mentions(caught.message, "output 0 differs beyond tolerance"));

  on_gpu.actual = {tf32.narrow(1, 0, 7)};
  ComparisonResult shape = compare_operator_outputs(on_gpu);
  CHECK(shape.verdict == "mismatch");
  CHECK(mentions(shape.message, "has shape [2, 7, 6, 6] on the target, [2, 8, 6, 6] on the CPU"));
}

TEST_CASE("random outputs: shapes and statistics only, reported as not comparable") {
  at::manual_seed(5);
  at::Tensor first = at::randn({64});
  at::Tensor second = at::randn({64});
  ComparisonResult result = compare_random_outputs(input_for("randn", {first}, {second}));
  CHECK(result.verdict == "not-comparable");
  CHECK(result.method == "statistics");
  CHECK(mentions(result.message, "not comparable"));
  CHECK(compare_random_outputs(input_for("randn", {first}, {second.narrow(0, 0, 32)})).verdict == "mismatch");
  CHECK(compare_random_outputs(input_for("randn", {first}, {second + 5.0})).verdict == "mismatch");
}

TEST_CASE("tolerances per dtype and operator class") {
  CHECK(operator_class("conv3d") == OperatorClass::Convolution);
  CHECK(operator_class("conv_transpose2d") == OperatorClass::Convolution);
  CHECK(operator_class("bmm") == OperatorClass::Matmul);
  CHECK(operator_class("scaled_dot_product_attention") == OperatorClass::Matmul);
  CHECK(operator_class("layer_norm") == OperatorClass::Reduction);
  CHECK(operator_class("linalg_svd") == OperatorClass::Decomposition);
  CHECK(operator_class("relu") == OperatorClass::Pointwise);
  CHECK(operator_class("_weight_norm") == OperatorClass::Reduction); // not an eigen-decomposition
  CHECK(operator_class("linalg_eigh") == OperatorClass::Decomposition);
  CHECK(tolerance_for(OperatorClass::Pointwise, at::kFloat).rtol == Approx(1e-5));
  CHECK(tolerance_for(OperatorClass::Pointwise, at::kHalf).rtol == Approx(2e-3));
  CHECK(tolerance_for(OperatorClass::Pointwise, at::kBFloat16).rtol == Approx(1.6e-2));
  CHECK(tolerance_for(OperatorClass::Matmul, at::kFloat).atol_scales_with_reference);
  CHECK(tolerance_for(OperatorClass::Reduction, at::kHalf).rtol == Approx(5e-3));
  CHECK(tolerance_for(OperatorClass::Convolution, at::kBFloat16).rtol == Approx(3e-2));
  CHECK_FALSE(tolerance_for(OperatorClass::Pointwise, at::kFloat).atol_scales_with_reference);

  // A half-precision pointwise output one ulp off passes; ten ulps do not.
  at::Tensor exact = at::tensor({1.0f, 0.5f}).to(at::kHalf);
  at::Tensor one_ulp = at::tensor({1.0f + 9.765625e-4f, 0.5f}).to(at::kHalf);
  at::Tensor ten_ulps = at::tensor({1.0f + 9.765625e-3f, 0.5f}).to(at::kHalf);
  CHECK(compare_operator_outputs(input_for("gelu", {exact}, {one_ulp})).verdict == "ok");
  ComparisonResult far = compare_operator_outputs(input_for("gelu", {exact}, {ten_ulps}));
  CHECK(far.verdict == "mismatch");
  CHECK(mentions(far.message, "float16, pointwise"));
}
