// What one C, C++ or CUDA file may cost the front end. The file is
// attacker-controlled, and a few hundred bytes can make a preprocessor do
// exponential work: a macro that expands to two copies of another, 35
// levels deep, is 2^35 expansions; 41 unguarded headers that each include
// the next twice are 2^41 file entries. Clang has no bound on either. The
// budget counts what clang does (ast_scan.cpp charges it from preprocessor
// and Sema callbacks) and what the gate reads (cxx_frontend.cpp); past any
// bound the file's clang parse is stopped and the file keeps the raw
// lexer's facts, with an error naming the bound (docs/cxx-frontend.md,
// "Bounds").
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace mpsaudit::cxx {

// Every bound is far above what the files of the dev set reach with the
// fixed command line (their peaks: 2,000 macro expansions, 115,000 tokens,
// headers 5 deep, 26 header entries, 1 MB of headers), and above what a
// compilation database's system and PyTorch headers add, yet low enough
// that a file at a bound costs a second or two and a few hundred MiB.
// Template instantiations are counted but not bounded (a file of the dev
// set makes 19,000, and the time and memory bounds cover them).
struct ParseLimits {
  unsigned time_ms = 0;                         // wall time for the file (--max-parse-time); 0: none
  std::uint64_t macro_expansions = 4'000'000;   // macros expanded, nested ones included
  std::uint64_t macro_nesting_bytes = 2u << 20; // stack under a macro expansion: how deep they nest
  std::uint64_t tokens = 16'000'000;            // tokens lexed after expansion, at every level
  std::uint32_t include_depth = 100;            // files open at once, the main file included
  std::uint64_t included_files = 10'000;        // files entered, each entry counted
  std::uint64_t included_bytes = 256ull << 20;  // their bytes, each entry counted
  std::uint64_t memory_bytes = ~0ull;           // what clang's allocators hold (--max-parse-memory)
};

enum class ParseBound : std::uint8_t {
  None,
  Time,
  MacroExpansions,
  Tokens,
  IncludeDepth,
  IncludedFiles,
  IncludedBytes,
  Memory,
  MacroNesting,
};

// What a parse has spent so far.
struct ParseUsage {
  std::uint64_t macro_expansions = 0;
  std::uint64_t peak_macro_nesting_bytes = 0;
  std::uint64_t tokens = 0;
  std::uint32_t include_depth = 0; // now
  std::uint32_t peak_include_depth = 0;
  std::uint64_t included_files = 0;
  std::uint64_t included_bytes = 0;
  std::uint64_t peak_memory = 0;
  std::uint64_t instantiations = 0;
};

// One file's account. Not thread-safe: one file is read by one thread.
// Every charge returns whether the file is still within its bounds; once a
// bound is passed it stays passed, and the first one passed is the one named.
class ParseBudget {
public:
  using Clock = std::chrono::steady_clock;

  explicit ParseBudget(const ParseLimits &limits, Clock::time_point started = Clock::now());
  // A budget whose time runs out at `deadline` (a parse in a worker process).
  static ParseBudget until(const ParseLimits &limits, Clock::time_point deadline);

  // A macro expanded `stack_bytes` down the stack from where the parse
  // began: arguments pre-expanded inside arguments recurse in clang, about
  // a kilobyte of stack a level, and 50,000 levels overflowed the stack.
  bool expand_macro(std::uint64_t stack_bytes = 0);
  bool read_token();
  bool instantiate_template();
  // A header entered (`bytes` long); every entry counts, a header entered
  // twice is charged twice.
  bool enter_file(std::uint64_t bytes);
  void leave_file();
  // What clang holds now, measured by the caller.
  bool hold_memory(std::uint64_t bytes);
  // The clock, read now (the charges above read it every 256 calls).
  bool check_time() { return check_time(Clock::now()); }
  bool check_time(Clock::time_point now);
  // Whether the caller should measure memory now: every 4096 charges.
  bool memory_check_due() const { return charges_ % kChargesPerMemoryCheck == 0; }

  // The same limits and deadline with nothing spent: one clang run's account,
  // to be added to the file's (add_usage, record).
  ParseBudget with_nothing_spent() const;
  // A bound passed where this budget could not count it: in the child
  // process a parse ran in, or by that child's being killed.
  void record(ParseBound bound) { pass(bound); }
  // What such a child spent, added to this budget's usage.
  void add_usage(const ParseUsage &spent);

  bool exceeded() const { return bound_ != ParseBound::None; }
  ParseBound bound() const { return bound_; }
  const ParseLimits &limits() const { return limits_; }
  Clock::time_point deadline() const { return deadline_; }
  const ParseUsage &usage() const { return usage_; }
  // What was passed: "more than 2000000 macro expansions", "longer than
  // 10000 ms (--max-parse-time)".
  std::string describe() const;

private:
  static constexpr std::uint64_t kChargesPerClockCheck = 256;
  static constexpr std::uint64_t kChargesPerMemoryCheck = 4096;

  bool charge(std::uint64_t &count, std::uint64_t limit, ParseBound bound);
  bool pass(ParseBound bound);

  ParseLimits limits_;
  Clock::time_point deadline_;
  ParseBound bound_ = ParseBound::None;
  std::uint64_t charges_ = 0;
  ParseUsage usage_;
};

} // namespace mpsaudit::cxx
