// Writers: they know the report model (ScanResult and the catalog), not how
// findings were made.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "rules/rule.h"
#include "scan/scan.h"

namespace mpsaudit {

// Version of the JSON report's shape (docs/report.schema.json).
inline constexpr int kReportSchemaVersion = 1;

struct ReportContext {
  std::string tool_version;
  const RuleCatalog *catalog = nullptr;
};

// The full report model as JSON (docs/report.schema.json).
nlohmann::json report_to_json(const ScanResult &result, const ReportContext &context);

struct TextOptions {
  bool color = false;
};
void write_text_report(std::ostream &out, const ScanResult &result, const ReportContext &context,
                       const TextOptions &options);

// One line of summary: counts by severity and files scanned.
std::string summary_line(const ScanResult &result);

} // namespace mpsaudit
