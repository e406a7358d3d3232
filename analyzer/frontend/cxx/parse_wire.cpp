#include "frontend/cxx/parse_wire.h"

#include <algorithm>
#include <cstring>

namespace mpsaudit::cxx {
namespace {

// Numbers as 8 bytes in this machine's order (both ends are this program),
// texts and lists as a count and their items.
class Encoder {
public:
  Encoder &number(std::uint64_t value) {
    char bytes[sizeof value];
    std::memcpy(bytes, &value, sizeof value);
    bytes_.append(bytes, sizeof bytes);
    return *this;
  }
  Encoder &text(const std::string &value) {
    number(value.size());
    bytes_ += value;
    return *this;
  }
  Encoder &lines(const std::vector<std::uint32_t> &values) {
    number(values.size());
    for (const std::uint32_t value : values)
      number(value);
    return *this;
  }
  std::string take() { return std::move(bytes_); }

private:
  std::string bytes_;
};

// Reads what Encoder wrote; a short or malformed input reads as zeros and
// empty texts, and ok() turns false.
class Decoder {
public:
  explicit Decoder(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t number() {
    std::uint64_t value = 0;
    if (left() < sizeof value) {
      ok_ = false;
      return 0;
    }
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::uint32_t line() { return static_cast<std::uint32_t>(number()); }
  bool flag() { return number() != 0; }
  std::string text() {
    const std::uint64_t size = number();
    if (size > left()) {
      ok_ = false;
      return {};
    }
    std::string value(bytes_.substr(at_, size));
    at_ += size;
    return value;
  }
  // How many items of at least `item_bytes` each follow: never more than
  // the input can hold, whatever the count says.
  std::size_t count(std::size_t item_bytes) {
    const std::uint64_t stated = number();
    const std::uint64_t possible = left() / item_bytes;
    if (stated > possible)
      ok_ = false;
    return static_cast<std::size_t>(std::min(stated, possible));
  }
  std::vector<std::uint32_t> lines() {
    std::vector<std::uint32_t> values(count(8));
    for (auto &value : values)
      value = line();
    return values;
  }
  bool ok() const { return ok_ && at_ == bytes_.size(); }

private:
  std::size_t left() const { return bytes_.size() - at_; }

  std::string_view bytes_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

// The smallest encoding of one item of each list (its numbers and empty
// texts), so that a count cannot make a decoder allocate past its input.
constexpr std::size_t kMissingIncludeBytes = 16;
constexpr std::size_t kRegionBytes = 88;
constexpr std::size_t kLaunchBytes = 56;
constexpr std::size_t kAsmSiteBytes = 40;

void encode_model(Encoder &out, const FileModel &model) {
  out.number(model.regions.size());
  for (const auto &region : model.regions)
    out.number(region.is_kernel)
        .number(region.host_device)
        .number(region.is_template)
        .text(region.name)
        .text(region.qualified_name)
        .number(region.line)
        .number(region.column)
        .number(region.end_column)
        .number(region.body_begin_line)
        .number(region.body_end_line)
        .text(region.origin);
  out.number(model.launches.size());
  for (const auto &launch : model.launches)
    out.text(launch.kernel)
        .text(launch.via)
        .text(launch.config)
        .number(launch.line)
        .number(launch.column)
        .number(launch.end_column)
        .text(launch.origin);
  out.number(model.asm_sites.size());
  for (const auto &site : model.asm_sites)
    out.text(site.text).number(site.line).number(site.column).number(site.end_column).text(site.origin);
  out.lines(model.shared_lines).lines(model.double_lines).lines(model.barrier_lines);
}

void decode_model(Decoder &in, FileModel &model) {
  model.regions.resize(in.count(kRegionBytes));
  for (auto &region : model.regions) {
    region.is_kernel = in.flag();
    region.host_device = in.flag();
    region.is_template = in.flag();
    region.name = in.text();
    region.qualified_name = in.text();
    region.line = in.line();
    region.column = in.line();
    region.end_column = in.line();
    region.body_begin_line = in.line();
    region.body_end_line = in.line();
    region.origin = in.text();
  }
  model.launches.resize(in.count(kLaunchBytes));
  for (auto &launch : model.launches) {
    launch.kernel = in.text();
    launch.via = in.text();
    launch.config = in.text();
    launch.line = in.line();
    launch.column = in.line();
    launch.end_column = in.line();
    launch.origin = in.text();
  }
  model.asm_sites.resize(in.count(kAsmSiteBytes));
  for (auto &site : model.asm_sites) {
    site.text = in.text();
    site.line = in.line();
    site.column = in.line();
    site.end_column = in.line();
    site.origin = in.text();
  }
  model.shared_lines = in.lines();
  model.double_lines = in.lines();
  model.barrier_lines = in.lines();
}

void encode_diagnostics(Encoder &out, const DiagnosticSummary &seen) {
  out.number(seen.missing_includes.size());
  for (const auto &missing : seen.missing_includes)
    out.text(missing.header).number(missing.line);
  out.number(seen.parse_errors).text(seen.first_parse_error).number(seen.first_parse_error_line);
  out.text(seen.first_error).number(seen.first_error_line).number(seen.fatal).text(seen.fatal_message);
}

void decode_diagnostics(Decoder &in, DiagnosticSummary &seen) {
  seen.missing_includes.resize(in.count(kMissingIncludeBytes));
  for (auto &missing : seen.missing_includes) {
    missing.header = in.text();
    missing.line = in.line();
  }
  seen.parse_errors = in.line();
  seen.first_parse_error = in.text();
  seen.first_parse_error_line = in.line();
  seen.first_error = in.text();
  seen.first_error_line = in.line();
  seen.fatal = in.flag();
  seen.fatal_message = in.text();
}

} // namespace

std::string encode_request(const ParseRequest &request) {
  Encoder out;
  const Invocation &invocation = request.invocation;
  out.number(invocation.arguments.size());
  for (const auto &argument : invocation.arguments)
    out.text(argument);
  out.text(invocation.working_directory).text(invocation.source).text(request.main_path).text(request.text);
  out.number(request.skip_unread_bodies);
  const ParseLimits &limits = request.limits;
  out.number(limits.time_ms)
      .number(limits.macro_expansions)
      .number(limits.macro_nesting_bytes)
      .number(limits.tokens)
      .number(limits.include_depth)
      .number(limits.included_files)
      .number(limits.included_bytes)
      .number(limits.memory_bytes)
      .number(static_cast<std::uint64_t>(request.deadline.time_since_epoch().count()));
  return out.take();
}

std::optional<ParseRequest> decode_request(std::string_view bytes) {
  Decoder in(bytes);
  ParseRequest request;
  Invocation &invocation = request.invocation;
  invocation.arguments.resize(in.count(8));
  for (auto &argument : invocation.arguments)
    argument = in.text();
  invocation.working_directory = in.text();
  invocation.source = in.text();
  request.main_path = in.text();
  request.text = in.text();
  request.skip_unread_bodies = in.flag();
  ParseLimits &limits = request.limits;
  limits.time_ms = in.line();
  limits.macro_expansions = in.number();
  limits.macro_nesting_bytes = in.number();
  limits.tokens = in.number();
  limits.include_depth = in.line();
  limits.included_files = in.number();
  limits.included_bytes = in.number();
  limits.memory_bytes = in.number();
  request.deadline = ParseBudget::Clock::time_point(
      ParseBudget::Clock::duration(static_cast<ParseBudget::Clock::rep>(in.number())));
  if (!in.ok())
    return std::nullopt;
  return request;
}

std::string encode_outcome(const ParseOutcome &outcome) {
  Encoder out;
  out.number(outcome.ran).number(outcome.crashed);
  encode_diagnostics(out, outcome.diagnostics);
  encode_model(out, outcome.model);
  const ParseUsage &usage = outcome.usage;
  out.number(static_cast<std::uint64_t>(outcome.bound))
      .number(usage.macro_expansions)
      .number(usage.peak_macro_nesting_bytes)
      .number(usage.tokens)
      .number(usage.peak_include_depth)
      .number(usage.included_files)
      .number(usage.included_bytes)
      .number(usage.peak_memory)
      .number(usage.instantiations)
      .number(outcome.skipped_bodies)
      .number(outcome.dropped_instantiations);
  return out.take();
}

std::optional<ParseOutcome> decode_outcome(std::string_view bytes) {
  Decoder in(bytes);
  ParseOutcome outcome;
  outcome.ran = in.flag();
  outcome.crashed = in.flag();
  decode_diagnostics(in, outcome.diagnostics);
  decode_model(in, outcome.model);
  const std::uint64_t bound = in.number();
  ParseUsage &usage = outcome.usage;
  usage.macro_expansions = in.number();
  usage.peak_macro_nesting_bytes = in.number();
  usage.tokens = in.number();
  usage.peak_include_depth = in.line();
  usage.included_files = in.number();
  usage.included_bytes = in.number();
  usage.peak_memory = in.number();
  usage.instantiations = in.number();
  outcome.skipped_bodies = in.number();
  outcome.dropped_instantiations = in.number();
  if (!in.ok() || bound > static_cast<std::uint64_t>(ParseBound::MacroNesting))
    return std::nullopt;
  outcome.bound = static_cast<ParseBound>(bound);
  return outcome;
}

} // namespace mpsaudit::cxx
