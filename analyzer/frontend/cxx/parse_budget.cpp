#include "frontend/cxx/parse_budget.h"

#include <algorithm>

namespace mpsaudit::cxx {

ParseBudget::ParseBudget(const ParseLimits &limits, Clock::time_point started)
    : limits_(limits), deadline_(limits.time_ms == 0 ? Clock::time_point::max()
                                                     : started + std::chrono::milliseconds(limits.time_ms)) {}

ParseBudget ParseBudget::until(const ParseLimits &limits, Clock::time_point deadline) {
  ParseBudget budget(limits);
  budget.deadline_ = deadline;
  return budget;
}

bool ParseBudget::pass(ParseBound bound) {
  if (bound_ == ParseBound::None)
    bound_ = bound;
  return false;
}

bool ParseBudget::check_time(Clock::time_point now) {
  if (exceeded())
    return false;
  return now <= deadline_ || pass(ParseBound::Time);
}

bool ParseBudget::charge(std::uint64_t &count, std::uint64_t limit, ParseBound bound) {
  if (exceeded())
    return false;
  if (++count > limit)
    return pass(bound);
  return ++charges_ % kChargesPerClockCheck != 0 || check_time();
}

bool ParseBudget::expand_macro(std::uint64_t stack_bytes) {
  usage_.peak_macro_nesting_bytes = std::max(usage_.peak_macro_nesting_bytes, stack_bytes);
  if (!exceeded() && stack_bytes > limits_.macro_nesting_bytes)
    return pass(ParseBound::MacroNesting);
  return charge(usage_.macro_expansions, limits_.macro_expansions, ParseBound::MacroExpansions);
}

bool ParseBudget::read_token() {
  return charge(usage_.tokens, limits_.tokens, ParseBound::Tokens);
}

bool ParseBudget::instantiate_template() {
  return charge(usage_.instantiations, ~0ull, ParseBound::None); // a point to read the clock
}

bool ParseBudget::enter_file(std::uint64_t bytes) {
  usage_.peak_include_depth = std::max(usage_.peak_include_depth, ++usage_.include_depth);
  usage_.included_bytes += bytes;
  if (exceeded())
    return false;
  if (usage_.include_depth > limits_.include_depth)
    return pass(ParseBound::IncludeDepth);
  if (usage_.included_bytes > limits_.included_bytes)
    return pass(ParseBound::IncludedBytes);
  return charge(usage_.included_files, limits_.included_files, ParseBound::IncludedFiles);
}

void ParseBudget::leave_file() {
  if (usage_.include_depth > 0)
    --usage_.include_depth;
}

ParseBudget ParseBudget::with_nothing_spent() const {
  ParseBudget fresh(*this);
  fresh.bound_ = ParseBound::None;
  fresh.charges_ = 0;
  fresh.usage_ = ParseUsage();
  return fresh;
}

void ParseBudget::add_usage(const ParseUsage &spent) {
  usage_.macro_expansions += spent.macro_expansions;
  usage_.peak_macro_nesting_bytes = std::max(usage_.peak_macro_nesting_bytes, spent.peak_macro_nesting_bytes);
  usage_.tokens += spent.tokens;
  usage_.peak_include_depth = std::max(usage_.peak_include_depth, spent.peak_include_depth);
  usage_.included_files += spent.included_files;
  usage_.included_bytes += spent.included_bytes;
  usage_.peak_memory = std::max(usage_.peak_memory, spent.peak_memory);
  usage_.instantiations += spent.instantiations;
}

bool ParseBudget::hold_memory(std::uint64_t bytes) {
  usage_.peak_memory = std::max(usage_.peak_memory, bytes);
  if (exceeded())
    return false;
  return bytes <= limits_.memory_bytes || pass(ParseBound::Memory);
}

std::string ParseBudget::describe() const {
  const auto more_than = [](std::uint64_t limit, const char *what) {
    return "more than " + std::to_string(limit) + " " + what;
  };
  switch (bound_) {
  case ParseBound::None:
    return "no bound";
  case ParseBound::Time:
    return "longer than " + std::to_string(limits_.time_ms) + " ms (--max-parse-time)";
  case ParseBound::MacroExpansions:
    return more_than(limits_.macro_expansions, "macro expansions");
  case ParseBound::Tokens:
    return more_than(limits_.tokens, "tokens after macro expansion");
  case ParseBound::IncludeDepth:
    return "#includes nested more than " + std::to_string(limits_.include_depth) + " deep";
  case ParseBound::IncludedFiles:
    return more_than(limits_.included_files, "headers entered (each #include of one counts)");
  case ParseBound::IncludedBytes:
    return more_than(limits_.included_bytes, "bytes of headers entered (each #include of one counts)");
  case ParseBound::MacroNesting:
    return "macro expansions nested more than " + std::to_string(limits_.macro_nesting_bytes >> 10) +
           " KiB of stack deep";
  case ParseBound::Memory:
    if (limits_.memory_bytes == ~0ull)
      return "more memory than could be allocated";
    return more_than(limits_.memory_bytes >> 20, "MiB of memory (--max-parse-memory)");
  }
  return {};
}

} // namespace mpsaudit::cxx
