// Model hyper-parameter files (config.json, *.yaml) for the memory-fit
// estimate. A file that names a hidden size and a layer count becomes one
// `model-config` fact with an estimated parameter count; any other file
// yields nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/fact.h"

namespace mpsaudit {

struct TransformerShape {
  std::uint64_t hidden = 0;
  std::uint64_t layers = 0;
  std::uint64_t vocab = 0;
  std::uint64_t intermediate = 0; // 0: 4 x hidden
  std::uint64_t heads = 0;
  std::uint64_t kv_heads = 0; // 0: same as heads
  std::uint64_t experts = 1;  // mixture-of-experts MLP copies
  bool gated_mlp = false;     // SwiGLU/GeGLU: three MLP matrices instead of two
  bool tied_embeddings = true;
  std::string dtype; // torch_dtype as stated, may be empty
};

// Decoder/encoder transformer parameter count, biases and norms left out:
//   per layer = attention + MLP
//   attention = 2 h^2 (query, output) + 2 h (h kv_heads / heads) (key, value)
//   MLP       = experts x (3 if gated else 2) x h x intermediate
//   total     = layers x per layer + vocab x h (+ vocab x h for an untied head)
std::uint64_t estimate_transformer_parameters(const TransformerShape &shape);

// Reads hyper-parameters from JSON or YAML text; nullopt when the text has no
// mapping with both a hidden size and a layer count. With `settings`, a YAML
// file's scalar settings are added to it as config-setting facts, each at its
// value's line, whatever the shape.
std::optional<TransformerShape> read_model_shape(std::string_view text, const std::string &path,
                                                 FileFacts *settings = nullptr);

FileFacts extract_model_config(std::string_view text, const std::string &path);

} // namespace mpsaudit
