#include "output_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <limits>
#include <numeric>

namespace mpsaudit::probe {

namespace {

bool is_one_of(const std::string &name, std::initializer_list<const char *> names) {
  return std::any_of(names.begin(), names.end(), [&](const char *n) { return name == n; });
}

bool contains_any(const std::string &name, std::initializer_list<const char *> parts) {
  return std::any_of(parts.begin(), parts.end(),
                     [&](const char *p) { return name.find(p) != std::string::npos; });
}

std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

// --- reading the inputs ------------------------------------------------------

bool bool_argument(const ComparisonInput &input, const std::string &name, bool fallback) {
  auto found = input.arguments.find(name);
  return found != input.arguments.end() && found->second.isBool() ? found->second.toBool() : fallback;
}

int64_t int_argument(const ComparisonInput &input, const std::string &name, int64_t fallback) {
  auto found = input.arguments.find(name);
  return found != input.arguments.end() && found->second.isInt() ? found->second.toInt() : fallback;
}

at::Tensor self_argument(const ComparisonInput &input) {
  for (const char *name : {"self", "input", "A"}) {
    auto found = input.arguments.find(name);
    if (found != input.arguments.end() && found->second.isTensor())
      return found->second.toTensor();
  }
  return {};
}

std::string output_label(const ComparisonInput &input, std::size_t index) {
  std::string label = "output " + std::to_string(index);
  if (index < input.output_names.size() && !input.output_names[index].empty())
    label += " (" + input.output_names[index] + ")";
  return label;
}

// --- the comparison record -----------------------------------------------------

// Collects the checks of one comparison and words the verdict.
class Checker {
public:
  Checker(const ComparisonInput &input, std::string method) : input_(input) {
    result_.method = std::move(method);
    OperatorClass cls = operator_class(input.aten_name);
    operator_class_ = cls;
    result_.tolerance_class = class_name(cls);
  }

  bool failed() const { return failed_; }

  // A structural fact that must hold exactly (shape, count, dtype).
  void require(bool holds, const std::string &what) {
    if (!holds && !failed_) {
      failed_ = true;
      result_.message = what;
    }
  }

  // Floating (or integer) quantities that must agree within the tolerance
  // of `dtype` for this operator's class. `scale_reference` sets the scale
  // of accumulating classes (defaults to the reference itself).
  void close(const std::string &what, const at::Tensor &expected, const at::Tensor &actual,
             const at::Tensor &scale_reference = {}) {
    if (failed_)
      return;
    if (expected.sizes() != actual.sizes()) {
      fail_shape(what, expected, actual);
      return;
    }
    if (expected.numel() == 0)
      return;
    if (!expected.is_floating_point() && !expected.is_complex()) {
      at::Tensor a = expected.to(at::kLong), b = actual.to(at::kLong);
      double diff = (a - b).abs().max().item<double>();
      result_.max_abs_error = std::max(result_.max_abs_error, diff);
      if (diff != 0.0) {
        failed_ = true;
        result_.message =
            what + " differs: max abs error " + format_number(diff) + " (integer output, exact)";
      }
      return;
    }
    Tolerance strict = tolerance_for(operator_class_, expected.scalar_type());
    double scale = strict.atol_scales_with_reference
                       ? reference_scale(scale_reference.defined() ? scale_reference : expected)
                       : 1.0;
    Errors errors = measure(expected, actual, strict, scale);
    record(strict, errors);
    if (errors.within)
      return;
    if (input_.target_may_reduce_precision && may_use_reduced_precision(operator_class_) &&
        (expected.scalar_type() == at::kFloat || expected.scalar_type() == at::kComplexFloat)) {
      Tolerance wide = reduced_precision_tolerance();
      Errors widened = measure(expected, actual, wide, scale);
      if (widened.within) {
        result_.reduced_precision_adjusted = true;
        result_.rtol = wide.rtol;
        result_.atol = wide.atol;
        adjusted_note_ = what + ": max abs error " + format_number(errors.max_abs) + ", max rel error " +
                         format_number(errors.max_rel) + " exceed the strict " +
                         tolerance_text(strict, scale) + " but are within the reduced-precision " +
                         tolerance_text(wide, scale);
        return;
      }
    }
    failed_ = true;
    result_.message = what + " differs beyond tolerance: max abs error " + format_number(errors.max_abs) +
                      ", max rel error " + format_number(errors.max_rel) + "; tolerance " +
                      tolerance_text(strict, scale) + " (" + dtype_name(expected) + ", " +
                      class_name(operator_class_) + ")";
  }

