// libFuzzer target: the readers of `mpsaudit compare` and `mpsaudit env` on
// arbitrary text: metric logs (CSV, JSON lines), configs (JSON, YAML, a seed
// file), training logs scanned for CPU fallbacks, environment records and an
// interpreter's query output. Every input goes through all of them, as a run
// directory may hold any file under any of these names.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "acceptance/env_record.h"
#include "acceptance/run_directory.h"

using namespace mpsaudit::acceptance;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  RunDirectory run;
  parse_metrics_csv(text, "metrics.csv", run);
  parse_metrics_jsonl(text, "metrics.jsonl", run);
  flatten_config(text, "config.json", run);
  flatten_config(text, "config.yaml", run);
  flatten_config(text, "seed", run);
  scan_log_for_fallbacks(text, "train.log");
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_discarded()) {
    std::string error;
    env_record_from_json(parsed, error);
    interpreter_from_json(parsed);
  }
  InterpreterRecord record;
  apply_query_output(text, record);
  return 0;
}
