// Reading our own TOML data files (rules, fixes) strictly: every problem is a
// diagnostic naming the file and line, and unknown keys are errors, so that a
// typo never passes silently.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "core/diagnostic.h"

namespace mpsaudit {

class TomlFileReader {
public:
  // `code` is the diagnostic code of every problem, e.g. "invalid-rule".
  TomlFileReader(std::string origin, std::string code, std::vector<Diagnostic> &diagnostics)
      : origin_(std::move(origin)), code_(std::move(code)), diagnostics_(diagnostics) {}

  // The parsed document, or nothing after a diagnostic for the syntax error.
  std::optional<toml::table> parse(std::string_view text) {
    try {
      return toml::parse(text, origin_);
    } catch (const toml::parse_error &problem) {
      add(static_cast<std::uint32_t>(problem.source().begin.line), std::string(problem.description()));
      return std::nullopt;
    }
  }

  void error(const toml::node *node, const std::string &message) {
    add(node ? static_cast<std::uint32_t>(node->source().begin.line) : 0, message);
  }

  void check_keys(const toml::table &table, std::initializer_list<std::string_view> allowed,
                  const std::string &where) {
    for (const auto &[key, node] : table)
      if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end())
        error(&node, "unknown key '" + std::string(key.str()) + "' in " + where);
  }

  std::string string_at(const toml::table &table, std::string_view key, const std::string &where,
                        bool required) {
    const toml::node *node = table.get(key);
    if (!node) {
      if (required)
        error(&table, "missing key '" + std::string(key) + "' in " + where);
      return {};
    }
    if (auto value = node->value<std::string>())
      return *value;
    error(node, "key '" + std::string(key) + "' in " + where + " must be a string");
    return {};
  }

  // A boolean, or `fallback` where the key is absent.
  bool bool_at(const toml::table &table, std::string_view key, const std::string &where, bool fallback) {
    const toml::node *node = table.get(key);
    if (!node)
      return fallback;
    if (auto value = node->value_exact<bool>()) // not `1`, which value<bool>() would take
      return *value;
    error(node, "'" + std::string(key) + "' must be a boolean in " + where);
    return fallback;
  }

  // A string or an array of strings.
  std::vector<std::string> strings_at(const toml::table &table, std::string_view key,
                                      const std::string &where) {
    std::vector<std::string> out;
    const toml::node *node = table.get(key);
    if (!node)
      return out;
    if (auto value = node->value<std::string>()) {
      out.push_back(*value);
    } else if (const auto *array = node->as_array()) {
      for (const auto &element : *array) {
        if (auto item = element.value<std::string>())
          out.push_back(*item);
        else
          error(&element, "'" + std::string(key) + "' in " + where + " must hold strings");
      }
    } else {
      error(node, "'" + std::string(key) + "' in " + where + " must be a string or an array of strings");
    }
    return out;
  }

  const std::string &origin() const { return origin_; }

private:
  void add(std::uint32_t line, std::string message) {
    Diagnostic diagnostic;
    diagnostic.level = DiagnosticLevel::Error;
    diagnostic.path = origin_;
    diagnostic.line = line;
    diagnostic.code = code_;
    diagnostic.message = std::move(message);
    diagnostics_.push_back(std::move(diagnostic));
  }

  std::string origin_;
  std::string code_;
  std::vector<Diagnostic> &diagnostics_;
};

} // namespace mpsaudit
