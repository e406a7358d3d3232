#include "input_recipes.h"

#include <utility>

namespace mpsaudit::probe {

namespace {

using c10::IValue;

at::ScalarType complex_of(at::ScalarType float_type) {
  return float_type == at::kDouble ? at::kComplexDouble : at::kComplexFloat;
}

ArgumentMaker random_tensor(std::vector<int64_t> shape) {
  return [shape](const c10::Argument &, at::ScalarType float_type) {
    return IValue(at::randn(shape, at::TensorOptions().dtype(float_type)));
  };
}

ArgumentMaker random_complex(std::vector<int64_t> shape) {
  return [shape](const c10::Argument &, at::ScalarType float_type) {
    return IValue(at::randn(shape, at::TensorOptions().dtype(complex_of(float_type))));
  };
}

// int64 class/position indices in [low, high): index arguments are int64.
ArgumentMaker index_values(int64_t low, int64_t high, std::vector<int64_t> shape) {
  return [=](const c10::Argument &, at::ScalarType) {
    return IValue(at::randint(low, high, shape, at::TensorOptions().dtype(at::kLong)));
  };
}

// Small integers as floats: repeated values, so unique/sort/topk meet ties.
ArgumentMaker values_with_ties(std::vector<int64_t> shape, int64_t distinct) {
  return [=](const c10::Argument &, at::ScalarType float_type) {
    return IValue(at::randint(0, distinct, shape, at::TensorOptions().dtype(float_type)));
  };
}

ArgumentMaker fixed(IValue value) {
  return [value](const c10::Argument &, at::ScalarType) { return value; };
}

// A list of ints for int[] arguments, an int64 tensor for Tensor ones
// (ctc_loss has both overloads).
ArgumentMaker lengths(std::vector<int64_t> values) {
  return [values](const c10::Argument &argument, at::ScalarType) {
    if (argument.type()->kind() == c10::TypeKind::TensorType)
      return IValue(at::tensor(values, at::kLong));
    return IValue(values);
  };
}

// X X^T + n I: symmetric positive-definite, well conditioned.
ArgumentMaker spd_matrix(int64_t batch, int64_t n) {
  return [=](const c10::Argument &, at::ScalarType float_type) {
    at::Tensor x = at::randn({batch, n, n}, at::TensorOptions().dtype(float_type));
    return IValue(at::matmul(x, x.transpose(-2, -1)) + at::eye(n, x.options()) * static_cast<double>(n));
  };
}

InputRecipe convolution(int64_t dims, bool transposed) {
  // Input [N=2, C_in=3, 6...] (5... transposed); weight [C_out=4, C_in=3, 3...]
  // or, transposed, [C_in=3, C_out=4, 3...]; bias [4].
  std::vector<int64_t> input = {2, 3},
                       weight = transposed ? std::vector<int64_t>{3, 4} : std::vector<int64_t>{4, 3};
  for (int64_t i = 0; i < dims; ++i) {
    input.push_back(transposed ? 5 : 6);
    weight.push_back(3);
  }
  InputRecipe recipe;
  recipe.family =
      std::string(transposed ? "transposed convolution " : "convolution ") + std::to_string(dims) + "-D";
  recipe.main_shape = input;
  recipe.arguments = {
      {"input", random_tensor(input)}, {"weight", random_tensor(weight)}, {"bias", random_tensor({4})}};
  return recipe;
}

InputRecipe attention() {
  // 3-D query, key and value: [batch 2, length 5, embedding 8].
  InputRecipe recipe;
  recipe.family = "attention (3-D query/key/value)";
  recipe.main_shape = {2, 5, 8};
  for (const char *name : {"query", "key", "value"})
    recipe.arguments[name] = random_tensor({2, 5, 8});
  return recipe;
}

InputRecipe multi_head_attention() {
  InputRecipe recipe = attention();
  recipe.family = "multi-head attention (embed_dim 8, 2 heads)";
  recipe.arguments["embed_dim"] = fixed(IValue(int64_t{8}));
  recipe.arguments["num_head"] = fixed(IValue(int64_t{2}));
  recipe.arguments["qkv_weight"] = random_tensor({24, 8});
  recipe.arguments["qkv_bias"] = random_tensor({24});
  recipe.arguments["proj_weight"] = random_tensor({8, 8});
  recipe.arguments["proj_bias"] = random_tensor({8});
  return recipe;
}

// RNN/LSTM/GRU with matching sizes: input [seq 3, batch 2, input_size 4],
// hidden_size 5, one layer, gates 4 (LSTM), 3 (GRU) or 1 (RNN).
InputRecipe recurrent(const std::string &family, int64_t gates) {
  const int64_t input_size = 4, hidden = 5, batch = 2, sequence = 3;
  InputRecipe recipe;
  recipe.family = family + " (input_size 4, hidden_size 5)";
  recipe.main_shape = {sequence, batch, input_size};
  recipe.preferred_overload = "input";
  recipe.arguments["input"] = random_tensor({sequence, batch, input_size});
  recipe.arguments["hx"] = [=](const c10::Argument &argument, at::ScalarType float_type) {
    auto options = at::TensorOptions().dtype(float_type);
    if (argument.type()->kind() == c10::TypeKind::ListType) { // LSTM: (h0, c0)
      c10::List<at::Tensor> states;
      states.push_back(at::randn({1, batch, hidden}, options));
      states.push_back(at::randn({1, batch, hidden}, options));
      return IValue(states);
    }
    return IValue(at::randn({1, batch, hidden}, options));
  };
  recipe.arguments["params"] = [=](const c10::Argument &, at::ScalarType float_type) {
    auto options = at::TensorOptions().dtype(float_type);
    c10::List<at::Tensor> params; // w_ih, w_hh, b_ih, b_hh
    params.push_back(at::randn({gates * hidden, input_size}, options));
    params.push_back(at::randn({gates * hidden, hidden}, options));
    params.push_back(at::randn({gates * hidden}, options));
    params.push_back(at::randn({gates * hidden}, options));
    return IValue(params);
  };
  recipe.arguments["has_biases"] = fixed(IValue(true));
  recipe.arguments["num_layers"] = fixed(IValue(int64_t{1}));
  recipe.arguments["dropout"] = fixed(IValue(0.0));
  recipe.arguments["train"] = fixed(IValue(false));
  recipe.arguments["bidirectional"] = fixed(IValue(false));
  recipe.arguments["batch_first"] = fixed(IValue(false));
  return recipe;
}

InputRecipe spd(const std::string &family) {
  InputRecipe recipe;
  recipe.family = family + " (symmetric positive-definite input)";
  recipe.main_shape = {2, 4, 4};
  recipe.arguments["self"] = spd_matrix(2, 4);
  recipe.arguments["A"] = spd_matrix(2, 4);
  return recipe;
}

InputRecipe unique(const std::string &family) {
  // [6, 2] of 0/1: at most 4 distinct rows, so values repeat; every output requested.
  InputRecipe recipe;
  recipe.family = family + " (repeated values, inverse and counts requested)";
  recipe.main_shape = {6, 2};
  recipe.arguments["self"] = values_with_ties({6, 2}, 2);
  recipe.arguments["sorted"] = fixed(IValue(true));
  recipe.arguments["return_inverse"] = fixed(IValue(true));
  recipe.arguments["return_counts"] = fixed(IValue(true));
  return recipe;
}

InputRecipe ordering(const std::string &family) {
  // [4, 6] of 0..2: ties along the sorted dim.
  InputRecipe recipe;
  recipe.family = family + " (ties)";
  recipe.main_shape = {4, 6};
  recipe.arguments["self"] = values_with_ties({4, 6}, 3);
  recipe.arguments["k"] = fixed(IValue(int64_t{3}));
  return recipe;
}

std::map<std::string, InputRecipe> make_recipes() {
  std::map<std::string, InputRecipe> recipes;
  for (int64_t dims = 1; dims <= 3; ++dims) {
    recipes["conv" + std::to_string(dims) + "d"] = convolution(dims, false);
    recipes["conv_transpose" + std::to_string(dims) + "d"] = convolution(dims, true);
  }
  recipes["scaled_dot_product_attention"] = attention();
  recipes["_scaled_dot_product_attention_math"] = attention();
  recipes["_native_multi_head_attention"] = multi_head_attention();
  recipes["lstm"] = recurrent("LSTM", 4);
  recipes["gru"] = recurrent("GRU", 3);
  recipes["rnn_tanh"] = recurrent("RNN tanh", 1);
  recipes["rnn_relu"] = recurrent("RNN relu", 1);
  for (const char *name :
       {"linalg_cholesky", "cholesky", "linalg_cholesky_ex", "linalg_eigh", "linalg_eigvalsh"})
    recipes[name] = spd(name);
  for (const char *name : {"_unique", "_unique2", "unique_dim"})
    recipes[name] = unique(name);
  for (const char *name : {"sort", "argsort", "topk"})
    recipes[name] = ordering(name);

  InputRecipe one_hot;
  one_hot.family = "one_hot (int64 class indices)";
  one_hot.main_shape = {6};
  one_hot.arguments = {{"self", index_values(0, 4, {6})}, {"num_classes", fixed(IValue(int64_t{4}))}};
  recipes["one_hot"] = one_hot;

  InputRecipe embedding_bag;
  embedding_bag.family = "embedding_bag (int64 indices and offsets)";
  embedding_bag.main_shape = {10, 3};
  embedding_bag.arguments = {{"weight", random_tensor({10, 3})},
                             {"indices", index_values(0, 10, {6})},
                             {"offsets", fixed(IValue(at::tensor(std::vector<int64_t>{0, 3}, at::kLong)))}};
  recipes["embedding_bag"] = embedding_bag;

  InputRecipe ctc;
  ctc.family = "CTC loss (log-probabilities [T 6, N 2, C 4], int64 targets)";
  ctc.main_shape = {6, 2, 4};
  ctc.arguments = {
      {"log_probs",
       [](const c10::Argument &, at::ScalarType float_type) {
         return IValue(at::randn({6, 2, 4}, at::TensorOptions().dtype(float_type)).log_softmax(2));
       }},
      {"targets", index_values(1, 4, {2, 3})},
      {"input_lengths", lengths({6, 6})},
      {"target_lengths", lengths({3, 3})}};
  recipes["ctc_loss"] = ctc;
  recipes["_ctc_loss"] = ctc;

  InputRecipe bce;
  bce.family = "binary cross-entropy (probabilities and targets in [0, 1])";
  bce.main_shape = {2, 3, 4, 4};
  bce.arguments = {{"self",
                    [](const c10::Argument &, at::ScalarType float_type) {
                      return IValue(at::randn({2, 3, 4, 4}, at::TensorOptions().dtype(float_type)).sigmoid());
                    }},
                   {"target", [](const c10::Argument &, at::ScalarType float_type) {
                      return IValue(at::rand({2, 3, 4, 4}, at::TensorOptions().dtype(float_type)));
                    }}};
  recipes["binary_cross_entropy"] = bce;
  InputRecipe bce_logits = bce;
  bce_logits.family = "binary cross-entropy with logits (targets in [0, 1])";
  bce_logits.arguments["self"] = random_tensor({2, 3, 4, 4});
  recipes["binary_cross_entropy_with_logits"] = bce_logits;

  InputRecipe affine;
  affine.family = "affine grid (theta [N, 2, 3])";
  affine.main_shape = {2, 3, 4, 4};
  affine.arguments = {{"theta", random_tensor({2, 2, 3})},
                      {"size", fixed(IValue(std::vector<int64_t>{2, 3, 4, 4}))}};
  recipes["affine_grid_generator"] = affine;

  InputRecipe col2im;
  col2im.family = "col2im (columns of 2x2 patches of a 3-channel 4x4 image)";
  col2im.main_shape = {2, 12, 9};
  col2im.arguments = {{"self", random_tensor({2, 12, 9})},
                      {"output_size", fixed(IValue(std::vector<int64_t>{4, 4}))},
                      {"kernel_size", fixed(IValue(std::vector<int64_t>{2, 2}))},
                      {"dilation", fixed(IValue(std::vector<int64_t>{1, 1}))},
                      {"padding", fixed(IValue(std::vector<int64_t>{0, 0}))},
                      {"stride", fixed(IValue(std::vector<int64_t>{1, 1}))}};
  recipes["col2im"] = col2im;

  InputRecipe instance_norm;
  instance_norm.family = "instance norm (input statistics)";
  instance_norm.main_shape = {2, 3, 4, 4};
  instance_norm.arguments = {{"input", random_tensor({2, 3, 4, 4})},
                             {"use_input_stats", fixed(IValue(true))},
                             {"cudnn_enabled", fixed(IValue(true))}};
  recipes["instance_norm"] = instance_norm;

  InputRecipe stft;
  stft.family = "STFT (signals [2, 32], n_fft 8, hop 2)";
  stft.main_shape = {2, 32};
  stft.arguments = {
      {"self", random_tensor({2, 32})},          {"n_fft", fixed(IValue(int64_t{8}))},
      {"hop_length", fixed(IValue(int64_t{2}))}, {"return_complex", fixed(IValue(true))},
      {"center", fixed(IValue(true))},           {"pad_mode", fixed(IValue(std::string("reflect")))}};
  recipes["stft"] = stft;

  InputRecipe istft;
  istft.family = "inverse STFT (one-sided complex spectra [2, 5, 17], n_fft 8, hop 2)";
  istft.main_shape = {2, 5, 17};
  istft.arguments = {{"self", random_complex({2, 5, 17})},
                     {"n_fft", fixed(IValue(int64_t{8}))},
                     {"hop_length", fixed(IValue(int64_t{2}))},
                     {"return_complex", fixed(IValue(false))}};
  recipes["istft"] = istft;

  InputRecipe c2c;
  c2c.family = "complex-to-complex FFT";
  c2c.main_shape = {4, 4};
  c2c.arguments = {{"self", random_complex({4, 4})},
                   {"dim", fixed(IValue(std::vector<int64_t>{1}))},
                   {"normalization", fixed(IValue(int64_t{0}))},
                   {"forward", fixed(IValue(true))}};
  recipes["_fft_c2c"] = c2c;

  InputRecipe c2r;
  c2r.family = "complex-to-real FFT (one-sided input [4, 3], last_dim_size 4)";
  c2r.main_shape = {4, 3};
  c2r.arguments = {{"self", random_complex({4, 3})},
                   {"dim", fixed(IValue(std::vector<int64_t>{1}))},
                   {"normalization", fixed(IValue(int64_t{0}))},
                   {"last_dim_size", fixed(IValue(int64_t{4}))}};
  recipes["_fft_c2r"] = c2r;
  return recipes;
}

} // namespace

const InputRecipe *input_recipe(const std::string &aten_name) {
  static const std::map<std::string, InputRecipe> recipes = make_recipes();
  auto found = recipes.find(aten_name);
  return found == recipes.end() ? nullptr : &found->second;
}

} // namespace mpsaudit::probe
