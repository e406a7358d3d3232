#include "frontend/prose/model_config.h"

#include <algorithm>
#include <deque>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "core/fact_kinds.h"
#include "core/text.h"

namespace mpsaudit {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxConfigBytes = 2u << 20;
constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxYamlNodes = 100'000;

// Key spellings across HF transformers, GPT-2/nanoGPT, T5, Megatron and
// timm/ViT configs.
constexpr const char *kHiddenKeys[] = {"hidden_size", "d_model", "n_embd",    "hidden_dim", "embed_dim",
                                       "emb_dim",     "dim",     "model_dim", "n_embed"};
constexpr const char *kLayerKeys[] = {"num_hidden_layers", "num_layers", "n_layer",       "n_layers", "depth",
                                      "num_layer",         "layers",     "n_layers_total"};
constexpr const char *kVocabKeys[] = {"vocab_size", "n_vocab", "padded_vocab_size", "num_tokens"};
constexpr const char *kIntermediateKeys[] = {"intermediate_size", "ffn_dim", "d_ff",         "n_inner",
                                             "ffn_hidden_size",   "mlp_dim", "ffn_embed_dim"};
constexpr const char *kHeadKeys[] = {"num_attention_heads", "n_head", "num_heads", "n_heads",
                                     "encoder_attention_heads"};
constexpr const char *kKvHeadKeys[] = {"num_key_value_heads", "n_kv_heads", "num_kv_heads",
                                       "multi_query_group_num"};
constexpr const char *kExpertKeys[] = {"num_local_experts", "num_experts", "n_routed_experts",
                                       "moe_num_experts"};

std::optional<std::uint64_t> positive_integer(const json &object, const char *key) {
  const auto it = object.find(key);
  if (it == object.end())
    return std::nullopt;
  if (it->is_number_unsigned() || (it->is_number_integer() && it->get<std::int64_t>() > 0))
    return it->get<std::uint64_t>();
  if (it->is_string()) { // YAML scalars arrive as strings
    const std::string &text = it->get_ref<const std::string &>();
    if (!text.empty() && text.size() < 12 &&
        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::stoull(text);
  }
  return std::nullopt;
}

template <std::size_t N> std::uint64_t first_of(const json &object, const char *const (&keys)[N]) {
  for (const char *key : keys)
    if (auto value = positive_integer(object, key))
      return *value;
  return 0;
}

std::string string_at(const json &object, const char *key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<TransformerShape> shape_of(const json &object) {
  TransformerShape shape;
  shape.hidden = first_of(object, kHiddenKeys);
  shape.layers = first_of(object, kLayerKeys);
  if (shape.hidden == 0 || shape.layers == 0 || shape.hidden > 1'000'000 || shape.layers > 10'000)
    return std::nullopt;
  shape.vocab = first_of(object, kVocabKeys);
  shape.intermediate = first_of(object, kIntermediateKeys);
  shape.heads = first_of(object, kHeadKeys);
  shape.kv_heads = first_of(object, kKvHeadKeys);
  shape.experts = std::max<std::uint64_t>(1, first_of(object, kExpertKeys));
  const std::string activation = to_lower(string_at(object, "hidden_act") + string_at(object, "activation") +
                                          string_at(object, "activation_function"));
  const std::string model_type = to_lower(string_at(object, "model_type"));
  shape.gated_mlp =
      activation.find("silu") != std::string::npos || activation.find("swiglu") != std::string::npos ||
      activation.find("geglu") != std::string::npos || activation.find("swish") != std::string::npos;
  for (const char *gated : {"llama", "mistral", "mixtral", "qwen", "gemma", "phi3", "olmo", "deepseek", "yi"})
    if (model_type.find(gated) != std::string::npos)
      shape.gated_mlp = true;
  const auto tie = object.find("tie_word_embeddings");
  if (tie != object.end() && tie->is_boolean())
    shape.tied_embeddings = tie->get<bool>();
  else if (tie != object.end() && tie->is_string())
    shape.tied_embeddings = to_lower(tie->get<std::string>()) != "false";
  shape.dtype = string_at(object, "torch_dtype");
  if (shape.dtype.empty())
    shape.dtype = string_at(object, "dtype");
  return shape;
}

// Breadth-first: the outermost mapping with both keys wins (a "model:"
// section of a training config, or "text_config" of a multimodal one).
std::optional<TransformerShape> find_shape(const json &root) {
  std::deque<std::pair<const json *, int>> queue{{&root, 0}};
  while (!queue.empty()) {
    const auto [node, depth] = queue.front();
    queue.pop_front();
    if (node->is_object()) {
      if (auto shape = shape_of(*node))
        return shape;
    }
    if (depth >= kMaxDepth)
      continue;
    if (node->is_object() || node->is_array())
      for (const auto &child : *node)
        queue.emplace_back(&child, depth + 1);
  }
  return std::nullopt;
}

// `budget` counts converted nodes: YAML aliases can expand exponentially
// ("billion laughs"), and a model config has a few hundred nodes at most.
json yaml_to_json(const YAML::Node &node, int depth, std::size_t &budget) {
  if (depth > kMaxDepth || budget == 0)
    return nullptr;
  --budget;
  switch (node.Type()) {
  case YAML::NodeType::Map: {
    json object = json::object();
    for (const auto &entry : node)
      if (entry.first.IsScalar())
        object[entry.first.Scalar()] = yaml_to_json(entry.second, depth + 1, budget);
    return object;
  }
  case YAML::NodeType::Sequence: {
    json array = json::array();
    for (const auto &item : node)
      array.push_back(yaml_to_json(item, depth + 1, budget));
    return array;
  }
  case YAML::NodeType::Scalar:
    return node.Scalar();
  default:
    return nullptr;
  }
}

// Every scalar setting of a YAML mapping, by its key path, at the value's
// place: what rules read of a config (`device: cuda`, `backend: nccl`).
// `budget` bounds the walk as for yaml_to_json: an alias is walked again
// wherever it is used.
void add_settings(const YAML::Node &node, const std::string &path, int depth, std::size_t &budget,
                  FileFacts &facts) {
  if (depth > kMaxDepth || budget == 0 || !node.IsMap())
    return;
  for (const auto &entry : node) {
    if (budget == 0)
      return;
    --budget;
    if (!entry.first.IsScalar())
      continue;
    const std::string key = path.empty() ? entry.first.Scalar() : path + "." + entry.first.Scalar();
    const YAML::Node &value = entry.second;
    if (value.IsMap()) {
      add_settings(value, key, depth + 1, budget, facts);
      continue;
    }
    if (!value.IsScalar())
      continue;
    const YAML::Mark mark = value.Mark();
    Fact fact;
    fact.kind = fact_kind::ConfigSetting;
    fact.name = key;
    fact.span.line = fact.span.end_line = static_cast<std::uint32_t>(mark.line + 1);
    fact.span.column = static_cast<std::uint32_t>(mark.column + 1);
    fact.span.end_column = fact.span.column + static_cast<std::uint32_t>(value.Scalar().size());
    fact.set_attribute("value", value.Scalar());
    facts.facts.push_back(std::move(fact));
  }
}

// yaml-cpp recurses on nesting; refuse pathological nesting before parsing.
bool nesting_is_sane(std::string_view text) {
  int depth = 0, deepest = 0;
  for (char c : text) {
    if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return deepest <= kMaxDepth;
}

} // namespace

std::uint64_t estimate_transformer_parameters(const TransformerShape &shape) {
  const std::uint64_t h = shape.hidden;
  const std::uint64_t intermediate = shape.intermediate ? shape.intermediate : 4 * h;
  const std::uint64_t heads = shape.heads ? shape.heads : 1;
  const std::uint64_t kv_heads = shape.kv_heads ? shape.kv_heads : heads;
  const std::uint64_t kv_width = shape.heads ? h * kv_heads / heads : h;
  const std::uint64_t attention = 2 * h * h + 2 * h * kv_width;
  const std::uint64_t mlp = shape.experts * (shape.gated_mlp ? 3 : 2) * h * intermediate;
  const std::uint64_t embeddings = shape.vocab * h * (shape.tied_embeddings ? 1 : 2);
  return shape.layers * (attention + mlp) + embeddings;
}

std::optional<TransformerShape> read_model_shape(std::string_view text, const std::string &path,
                                                 FileFacts *settings) {
  if (text.size() > kMaxConfigBytes || !nesting_is_sane(text))
    return std::nullopt;
  if (ends_with(to_lower(path), ".json")) {
    const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded())
      return std::nullopt;
    return find_shape(document);
  }
  try {
    const YAML::Node document = YAML::Load(std::string(text));
    if (settings) {
      std::size_t setting_budget = kMaxYamlNodes;
      add_settings(document, "", 0, setting_budget, *settings);
    }
    std::size_t budget = kMaxYamlNodes;
    return find_shape(yaml_to_json(document, 0, budget));
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

FileFacts extract_model_config(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "lexical";
  if (looks_binary(text) || text.size() > kMaxConfigBytes) {
    facts.mode = "skipped";
    return facts;
  }
  const auto shape = read_model_shape(text, path, &facts);
  if (!shape)
    return facts;
  Fact fact;
  fact.kind = fact_kind::ModelConfig;
  fact.name = "transformer";
  fact.set_attribute("parameters", std::to_string(estimate_transformer_parameters(*shape)));
  fact.set_attribute("hidden_size", std::to_string(shape->hidden));
  fact.set_attribute("num_layers", std::to_string(shape->layers));
  fact.set_attribute("vocab_size", std::to_string(shape->vocab));
  fact.set_attribute("intermediate_size",
                     std::to_string(shape->intermediate ? shape->intermediate : 4 * shape->hidden));
  fact.set_attribute("gated_mlp", shape->gated_mlp ? "true" : "false");
  fact.set_attribute("tied_embeddings", shape->tied_embeddings ? "true" : "false");
  fact.set_attribute("experts", std::to_string(shape->experts));
  if (!shape->dtype.empty())
    fact.set_attribute("dtype", shape->dtype);
  fact.set_attribute("method", "transformer estimate: layers x (attention + MLP) + embeddings");
  facts.facts.push_back(std::move(fact));
  return facts;
}

} // namespace mpsaudit
