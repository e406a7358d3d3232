// The streaming JSON writer: byte-identical to nlohmann's dump(2), so that
// the JSON and SARIF reports can stream their findings without changing a
// byte of their output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "../test_support.h"
#include "report/json_stream.h"
#include "report/report.h"

using namespace mpsaudit;

namespace {

// Writes `value` through the stream writer, element by element where it is
// a container, as the report writers do.
void stream(JsonStreamWriter &json, const nlohmann::json &value) {
  if (value.is_object()) {
    json.begin_object();
    for (const auto &[key, member] : value.items()) {
      json.key(key);
      stream(json, member);
    }
    json.end_object();
  } else if (value.is_array()) {
    json.begin_array();
    for (const auto &element : value)
      stream(json, element);
    json.end_array();
  } else {
    json.value(value);
  }
}

std::string dump2(const nlohmann::json &value) {
  return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

TEST_CASE("streamed JSON is byte-identical to dump(2), nested, empty and escaped", "[report][json-stream]") {
  const nlohmann::json document = {
      {"empty_array", nlohmann::json::array()},
      {"empty_object", nlohmann::json::object()},
      {"nested", {{"list", {1, 2.5, "three", nullptr, true}}, {"deeper", {{"a", {{"b", {{"c", "d"}}}}}}}}},
      {"objects", {{{"x", 1}}, {{"y", nlohmann::json::array()}}, nlohmann::json::object()}},
      {"escapes", "quote \" backslash \\ newline \n tab \t unicode é"},
      {"invalid_utf8", std::string("bad \xff\xfe byte")},
  };
  // Built-up containers, streamed one element at a time.
  std::ostringstream streamed;
  JsonStreamWriter json(streamed);
  stream(json, document);
  CHECK(streamed.str() == dump2(document));

  // Whole values at any depth: the writer shifts their lines to its depth.
  std::ostringstream mixed;
  JsonStreamWriter writer(mixed);
  writer.begin_object();
  for (const auto &[key, member] : document.items())
    writer.member(key, member);
  writer.end_object();
  CHECK(mixed.str() == dump2(document));

  std::ostringstream empty;
  JsonStreamWriter empty_writer(empty);
  empty_writer.begin_array();
  empty_writer.end_array();
  CHECK(empty.str() == "[]");
}

TEST_CASE("flat objects are written as nlohmann writes them, escapes and nested members included",
          "[report][json-stream]") {
  const std::string every_control = [] {
    std::string text;
    for (char c = 1; c < 0x20; ++c)
      text += c;
    return text + "\x7f";
  }();
  const std::vector<std::pair<std::string, std::string>> strings = {
      {"a_plain", "torch.cuda.synchronize()"},
      {"b_quotes", "say \"hi\" \\ back\\slash"},
      {"c_controls", every_control},
      {"d_unicode", "café — 数据 🚀"},
      {"e_invalid", std::string("bad \xff\xfe and \xc3\x28 bytes")},
      {"f_empty", ""},
  };
  FlatJsonObject flat;
  nlohmann::json expected = nlohmann::json::object();
  for (const auto &[key, text] : strings) {
    flat.add(key, text);
    expected[key] = text;
  }
  flat.add("g_number", std::int64_t{-42});
  expected["g_number"] = -42;
  flat.add("h_flag", true);
  expected["h_flag"] = true;
  const nlohmann::json nested = {{"chain", {"train.py", "pkg/model.py"}},
                                 {"entries", nlohmann::json::array()},
                                 {"status", "reached"},
                                 {"deeper", {{"list", {1, "two\n"}}}}};
  flat.add_nested("i_nested", nested);
  expected["i_nested"] = nested;
  for (int depth = 0; depth < 3; ++depth) {
    std::ostringstream out;
    JsonStreamWriter json(out);
    nlohmann::json wrapped = expected;
    for (int level = 0; level < depth; ++level)
      json.begin_array();
    json.value(flat);
    for (int level = 0; level < depth; ++level) {
      json.end_array();
      wrapped = nlohmann::json::array({wrapped});
    }
    CHECK(out.str() == dump2(wrapped));
  }
  std::ostringstream empty_out;
  JsonStreamWriter empty_writer(empty_out);
  empty_writer.value(FlatJsonObject{});
  CHECK(empty_out.str() == "{}");
}

TEST_CASE("the JSON and SARIF reports stream exactly what nlohmann would print", "[report][json-stream]") {
  // Re-printing the parsed report must give the same bytes: members are in
  // sorted order and laid out as dump(2) lays them out.
  ScanResult scan;
  scan.root = ".";
  const std::string text =
      "import torch\nx = torch.zeros(1).cuda()\ntorch.cuda.synchronize()  # caf\xc3\xa9\n";
  scan.files.push_back({"train.py", FileKind::Python, "ast", text.size(), 3});
  scan.project_files.push_back(
      {"train.py", FileKind::Python, testing::extract(FileKind::Python, text, "train.py")});
  scan.findings = testing::findings_for(FileKind::Python, text, "train.py");
  std::sort(scan.findings.begin(), scan.findings.end(), finding_less);
  REQUIRE(scan.findings.size() >= 2);
  scan.diagnostics.push_back({DiagnosticLevel::Warning, "bad\xff.py", 1, "invalid-utf8", "not UTF-8"});
  AssessmentInput input;
  input.scan = &scan;
  const Assessment assessment = assess(input);
  ReportContext context{"9.9.9", &testing::repository_catalog()};
  context.assessment = &assessment;

  std::ostringstream json_out;
  write_json_report(json_out, scan, context);
  const nlohmann::json json_report = nlohmann::json::parse(json_out.str());
  CHECK(json_out.str() == dump2(json_report) + "\n");
  CHECK(json_report["findings"].size() == scan.findings.size());
  CHECK(json_report["assessment"]["decision"]["outcome"] ==
        std::string(to_string(assessment.decision.outcome)));

  std::ostringstream sarif_out;
  write_sarif_report(sarif_out, scan, context);
  const nlohmann::json sarif = nlohmann::json::parse(sarif_out.str());
  CHECK(sarif_out.str() == dump2(sarif) + "\n");
  CHECK(sarif["runs"][0]["results"].size() == scan.findings.size());
  CHECK(sarif["version"] == "2.1.0");
}