  // Values copied, not computed (unique values, gathered elements): exact.
  void equal(const std::string &what, const at::Tensor &expected, const at::Tensor &actual) {
    if (failed_)
      return;
    if (expected.sizes() != actual.sizes()) {
      fail_shape(what, expected, actual);
      return;
    }
    if (expected.numel() == 0)
      return;
    at::Tensor a = expected.to(expected.is_complex() ? at::kComplexDouble : at::kDouble);
    at::Tensor b = actual.to(a.scalar_type());
    at::Tensor same = (a == b) | (at::isnan(a) & at::isnan(b));
    if (!same.all().item<bool>()) {
      double diff =
          at::nan_to_num((a - b).abs(), std::numeric_limits<double>::infinity()).max().item<double>();
      result_.max_abs_error = std::max(result_.max_abs_error, diff);
      failed_ = true;
      result_.message = what + " differs: max abs error " + format_number(diff) + " (compared exactly)";
    }
  }

  ComparisonResult finish() {
    if (failed_) {
      result_.verdict = "mismatch";
      result_.reduced_precision_adjusted = false;
    } else if (result_.reduced_precision_adjusted) {
      result_.message = "within tolerance after reduced-precision adjustment: " + adjusted_note_ +
                        (input_.target_may_reduce_precision ? " (the target may run float32 matmuls and "
                                                              "convolutions with TF32-class precision)"
                                                            : "");
    }
    return result_;
  }

  ComparisonResult &result() { return result_; }

private:
  struct Errors {
    bool within = true;
    double max_abs = 0.0;
    double max_rel = 0.0;
  };

  static double reference_scale(const at::Tensor &reference) {
    if (reference.numel() == 0)
      return 1.0;
    at::Tensor magnitude = reference.to(reference.is_complex() ? at::kComplexDouble : at::kDouble).abs();
    magnitude = at::where(at::isfinite(magnitude), magnitude, at::zeros_like(magnitude));
    return std::max(1.0, magnitude.max().item<double>());
  }

  static std::string dtype_name(const at::Tensor &tensor) {
    switch (tensor.scalar_type()) {
    case at::kHalf:
      return "float16";
    case at::kBFloat16:
      return "bfloat16";
    case at::kDouble:
      return "float64";
    case at::kComplexFloat:
      return "complex64";
    default:
      return "float32";
    }
  }

  static std::string tolerance_text(const Tolerance &tolerance, double scale) {
    std::string text = "rtol " + format_number(tolerance.rtol) + ", atol " + format_number(tolerance.atol);
    if (tolerance.atol_scales_with_reference)
      text += " x scale " + format_number(scale);
    return text;
  }

  static Errors measure(const at::Tensor &expected, const at::Tensor &actual, const Tolerance &tolerance,
                        double scale) {
    at::ScalarType wide = expected.is_complex() || actual.is_complex() ? at::kComplexDouble : at::kDouble;
    at::Tensor a = expected.to(wide), b = actual.to(wide);
    // Both NaN, or the same infinity, agree; NaN on one side only does not.
    at::Tensor agree_exactly = (a == b) | (at::isnan(a) & at::isnan(b));
    at::Tensor diff = at::where(agree_exactly, at::zeros({}, at::kDouble), (a - b).abs());
    diff = at::nan_to_num(diff, std::numeric_limits<double>::infinity());
    double atol = tolerance.atol * scale;
    at::Tensor magnitude = at::nan_to_num(a.abs(), 0.0, 0.0, 0.0);
    Errors errors;
    errors.within = (diff <= atol + tolerance.rtol * magnitude).all().item<bool>();
    errors.max_abs = diff.max().item<double>();
    at::Tensor relative =
        at::where(magnitude > atol, diff / magnitude.clamp_min(1e-300), at::zeros({}, at::kDouble));
    errors.max_rel = relative.max().item<double>();
    return errors;
  }

  void record(const Tolerance &tolerance, const Errors &errors) {
    if (!result_.reduced_precision_adjusted) {
      result_.rtol = tolerance.rtol;
      result_.atol = tolerance.atol;
    }
    result_.max_abs_error = std::max(result_.max_abs_error, errors.max_abs);
    result_.max_rel_error = std::max(result_.max_rel_error, errors.max_rel);
  }

  void fail_shape(const std::string &what, const at::Tensor &expected, const at::Tensor &actual) {
    auto text = [](const at::Tensor &t) {
      std::string s = "[";
      for (std::size_t i = 0; i < t.sizes().size(); ++i)
        s += (i ? ", " : "") + std::to_string(t.sizes()[i]);
      return s + "]";
    };
    failed_ = true;
    result_.message =
        what + " has shape " + text(actual) + " on the target, " + text(expected) + " on the CPU";
  }

