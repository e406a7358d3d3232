// A restricted pickle reader. It decodes the opcode stream into a graph of
// plain values and NEVER imports or calls anything: a GLOBAL becomes a
// `Global` node naming module and attribute, REDUCE/NEWOBJ/INST/OBJ become
// `Call` nodes that only record what would have been called with what, and
// persistent IDs become `Persistent` nodes. Interpreting that tree (which
// calls are torch tensor rebuilds, which globals are dangerous) is the job of
// checkpoint_reader.cpp; this file knows pickle, not torch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpsaudit::checkpoint {

enum class PickleKind : std::uint8_t {
  None,
  Bool,
  Int,
  BigInt, // an integer wider than 64 bits: its value is not kept
  Float,
  String,
  Bytes,
  Tuple,
  List,
  Dict,
  Set,
  Global,     // module in `text`, attribute in `name`
  Call,       // callee(arguments), then items/entries/state applied to the result
  Persistent, // persistent ID (torch storage record) in `persistent`
};

struct PickleValue;
// Values live in the arena of their PickleResult. A pickle may build cycles
// (a list that contains itself through the memo), so values refer to each
// other by plain pointer and are freed all at once with the arena.
using PickleRef = PickleValue *;

struct PickleValue {
  PickleValue() = default;
  PickleValue(const PickleValue &) = delete;
  PickleValue &operator=(const PickleValue &) = delete;

  PickleKind kind = PickleKind::None;
  bool boolean = false;
  std::int64_t integer = 0;
  double real = 0.0;
  std::string text;                                     // String, Bytes, Global module
  std::string name;                                     // Global attribute
  std::vector<PickleRef> items;                         // Tuple, List, Set; APPENDS on a Call
  std::vector<std::pair<PickleRef, PickleRef>> entries; // Dict; SETITEMS on a Call
  PickleRef callee = nullptr;                           // Call
  PickleRef arguments = nullptr;                        // Call: usually a Tuple
  PickleRef state = nullptr;                            // BUILD on a Call
  PickleRef persistent = nullptr;                       // Persistent
};

// A GLOBAL (or INST/STACK_GLOBAL) reference found in the stream.
struct GlobalReference {
  std::string module;
  std::string name;
  std::size_t offset = 0; // byte offset of the opcode
};

struct PickleLimits {
  std::size_t max_operations = 50'000'000;
  std::size_t max_stack = 1'000'000;
  std::size_t max_memo = 10'000'000;
  std::size_t max_values = 20'000'000;
};

struct PickleResult {
  bool ok = false;
  // Owns every value; moving the result keeps their addresses.
  std::deque<PickleValue> arena;
  PickleRef root = nullptr;
  std::vector<GlobalReference> globals;
  int protocol = 0;
  std::size_t end_offset = 0; // one past STOP
  std::string error;
  std::size_t error_offset = 0;
};

// Decodes one pickle starting at `start`. Never throws.
PickleResult parse_pickle(std::string_view bytes, std::size_t start = 0, const PickleLimits &limits = {});

// "module.name" of a Global node, or "" for anything else.
std::string global_name(const PickleValue &value);

} // namespace mpsaudit::checkpoint
