// What a clang parse in a worker process (ast_scan.cpp, "the parse's
// process") is sent and sends back, and how both are encoded on the socket
// between them. Plain data, no clang: the decoders take whatever bytes come
// and refuse what does not read back whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/cxx/file_model.h"
#include "frontend/cxx/parse_budget.h"

namespace mpsaudit::cxx {

// The command line clang is run with for one file.
struct Invocation {
  std::vector<std::string> arguments;
  std::string working_directory;
  std::string source; // "compile_commands.json" or "fixed"
};

struct ParseRequest {
  Invocation invocation;
  std::string main_path; // where clang sees the file (its text is in memory)
  std::string text;
  bool skip_unread_bodies = true;
  ParseLimits limits;
  ParseBudget::Clock::time_point deadline;
};

struct MissingInclude {
  std::string header;
  std::uint32_t line = 0;
};

// What a parse's diagnostics say, as the report uses it.
struct DiagnosticSummary {
  std::vector<MissingInclude> missing_includes;
  std::uint32_t parse_errors = 0;
  std::string first_parse_error;
  std::uint32_t first_parse_error_line = 0;
  std::string first_error;
  std::uint32_t first_error_line = 0;
  bool fatal = false;
  std::string fatal_message;
};

// What one clang run gives back.
struct ParseOutcome {
  bool ran = false; // the AST was built and visited
  bool crashed = false;
  DiagnosticSummary diagnostics;
  FileModel model;
  ParseBound bound = ParseBound::None; // the first bound the run passed
  ParseUsage usage;
  // The worker's counts, added to this process's (ast_scan.h's counters).
  std::uint64_t skipped_bodies = 0;
  std::uint64_t dropped_instantiations = 0;
};

std::string encode_request(const ParseRequest &request);
std::optional<ParseRequest> decode_request(std::string_view bytes);
std::string encode_outcome(const ParseOutcome &outcome);
std::optional<ParseOutcome> decode_outcome(std::string_view bytes);

} // namespace mpsaudit::cxx