  const ComparisonInput &input_;
  OperatorClass operator_class_ = OperatorClass::Pointwise;
  ComparisonResult result_;
  bool failed_ = false;
  std::string adjusted_note_;
};

// --- helpers on tensors ----------------------------------------------------------

at::Tensor conjugate_transpose(const at::Tensor &matrix) {
  return matrix.transpose(-2, -1).conj();
}

at::Tensor as_wide(const at::Tensor &tensor) {
  return tensor.to(tensor.is_complex() ? at::kComplexDouble : at::kDouble);
}

at::Tensor identity_like_gram(const at::Tensor &gram) {
  return at::eye(gram.size(-1), gram.options()).expand_as(gram);
}

// Rows of `tensor` along `dim`, in lexicographic order: the canonical form
// of an output whose row order is unspecified. Returns the permutation.
std::vector<int64_t> lexicographic_order(const at::Tensor &tensor, int64_t dim) {
  if (tensor.dim() == 0)
    return {};
  at::Tensor rows = as_wide(tensor).movedim(dim, 0).reshape({tensor.size(dim), -1});
  if (rows.is_complex())
    rows = at::view_as_real(rows).reshape({rows.size(0), -1});
  rows = rows.contiguous();
  int64_t count = rows.size(0), width = rows.size(1);
  const double *data = rows.data_ptr<double>();
  std::vector<int64_t> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return std::lexicographical_compare(data + x * width, data + (x + 1) * width, data + y * width,
                                        data + (y + 1) * width);
  });
  return order;
}

at::Tensor index_tensor(const std::vector<int64_t> &values) {
  return at::tensor(values, at::kLong);
}

// --- decompositions: invariants instead of factors ---------------------------------

// U diag(S) Vh over the first k = len(S) columns/rows (full_matrices or not).
at::Tensor svd_reconstruction(const at::Tensor &u, const at::Tensor &s, const at::Tensor &vh) {
  int64_t k = s.size(-1);
  at::Tensor uk = as_wide(u).narrow(-1, 0, k);
  at::Tensor vhk = as_wide(vh).narrow(-2, 0, k);
  return at::matmul(uk * as_wide(s).unsqueeze(-2).to(uk.scalar_type()), vhk);
}

void check_orthonormal_columns(Checker &checker, const std::string &what, const at::Tensor &columns) {
  at::Tensor q = as_wide(columns);
  at::Tensor gram = at::matmul(conjugate_transpose(q), q);
  checker.close(what + " orthonormality (Q^H Q - I)", identity_like_gram(gram), gram,
                at::ones({}, at::kDouble));
}

ComparisonResult compare_svd(const ComparisonInput &input) {
  Checker checker(input, "invariants");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(e.size() == 3 && a.size() == 3, "svd returned a different number of outputs");
  if (checker.failed())
    return checker.finish();
  checker.close(output_label(input, 1) + " singular values", e[1], a[1]);
  bool has_vectors = e[0].numel() > 0 && a[0].numel() > 0;
  checker.require(e[0].numel() == a[0].numel() && e[2].numel() == a[2].numel(),
                  "the singular vectors have different shapes on the target and the CPU");
  if (has_vectors && !checker.failed()) {
    // Old torch.svd returns V, linalg.svd returns Vh.
    bool returns_v = input.aten_name == "svd";
    at::Tensor vh_e = returns_v ? conjugate_transpose(as_wide(e[2])) : e[2];
    at::Tensor vh_a = returns_v ? conjugate_transpose(as_wide(a[2])) : a[2];
    checker.close("U diag(S) Vh reconstruction", svd_reconstruction(e[0], e[1], vh_e),
                  svd_reconstruction(a[0], a[1], vh_a));
    int64_t k = a[1].size(-1);
    check_orthonormal_columns(checker, output_label(input, 0), a[0].narrow(-1, 0, k));
    check_orthonormal_columns(checker, output_label(input, 2), conjugate_transpose(vh_a.narrow(-2, 0, k)));
  }
  return checker.finish();
}

ComparisonResult compare_qr(const ComparisonInput &input) {
  Checker checker(input, "invariants");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(e.size() == 2 && a.size() == 2, "qr returned a different number of outputs");
  if (checker.failed())
    return checker.finish();
  checker.require(e[1].sizes() == a[1].sizes(), output_label(input, 1) + " has a different shape");
  // R is unique up to the signs of its rows: R^H R (= A^H A) is not.
  at::Tensor re = as_wide(e[1]), ra = as_wide(a[1]);
  checker.close("R^H R", at::matmul(conjugate_transpose(re), re), at::matmul(conjugate_transpose(ra), ra));
  checker.close(output_label(input, 1) + " below the diagonal", at::zeros_like(ra), ra.tril(-1), ra);
  if (e[0].numel() > 0 || a[0].numel() > 0) {
    checker.require(e[0].sizes() == a[0].sizes(), output_label(input, 0) + " has a different shape");
    if (!checker.failed()) {
      checker.close("Q R reconstruction", at::matmul(as_wide(e[0]), re), at::matmul(as_wide(a[0]), ra));
      check_orthonormal_columns(checker, output_label(input, 0), a[0]);
    }
  }
  return checker.finish();
}

