// A restricted pickle reader. It decodes the opcode stream into a graph of
// plain values and NEVER imports or calls anything: a GLOBAL becomes a
// `Global` node naming module and attribute, REDUCE/NEWOBJ/INST/OBJ become
// `Call` nodes that only record what would have been called with what, and
// persistent IDs become `Persistent` nodes. Interpreting that tree (which
// calls are torch tensor rebuilds, which globals are dangerous) is the job of
// checkpoint_reader.cpp; this file knows pickle, not torch.
//
// It reads every protocol (0-5) and is built so that no callable can hide
// from it: wherever Python's unpickler would carry on, it carries on too
// (it stops early only where Python's stops), every GLOBAL, INST,
// STACK_GLOBAL and EXT is recorded, and its memory is bounded in bytes. Past
// that bound it stops building values but keeps scanning opcodes to STOP, so
// GLOBALs after the bound are still recorded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/checkpoint/byte_source.h"

namespace mpsaudit::checkpoint {

enum class PickleKind : std::uint8_t {
  None,
  Bool,
  Int,
  BigInt, // an integer wider than 64 bits (or written oddly): its value is not kept
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

enum class GlobalForm : std::uint8_t {
  Named,     // GLOBAL, INST, or STACK_GLOBAL on two literal strings: module and name are known
  Computed,  // STACK_GLOBAL on values the reader cannot name (results of calls, or past the memory bound)
  Extension, // EXT1/2/4: a copyreg extension code, `name` holds the code
};

// A callable reference found in the stream; each distinct one once.
struct GlobalReference {
  std::string module;
  std::string name;
  std::uint64_t offset = 0; // byte offset of its first opcode
  GlobalForm form = GlobalForm::Named;
};

struct PickleLimits {
  // Bytes of values, stack, marks and memo the decoder may hold. Past it the
  // decoder drops its values and only scans opcodes for callables.
  std::size_t max_memory_bytes = 64ull << 20;
  // Bytes of the stream the decoder reads at most.
  std::uint64_t max_input_bytes = 256ull << 20;
  // Longest string or text argument kept; the rest is read and dropped.
  std::size_t max_kept_string = 1u << 20;
  // Distinct callables recorded; more are counted in `globals_not_kept`.
  std::size_t max_globals = 4096;
};

struct PickleResult {
  bool ok = false;      // STOP reached and `root` holds the whole value tree
  bool stopped = false; // STOP reached: the unpickler would stop here
  // Owns every value; moving the result keeps their addresses.
  std::deque<PickleValue> arena;
  PickleRef root = nullptr;
  std::vector<GlobalReference> globals;
  std::size_t globals_not_kept = 0;
  std::size_t calls = 0; // REDUCE, NEWOBJ, INST, OBJ and BUILD opcodes seen
  int protocol = 0;
  std::uint64_t end_offset = 0; // one past STOP, or where decoding stopped
  std::string error;
  std::uint64_t error_offset = 0;
  bool memory_limit_hit = false; // values were dropped; opcodes were still scanned
  bool input_limit_hit = false;  // the stream went on past max_input_bytes
};

// Decodes one pickle from `input`, whose first byte is at `start_offset` of
// the file (offsets in the result count from there). Never throws.
PickleResult parse_pickle(ByteStream &input, std::uint64_t start_offset = 0, const PickleLimits &limits = {});
// The same on bytes in memory, starting at `start`.
PickleResult parse_pickle(std::string_view bytes, std::size_t start = 0, const PickleLimits &limits = {});

// "module.name" of a Global node, or "" for anything else.
std::string global_name(const PickleValue &value);

} // namespace mpsaudit::checkpoint