ComparisonResult compare_eigh(const ComparisonInput &input) {
  Checker checker(input, "invariants");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(e.size() == 2 && a.size() == 2, "eigh returned a different number of outputs");
  if (checker.failed())
    return checker.finish();
  checker.close(output_label(input, 0) + " eigenvalues", e[0], a[0]);
  checker.require(e[1].sizes() == a[1].sizes(), output_label(input, 1) + " has a different shape");
  if (checker.failed())
    return checker.finish();
  auto reconstruct = [](const at::Tensor &values, const at::Tensor &vectors) {
    at::Tensor q = as_wide(vectors);
    return at::matmul(q * as_wide(values).unsqueeze(-2).to(q.scalar_type()), conjugate_transpose(q));
  };
  checker.close("Q diag(L) Q^H reconstruction", reconstruct(e[0], e[1]), reconstruct(a[0], a[1]));
  check_orthonormal_columns(checker, output_label(input, 1), a[1]);
  return checker.finish();
}

// Eigenvalues of a general matrix come in no particular order: each CPU
// eigenvalue is matched with the nearest unused target eigenvalue.
at::Tensor matched_eigenvalues(const at::Tensor &expected, const at::Tensor &actual) {
  at::Tensor e = as_wide(expected).to(at::kComplexDouble).reshape({-1, expected.size(-1)});
  at::Tensor a = as_wide(actual).to(at::kComplexDouble).reshape({-1, actual.size(-1)});
  at::Tensor matched = at::empty_like(e);
  for (int64_t batch = 0; batch < e.size(0); ++batch) {
    std::vector<bool> used(static_cast<std::size_t>(a.size(1)), false);
    for (int64_t i = 0; i < e.size(1); ++i) {
      at::Tensor distance = (a[batch] - e[batch][i]).abs();
      int64_t best = -1;
      double best_distance = std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < a.size(1); ++j) {
        double d = distance[j].item<double>();
        if (!used[static_cast<std::size_t>(j)] && (best < 0 || d < best_distance)) {
          best = j;
          best_distance = d;
        }
      }
      used[static_cast<std::size_t>(best)] = true;
      matched[batch][i] = a[batch][best];
    }
  }
  return matched.reshape(expected.sizes());
}

ComparisonResult compare_eig(const ComparisonInput &input) {
  Checker checker(input, "invariants");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(!e.empty() && e.size() == a.size(), "eig returned a different number of outputs");
  checker.require(e.empty() || e[0].sizes() == a[0].sizes(),
                  output_label(input, 0) + " has a different shape");
  if (checker.failed())
    return checker.finish();
  checker.close(output_label(input, 0) + " eigenvalues (as a multiset)", e[0],
                matched_eigenvalues(e[0], a[0]));
  at::Tensor matrix = self_argument(input);
  if (e.size() == 2 && matrix.defined() && !checker.failed()) {
    // Eigenvectors are unique only up to a complex phase: check A V = V diag(L).
    at::Tensor m = as_wide(matrix).to(at::kComplexDouble);
    at::Tensor v = as_wide(a[1]).to(at::kComplexDouble);
    at::Tensor l = as_wide(a[0]).to(at::kComplexDouble);
    at::Tensor residual = at::matmul(m, v) - v * l.unsqueeze(-2);
    checker.close("A V - V diag(L) residual", at::zeros_like(residual), residual, m);
  }
  return checker.finish();
}

ComparisonResult compare_cholesky(const ComparisonInput &input) {
  Checker checker(input, "invariants");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(!e.empty() && e.size() == a.size(), "cholesky returned a different number of outputs");
  checker.require(e.empty() || e[0].sizes() == a[0].sizes(),
                  output_label(input, 0) + " has a different shape");
  if (checker.failed())
    return checker.finish();
  bool upper = bool_argument(input, "upper", false);
  auto reconstruct = [upper](const at::Tensor &factor) {
    at::Tensor f = as_wide(factor);
    return upper ? at::matmul(conjugate_transpose(f), f) : at::matmul(f, conjugate_transpose(f));
  };
  checker.close(upper ? "U^H U reconstruction" : "L L^H reconstruction", reconstruct(e[0]),
                reconstruct(a[0]));
  at::Tensor factor = as_wide(a[0]);
  checker.close(output_label(input, 0) + (upper ? " below the diagonal" : " above the diagonal"),
                at::zeros_like(factor), upper ? factor.tril(-1) : factor.triu(1), factor);
  for (std::size_t i = 1; i < e.size(); ++i) // linalg_cholesky_ex: info
    checker.equal(output_label(input, i), e[i], a[i]);
  return checker.finish();
}

ComparisonResult compare_lu(const ComparisonInput &input) {
  Checker checker(input, "invariants");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(e.size() >= 2 && e.size() == a.size(), "lu returned a different number of outputs");
  if (checker.failed())
    return checker.finish();
  // Pivots may differ where two candidates tie; P L U = A does not.
  auto reconstruct = [&](const std::vector<at::Tensor> &outputs) {
    if (input.aten_name == "linalg_lu")
      return at::matmul(at::matmul(as_wide(outputs[0]), as_wide(outputs[1])), as_wide(outputs[2]));
    auto unpacked = at::lu_unpack(outputs[0], outputs[1].to(at::kInt));
    return at::matmul(at::matmul(as_wide(std::get<0>(unpacked)), as_wide(std::get<1>(unpacked))),
                      as_wide(std::get<2>(unpacked)));
  };
  for (std::size_t i = 0; i < e.size(); ++i)
    checker.require(e[i].sizes() == a[i].sizes(), output_label(input, i) + " has a different shape");
  if (checker.failed())
    return checker.finish();
  checker.close("P L U reconstruction", reconstruct(e), reconstruct(a));
  if (input.aten_name != "linalg_lu")
    for (std::size_t i = 2; i < e.size(); ++i) // info
      checker.equal(output_label(input, i), e[i], a[i]);
  return checker.finish();
}

// --- order-unstable outputs ------------------------------------------------------

// unique: the values in canonical (sorted) order, counts permuted with them,
// inverse indices renumbered; outputs that were not requested are ignored
// (backends fill them with placeholders of different shapes).
struct UniqueForm {
  at::Tensor values, inverse, counts;
};

UniqueForm canonical_unique(const std::vector<at::Tensor> &outputs, int64_t dim, bool with_inverse,
                            bool with_counts) {
  UniqueForm form;
  const at::Tensor &values = outputs[0];
  int64_t axis = dim < 0 ? 0 : dim; // dim -1: flattened unique, 1-D values
  std::vector<int64_t> order = values.dim() == 0 ? std::vector<int64_t>{} : lexicographic_order(values, axis);
  at::Tensor permutation = index_tensor(order);
  form.values = values.dim() == 0 ? values : values.index_select(axis, permutation);
  std::vector<int64_t> rank(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    rank[static_cast<std::size_t>(order[i])] = static_cast<int64_t>(i);
  auto count = static_cast<int64_t>(order.size());
  // An inverse outside [0, count) or counts of another length are wrong
  // outputs: kept as they are, so that the exact comparison fails on them.
  if (with_inverse && outputs.size() > 1 && outputs[1].numel() > 0 && count > 0) {
    at::Tensor inverse = outputs[1].to(at::kLong);
    bool in_range = inverse.min().item<int64_t>() >= 0 && inverse.max().item<int64_t>() < count;
    form.inverse = in_range
                       ? index_tensor(rank).index_select(0, inverse.reshape({-1})).reshape(inverse.sizes())
                       : inverse;
  }
  if (with_counts && outputs.size() > 2 && outputs[2].numel() > 0 && count > 0)
    form.counts = outputs[2].dim() == 1 && outputs[2].size(0) == count
                      ? outputs[2].index_select(0, permutation)
                      : outputs[2];
  return form;
}

ComparisonResult compare_unique(const ComparisonInput &input) {
  Checker checker(input, "set");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(!e.empty() && e.size() == a.size(), "unique returned a different number of outputs");
  if (checker.failed())
    return checker.finish();
  // unique_dim (and unique_consecutive with a dim) compare rows along dim;
  // without one the values are flattened (dim -1 below).
  auto dim_argument = input.arguments.find("dim");
  bool by_dim = dim_argument != input.arguments.end() && dim_argument->second.isInt();
  int64_t dim = by_dim ? dim_argument->second.toInt() : -1;
  if (by_dim && dim < 0)
    dim += e[0].dim();
  checker.require(e[0].sizes() == a[0].sizes(),
                  output_label(input, 0) + " has " + std::to_string(a[0].numel()) +
                      " elements on the target, " + std::to_string(e[0].numel()) + " on the CPU");
  if (checker.failed())
    return checker.finish();
  bool with_inverse = bool_argument(input, "return_inverse", false);
  bool with_counts = bool_argument(input, "return_counts", false);
  UniqueForm expected = canonical_unique(e, dim, with_inverse, with_counts);
  UniqueForm actual = canonical_unique(a, dim, with_inverse, with_counts);
  checker.equal(output_label(input, 0) + " (as a set)", expected.values, actual.values);
  if (bool_argument(input, "return_inverse", false) && expected.inverse.defined() && actual.inverse.defined())
    checker.equal(output_label(input, 1) + " (renumbered to the sorted values)", expected.inverse,
                  actual.inverse);
  else if (bool_argument(input, "return_inverse", false))
    checker.require(expected.inverse.defined() == actual.inverse.defined(),
                    output_label(input, 1) + " is missing on one side");
  if (bool_argument(input, "return_counts", false) && expected.counts.defined() && actual.counts.defined())
    checker.equal(output_label(input, 2) + " (with the sorted values)", expected.counts, actual.counts);
  else if (bool_argument(input, "return_counts", false))
    checker.require(expected.counts.defined() == actual.counts.defined(),
                    output_label(input, 2) + " is missing on one side");
  return checker.finish();
}

// nonzero / argwhere: the rows as a set.
ComparisonResult compare_index_rows(const ComparisonInput &input) {
  Checker checker(input, "set");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(e.size() == 1 && a.size() == 1, "a different number of outputs");
  if (checker.failed())
    return checker.finish();
  checker.require(e[0].sizes() == a[0].sizes(), output_label(input, 0) + " has a different shape (" +
                                                    std::to_string(a[0].numel()) + " vs " +
                                                    std::to_string(e[0].numel()) + " elements)");
  if (checker.failed() || e[0].numel() == 0)
    return checker.finish();
  checker.equal(output_label(input, 0) + " (as a set of index rows)",
                e[0].index_select(0, index_tensor(lexicographic_order(e[0], 0))),
                a[0].index_select(0, index_tensor(lexicographic_order(a[0], 0))));
  return checker.finish();
}

// sort, topk, argsort, kthvalue, median/mode/max/min along a dim: with ties
// the indices may differ; what they select from the input may not.
ComparisonResult compare_selected_indices(const ComparisonInput &input) {
  Checker checker(input, "set");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(!e.empty() && e.size() == a.size(), "a different number of outputs");
  if (checker.failed())
    return checker.finish();
  at::Tensor self = self_argument(input);
  std::size_t index_output = e.size() == 1 ? 0 : 1;
  bool has_values = e.size() >= 2;
  for (std::size_t i = 0; i < e.size(); ++i)
    checker.require(e[i].sizes() == a[i].sizes(), output_label(input, i) + " has a different shape");
  if (checker.failed())
    return checker.finish();
  bool unsorted_topk = input.aten_name == "topk" && !bool_argument(input, "sorted", true);
  int64_t dim = int_argument(input, "dim", -1);
  if (has_values) {
    if (unsorted_topk && e[0].dim() > 0)
      checker.equal(output_label(input, 0) + " (as a multiset)", std::get<0>(e[0].sort(dim)),
                    std::get<0>(a[0].sort(dim)));
    else
      checker.equal(output_label(input, 0), e[0], a[0]);
  }
  if (!self.defined() || self.dim() == 0 || e[index_output].numel() == 0)
    return checker.finish();
  if (dim < 0)
    dim += self.dim();
  auto selected = [&](const at::Tensor &indices) {
    at::Tensor idx = indices.to(at::kLong);
    if (idx.dim() < self.dim())
      idx = idx.unsqueeze(dim); // keepdim=False
    return self.gather(dim, idx);
  };
  at::Tensor target_indices = a[index_output].to(at::kLong);
  checker.require(target_indices.min().item<int64_t>() >= 0 &&
                      target_indices.max().item<int64_t>() < self.size(dim),
                  output_label(input, index_output) + " indexes outside the input");
  if (!checker.failed())
    checker.equal(output_label(input, index_output) + " (the input elements it selects)",
                  selected(e[index_output]), selected(a[index_output]));
  return checker.finish();
}

// linalg_eigvals / eigvals: a multiset of complex numbers.
ComparisonResult compare_eigenvalues(const ComparisonInput &input) {
  Checker checker(input, "set");
  checker.require(input.expected.size() == 1 && input.actual.size() == 1 &&
                      input.expected[0].sizes() == input.actual[0].sizes(),
                  output_label(input, 0) + " has a different shape");
  if (!checker.failed())
    checker.close(output_label(input, 0) + " eigenvalues (as a multiset)", input.expected[0],
                  matched_eigenvalues(input.expected[0], input.actual[0]));
  return checker.finish();
}

// Operators whose outputs beyond the first are implementation-defined
// scratch (embedding_bag's offset2bag/bag_size/max_indices in sum mode,
// _ctc_loss's log_alpha past each target's length).
bool only_first_output_defined(const std::string &aten_name) {
  return is_one_of(aten_name,
                   {"embedding_bag", "_embedding_bag", "_embedding_bag_forward_only", "_ctc_loss"});
}

ComparisonResult compare_elementwise(const ComparisonInput &input) {
  Checker checker(input, "elementwise");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(e.size() == a.size(), "a different number of outputs (" + std::to_string(a.size()) +
                                            " on the target, " + std::to_string(e.size()) + " on the CPU)");
  std::size_t count =
      only_first_output_defined(input.aten_name) ? std::min<std::size_t>(1, e.size()) : e.size();
  for (std::size_t i = 0; i < count && !checker.failed(); ++i) {
    if (!e[i].defined() || !a[i].defined()) {
      checker.require(e[i].defined() == a[i].defined(), output_label(input, i) + " is undefined on one side");
      continue;
    }
    if (e[i].layout() != at::kStrided || a[i].layout() != at::kStrided)
      continue;
    if (!e[i].is_floating_point() && !e[i].is_complex())
      checker.equal(output_label(input, i), e[i], a[i]);
    else
      checker.close(output_label(input, i), e[i], a[i]);
  }
  return checker.finish();
}

} // namespace

std::string class_name(OperatorClass operator_class) {
  switch (operator_class) {
  case OperatorClass::Pointwise:
    return "pointwise";
  case OperatorClass::Reduction:
    return "reduction";
  case OperatorClass::Matmul:
    return "matmul";
  case OperatorClass::Convolution:
    return "convolution";
  case OperatorClass::Decomposition:
    return "decomposition";
  }
  return "pointwise";
}

OperatorClass operator_class(const std::string &aten_name) {
  const std::string &n = aten_name;
  // Whole names: "eig" inside "_weight_norm" is no eigen-decomposition.
  if (is_one_of(n, {"linalg_svd",
                    "_linalg_svd",
                    "svd",
                    "linalg_svdvals",
                    "linalg_qr",
                    "qr",
                    "linalg_eig",
                    "eig",
                    "linalg_eigvals",
                    "linalg_eigh",
                    "_linalg_eigh",
                    "linalg_eigvalsh",
                    "symeig",
                    "linalg_cholesky",
                    "linalg_cholesky_ex",
                    "cholesky",
                    "cholesky_solve",
                    "cholesky_inverse",
                    "linalg_lu_factor",
                    "linalg_lu_factor_ex",
                    "linalg_lu",
                    "_lu_with_info",
                    "lu_unpack",
                    "lu_solve",
                    "linalg_lu_solve"}))
    return OperatorClass::Decomposition;
  if (n.find("conv") != std::string::npos)
    return OperatorClass::Convolution;
  if (is_one_of(n, {"mm",           "bmm",
                    "matmul",       "addmm",
                    "addbmm",       "baddbmm",
                    "linear",       "bilinear",
                    "einsum",       "tensordot",
                    "dot",          "vdot",
                    "mv",           "addmv",
                    "chain_matmul", "linalg_multi_dot",
                    "cdist",        "_cdist_forward",
                    "lstm",         "gru",
                    "rnn_tanh",     "rnn_relu",
                    "linalg_solve", "linalg_inv",
                    "inverse",      "linalg_det",
                    "det",          "_native_multi_head_attention",
                    "linalg_matmul"}) ||
      contains_any(n, {"scaled_dot_product", "attention"}))
    return OperatorClass::Matmul;
  if (contains_any(n, {"norm", "loss",  "softmax",   "sum",          "mean",          "avg_pool",
                       "fft",  "stft",  "upsample",  "grid_sampler", "cum",           "var",
                       "std",  "prod",  "logsumexp", "entropy",      "embedding_bag", "affine_grid",
                       "dist", "trace", "cosine",    "renorm"}))
    return OperatorClass::Reduction;
  return OperatorClass::Pointwise;
}

Tolerance tolerance_for(OperatorClass operator_class, at::ScalarType dtype) {
  bool half = dtype == at::kHalf;
  bool bfloat = dtype == at::kBFloat16;
  switch (operator_class) {
  case OperatorClass::Pointwise:
    if (half)
      return {2e-3, 1e-5, false};
    if (bfloat)
      return {1.6e-2, 1e-5, false};
    return {1e-5, 1e-5, false};
  case OperatorClass::Reduction:
  case OperatorClass::Matmul:
  case OperatorClass::Convolution:
    if (half)
      return {5e-3, 1e-3, true};
    if (bfloat)
      return {3e-2, 1e-2, true};
    return {1e-4, 1e-5, true};
  case OperatorClass::Decomposition:
    if (half)
      return {5e-3, 5e-3, true};
    if (bfloat)
      return {3e-2, 3e-2, true};
    return {1e-4, 1e-4, true};
  }
  return {1e-5, 1e-5, false};
}

Tolerance reduced_precision_tolerance() {
  return {5e-3, 5e-3, true};
}

bool may_use_reduced_precision(OperatorClass operator_class) {
  return operator_class == OperatorClass::Matmul || operator_class == OperatorClass::Convolution ||
         operator_class == OperatorClass::Decomposition;
}

ComparisonResult compare_operator_outputs(const ComparisonInput &input) {
  const std::string &n = input.aten_name;
  if (is_one_of(n, {"linalg_svd", "_linalg_svd", "svd"}))
    return compare_svd(input);
  if (is_one_of(n, {"linalg_qr", "qr"}))
    return compare_qr(input);
  if (is_one_of(n, {"linalg_eigh", "_linalg_eigh", "symeig"}))
    return compare_eigh(input);
  if (is_one_of(n, {"linalg_eig", "eig"}))
    return compare_eig(input);
  if (is_one_of(n, {"linalg_eigvals", "eigvals"}))
    return compare_eigenvalues(input);
  if (is_one_of(n, {"linalg_cholesky", "cholesky", "linalg_cholesky_ex"}))
    return compare_cholesky(input);
  if (is_one_of(n, {"linalg_lu_factor_ex", "linalg_lu_factor", "linalg_lu", "_lu_with_info"}))
    return compare_lu(input);
  if (is_one_of(
          n, {"_unique", "_unique2", "unique_dim", "unique", "unique_consecutive", "unique_dim_consecutive"}))
    return compare_unique(input);
  if (is_one_of(n, {"nonzero", "argwhere"}))
    return compare_index_rows(input);
  if (is_one_of(
          n, {"sort", "argsort", "topk", "kthvalue", "mode", "median", "nanmedian", "max", "min", "msort"}) &&
      !input.expected.empty() && (input.expected.size() == 2 || n == "argsort"))
    return compare_selected_indices(input);
  return compare_elementwise(input);
}

ComparisonResult compare_random_outputs(const ComparisonInput &input) {
  Checker checker(input, "statistics");
  const auto &e = input.expected;
  const auto &a = input.actual;
  checker.require(e.size() == a.size(), "a different number of outputs");
  std::string statistics;
  for (std::size_t i = 0; i < e.size() && !checker.failed(); ++i) {
    if (!e[i].defined() || !a[i].defined() || e[i].layout() != at::kStrided)
      continue;
    checker.require(e[i].sizes() == a[i].sizes(), output_label(input, i) + " has a different shape");
    checker.require(e[i].scalar_type() == a[i].scalar_type(),
                    output_label(input, i) + " has a different dtype");
    if (checker.failed() || e[i].numel() < 16 || e[i].is_complex())
      continue;
    at::Tensor x = e[i].to(at::kDouble).reshape({-1}), y = a[i].to(at::kDouble).reshape({-1});
    if (!at::isfinite(x).all().item<bool>() || !at::isfinite(y).all().item<bool>())
      continue;
    double mean_x = x.mean().item<double>(), mean_y = y.mean().item<double>();
    double var_x = x.var().item<double>(), var_y = y.var().item<double>();
    auto n = static_cast<double>(x.numel());
    double bound = 8.0 * std::sqrt((var_x + var_y) / n) + 1e-6 * std::max(1.0, std::abs(mean_x));
    statistics += (statistics.empty() ? "" : "; ") + output_label(input, i) + " mean " +
                  format_number(mean_y) + " vs " + format_number(mean_x) + ", std " +
                  format_number(std::sqrt(var_y)) + " vs " + format_number(std::sqrt(var_x));
    checker.require(std::abs(mean_x - mean_y) <= bound, output_label(input, i) + " statistics differ: mean " +
                                                            format_number(mean_y) + " on the target, " +
                                                            format_number(mean_x) + " on the CPU (bound " +
                                                            format_number(bound) + ", 8 standard errors)");
  }
  ComparisonResult result = checker.finish();
  if (result.verdict == "ok") {
    result.verdict = "not-comparable";
    result.message = "random output: not comparable value by value; shapes and dtypes agree" +
                     (statistics.empty() ? std::string()
                                         : " and the means are within 8 standard errors (" + statistics +
                                               ", target vs CPU)");
  }
  return result;
}

} // namespace mpsaudit::probe
