#include "frontend/checkpoint/pickle_reader.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/free_memory.h"

namespace mpsaudit::checkpoint {
namespace {

constexpr std::size_t kChunk = 64 * 1024; // bytes read from the stream at a time
// What one memo entry costs: an unordered_map node and its share of buckets.
constexpr std::size_t kMemoEntryBytes = 64;
// Module and attribute names are kept up to this length; a longer one is no
// name Python could import, and is reported as it was cut.
constexpr std::size_t kMaxGlobalName = 1024;

// Thrown inside the decoder only; parse_pickle turns it into an error result.
struct PickleError {
  std::string message;
};

// Thrown before an allocation that would take the decoder past its memory
// bound; the decoder then drops its values and only scans on.
struct MemoryBound {};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

unsigned hex_value(char c) {
  return c <= '9' ? static_cast<unsigned>(c - '0') : static_cast<unsigned>((c | 0x20) - 'a' + 10);
}

// A decimal integer as Python's int() reads the argument of a text opcode:
// whitespace around it, a sign, underscores between digits; the C unpickler
// stops at a NUL. Accepts a little more than Python (doubled underscores),
// never less, so the memo indexes it gives agree with Python's whenever
// Python accepts them. nullopt for anything else or a value past int64.
std::optional<std::int64_t> python_integer(std::string_view text) {
  text = text.substr(0, text.find('\0'));
  while (!text.empty() && is_space(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && is_space(text.back()))
    text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.front() < '0' || text.front() > '9')
    return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (c == '_')
      continue;
    if (c < '0' || c > '9' || value > (INT64_MAX - 9) / 10)
      return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

void append_utf8(std::string &out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// The STRING opcode's argument (without its quotes) as Python decodes it
// (PyBytes_DecodeEscape): `S'o\x73'` is "os". Escapes Python rejects are
// kept as written.
std::string decode_string_escapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char c = text[++i];
    switch (c) {
    case '\n': // line continuation
      break;
    case '\\':
    case '\'':
    case '"':
      out += c;
      break;
    case 'a':
      out += '\a';
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'v':
      out += '\v';
      break;
    case 'x':
      if (i + 2 < text.size() && is_hex(text[i + 1]) && is_hex(text[i + 2])) {
        out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
        i += 2;
      } else {
        out += "\\x";
      }
      break;
    default:
      if (c >= '0' && c <= '7') {
        unsigned value = static_cast<unsigned>(c - '0');
        for (int digits = 1; digits < 3 && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '7';
             ++digits)
          value = value * 8 + static_cast<unsigned>(text[++i] - '0');
        out += static_cast<char>(value & 0xFF);
      } else {
        out += '\\';
        out += c;
      }
    }
  }
  return out;
}

// The UNICODE opcode's argument as Python decodes it (raw-unicode-escape):
// \uXXXX and \UXXXXXXXX are code points, every other byte is Latin-1.
// `V\u006fs` is "os". Malformed escapes are kept as written.
std::string decode_raw_unicode_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == 'u' || text[i + 1] == 'U')) {
      const std::size_t digits = text[i + 1] == 'u' ? 4 : 8;
      if (i + 2 + digits <= text.size() &&
          std::all_of(text.begin() + static_cast<std::ptrdiff_t>(i + 2),
                      text.begin() + static_cast<std::ptrdiff_t>(i + 2 + digits), is_hex)) {
        std::uint32_t code = 0;
        for (std::size_t d = 0; d < digits; ++d)
          code = code * 16 + hex_value(text[i + 2 + d]);
        if (code <= 0x10FFFF) {
          append_utf8(out, code);
          i += 1 + digits;
          continue;
        }
      }
    }
    append_utf8(out, c);
  }
  return out;
}

// A value whose Python type the reader knows: anything but the result of a
// call, a callable itself, or a persistent load.
bool is_literal(const PickleValue &value) {
  return value.kind != PickleKind::Call && value.kind != PickleKind::Global &&
         value.kind != PickleKind::Persistent;
}

class Decoder {
public:
  Decoder(ByteStream &input, std::uint64_t start, const PickleLimits &limits, PickleResult &result)
      : input_(input), buffer_offset_(start), limits_(limits), result_(result) {}

  void run() {
    try {
      decode();
    } catch (const PickleError &error) {
      result_.error = error.message;
      result_.error_offset = opcode_at_;
    } catch (const std::bad_alloc &) {
      result_.error = "out of memory while decoding";
      result_.error_offset = opcode_at_;
    }
    result_.end_offset = position();
  }

private:
  // --- reading the stream ------------------------------------------------

  std::uint64_t position() const { return buffer_offset_ + read_at_; }

  [[noreturn]] void fail(const std::string &message) {
    throw PickleError{message + " at byte " + std::to_string(opcode_at_)};
  }
  [[noreturn]] void truncated() {
    const std::string why = input_.error();
    fail("the stream ends inside the pickle (truncated)" + (why.empty() ? std::string() : ": " + why));
  }

  // Makes `count` unread bytes available; false when the stream ends first.
  bool fill(std::size_t count) {
    while (buffer_.size() - read_at_ < count) {
      if (read_at_ > 0) {
        buffer_.erase(0, read_at_);
        buffer_offset_ += read_at_;
        read_at_ = 0;
      }
      if (input_ended_)
        return false;
      if (fed_ >= limits_.max_input_bytes) {
        char probe;
        if (input_.read_some(&probe, 1) == 1) {
          result_.input_limit_hit = true;
          fail("the pickle goes on past the scan limit of " + std::to_string(limits_.max_input_bytes) +
               " bytes");
        }
        input_ended_ = true;
        return false;
      }
      const auto want =
          static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, limits_.max_input_bytes - fed_));
      const std::size_t old_size = buffer_.size();
      buffer_.resize(old_size + want);
      const std::size_t got = input_.read_some(buffer_.data() + old_size, want);
      buffer_.resize(old_size + got);
      fed_ += got;
      if (got == 0)
        input_ended_ = true;
    }
    return true;
  }

  unsigned char byte() {
    if (!fill(1))
      truncated();
    return static_cast<unsigned char>(buffer_[read_at_++]);
  }
  std::uint64_t little(std::size_t width) {
    if (!fill(width))
      truncated();
    std::uint64_t value = 0;
    for (std::size_t i = width; i-- > 0;)
      value = (value << 8) | static_cast<unsigned char>(buffer_[read_at_ + i]);
    read_at_ += width;
    return value;
  }
  // Reads `length` bytes; keeps the first `keep` of them in `out` (if given).
  void read_bytes(std::uint64_t length, std::string *out, std::size_t keep) {
    if (out)
      out->clear();
    while (length > 0) {
      if (!fill(1))
        truncated();
      const auto available =
          static_cast<std::size_t>(std::min<std::uint64_t>(length, buffer_.size() - read_at_));
      if (out && out->size() < keep)
        out->append(buffer_, read_at_, std::min(available, keep - out->size()));
      read_at_ += available;
      length -= available;
    }
  }
  std::string bytes(std::uint64_t length) {
    std::string out;
    read_bytes(length, &out, limits_.max_kept_string);
    return out;
  }
  void skip(std::uint64_t length) { read_bytes(length, nullptr, 0); }
  // A newline-terminated argument, without its newline, cut at `keep` bytes.
  std::string line(std::size_t keep) {
    std::string out;
    while (true) {
      if (!fill(1))
        truncated();
      const std::size_t newline = buffer_.find('\n', read_at_);
      const std::size_t end = newline == std::string::npos ? buffer_.size() : newline;
      if (out.size() < keep)
        out.append(buffer_, read_at_, std::min(end - read_at_, keep - out.size()));
      read_at_ = end;
      if (newline != std::string::npos) {
        ++read_at_;
        return out;
      }
    }
  }
  std::string line() { return line(limits_.max_kept_string); }

  // --- values, stack, marks and memo, accounted in bytes -----------------

  // Every allocation is admitted before it is made, and never credited
  // back when freed: the charge stays above what the decoder really holds.
  void admit(std::size_t bytes) {
    if (bytes > limits_.max_memory_bytes - std::min(charged_, limits_.max_memory_bytes))
      throw MemoryBound{};
    charged_ += bytes;
  }

  // A vector that grows holds its old and new buffers at once: the new one
  // is admitted in full.
  template <typename T> void append(std::vector<T> &vector, T item) {
    if (vector.size() == vector.capacity())
      admit(std::max<std::size_t>(1, 2 * vector.capacity()) * sizeof(T));
    vector.push_back(std::move(item));
  }

  PickleRef make(PickleKind kind) {
    admit(sizeof(PickleValue));
    result_.arena.emplace_back();
    PickleRef value = &result_.arena.back();
    value->kind = kind;
    return value;
  }
  PickleRef make_string(PickleKind kind, std::string text) {
    admit(text.size());
    PickleRef value = make(kind);
    value->text = std::move(text);
    return value;
  }
  PickleRef make_int(std::int64_t integer) {
    PickleRef value = make(PickleKind::Int);
    value->integer = integer;
    return value;
  }
  PickleRef make_bool(bool boolean) {
    PickleRef value = make(PickleKind::Bool);
    value->boolean = boolean;
    return value;
  }
  PickleRef make_sequence(PickleKind kind, std::vector<PickleRef> items) {
    PickleRef value = make(kind); // the items were admitted by pop_mark or their opcode
    value->items = std::move(items);
    return value;
  }

  void push(PickleRef value) { append(stack_, value); }
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  PickleRef pop() {
    if (stack_.size() <= floor())
      fail("stack underflow");
    PickleRef value = stack_.back();
    stack_.pop_back();
    return value;
  }
  PickleRef &top() {
    if (stack_.size() <= floor())
      fail("stack underflow");
    return stack_.back();
  }
  std::vector<PickleRef> pop_mark() {
    if (marks_.empty())
      fail("no MARK to pop to");
    const std::size_t mark = marks_.back();
    admit((stack_.size() - mark) * sizeof(PickleRef));
    marks_.pop_back();
    std::vector<PickleRef> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
    return items;
  }
  void memo_put(std::optional<std::int64_t> index) {
    if (!index || *index < 0)
      fail("a memo index Python would refuse");
    PickleRef value = top();
    const auto key = static_cast<std::uint64_t>(*index);
    if (!memo_.count(key))
      admit(kMemoEntryBytes);
    memo_[key] = value;
  }
  PickleRef memo_get(std::optional<std::int64_t> index) {
    const auto it = index ? memo_.find(static_cast<std::uint64_t>(*index)) : memo_.end();
    if (it == memo_.end())
      fail("a memo key that was never stored");
    return it->second;
  }

  // Past the memory bound: frees every value and keeps scanning opcodes only.
  void drop_values() {
    result_.memory_limit_hit = true;
    result_.root = nullptr;
    std::vector<PickleRef>().swap(stack_);
    std::vector<std::size_t>().swap(marks_);
    std::unordered_map<std::uint64_t, PickleRef>().swap(memo_);
    result_.arena.clear();
    result_.arena.shrink_to_fit();
    return_free_memory(); // so that the next pickle starts from the same footprint
  }

  // --- callables ----------------------------------------------------------

  void record(std::string module, std::string name, GlobalForm form) {
    module.resize(std::min(module.size(), kMaxGlobalName));
    name.resize(std::min(name.size(), kMaxGlobalName));
    std::string key = module;
    key += '\n';
    key += name;
    key += static_cast<char>('0' + static_cast<int>(form));
    if (seen_globals_.count(key))
      return;
    if (result_.globals.size() >= limits_.max_globals) {
      ++result_.globals_not_kept;
      return;
    }
    seen_globals_.insert(std::move(key));
    result_.globals.push_back({std::move(module), std::move(name), opcode_at_, form});
  }
  void record_extension(std::uint64_t code) {
    record("copyreg", "extension code " + std::to_string(code), GlobalForm::Extension);
  }

  PickleRef global(const std::string &module, const std::string &name, GlobalForm form) {
    record(module, name, form);
    admit(module.size() + name.size());
    PickleRef value = make(PickleKind::Global);
    value->text = module;
    value->name = name;
    return value;
  }

  PickleRef call(PickleRef callee, PickleRef arguments) {
    ++result_.calls;
    PickleRef value = make(PickleKind::Call);
    value->callee = callee;
    value->arguments = arguments;
    return value;
  }

  // APPEND(S), SETITEM(S) and ADDITEMS go to whatever is below them: Python
  // calls the object's own append/__setitem__/add, which a call result may
  // well have, so the reader records them rather than stopping.
  void add_items(PickleRef target, std::vector<PickleRef> &items) {
    for (PickleRef item : items)
      append(target->items, item);
  }
  void set_items(PickleRef target, std::vector<PickleRef> &items) {
    if (items.size() % 2 != 0)
      fail("SETITEMS with an odd number of items");
    for (std::size_t i = 0; i < items.size(); i += 2)
      append(target->entries, std::make_pair(items[i], items[i + 1]));
  }

  void set_protocol(unsigned version) {
    if (version > 5)
      fail("unsupported pickle protocol " + std::to_string(version));
    result_.protocol = static_cast<int>(version);
  }

  // --- the opcode loop ----------------------------------------------------

  unsigned char next_opcode() {
    opcode_at_ = position();
    if (!fill(1))
      truncated();
    return byte();
  }

  void decode() {
    while (true) {
      const unsigned char opcode = next_opcode();
      if (opcode == '.') { // STOP
        result_.stopped = true;
        result_.root = pop();
        result_.ok = true;
        return;
      }
      try {
        step(opcode);
      } catch (const MemoryBound &) {
        // The opcode's argument is read and any callable it names recorded;
        // only the value it would have made is lost, with all the others.
        drop_values();
        skim();
        return;
      }
    }
  }

  // After the memory bound: every opcode's argument is read and dropped,
  // callables are still recorded. STACK_GLOBAL names come from the stack,
  // which is no longer kept, so each counts as a computed callable.
  void skim() {
    while (true) {
      const unsigned char opcode = next_opcode();
      switch (opcode) {
      case '.':
        result_.stopped = true;
        return;
      case 'c':
      case 'i': {
        std::string module = line(kMaxGlobalName);
        std::string name = line(kMaxGlobalName);
        record(std::move(module), std::move(name), GlobalForm::Named);
        if (opcode == 'i')
          ++result_.calls;
        break;
      }
      case 0x93:
        record({}, {}, GlobalForm::Computed);
        break;
      case 0x82:
        record_extension(byte());
        break;
      case 0x83:
        record_extension(little(2));
        break;
      case 0x84:
        record_extension(little(4));
        break;
      case 0x80:
        set_protocol(byte());
        break;
      case 'R':
      case 'o':
      case 'b':
      case 0x81:
      case 0x92:
        ++result_.calls;
        break;
      default:
        skip_argument(opcode);
      }
    }
  }

  // Reads the argument of an opcode that names no callable.
  void skip_argument(unsigned char opcode) {
    switch (opcode) {
    case '(':
    case ')':
    case '0':
    case '1':
    case '2':
    case 'N':
    case ']':
    case 'a':
    case 'd':
    case 'e':
    case 'l':
    case 's':
    case 't':
    case 'u':
    case '}':
    case 'Q':
    case 0x85:
    case 0x86:
    case 0x87:
    case 0x88:
    case 0x89:
    case 0x8f:
    case 0x90:
    case 0x91:
    case 0x94:
    case 0x98:
      return;
    case 'K':
    case 'q':
    case 'h':
      skip(1);
      return;
    case 'M':
      skip(2);
      return;
    case 'J':
    case 'r':
    case 'j':
      skip(4);
      return;
    case 'G':
    case 0x95:
      skip(8);
      return;
    case 'I':
    case 'L':
    case 'F':
    case 'S':
    case 'V':
    case 'p':
    case 'g':
    case 'P':
      line(0);
      return;
    case 'U':
    case 'C':
    case 0x8c:
    case 0x8a:
      skip(byte());
      return;
    case 'T':
    case 'X':
    case 'B':
    case 0x8b:
      skip(little(4));
      return;
    case 0x8d:
    case 0x8e:
    case 0x96:
      skip(little(8));
      return;
    default:
      unknown_opcode(opcode);
    }
  }

  [[noreturn]] void unknown_opcode(unsigned char opcode) {
    if (opcode == 0x97)
      fail("NEXT_BUFFER (out-of-band data), which torch.load never supplies");
    fail("unknown opcode 0x" + std::string(1, "0123456789abcdef"[opcode >> 4]) +
         std::string(1, "0123456789abcdef"[opcode & 15]));
  }

  void step(unsigned char opcode) {
    switch (opcode) {
    case 0x80: // PROTO
      set_protocol(byte());
      break;
    case 0x95: // FRAME: a length prefix only
      skip(8);
      break;
    case '(': // MARK
      append(marks_, stack_.size());
      break;
    case '0': // POP: Python pops a MARK when one is on top
      if (!marks_.empty() && marks_.back() == stack_.size())
        marks_.pop_back();
      else
        pop();
      break;
    case '1': // POP_MARK
      pop_mark();
      break;
    case '2': // DUP
      push(top());
      break;
    case 'N':
      push(make(PickleKind::None));
      break;
    case 0x88: // NEWTRUE
    case 0x89: // NEWFALSE
      push(make_bool(opcode == 0x88));
      break;
    case 'I': { // INT (text); I01/I00 are the protocol-0 booleans
      const std::string text = line();
      if (text == "01" || text == "00")
        push(make_bool(text == "01"));
      else
        push(integer_or_big(python_integer(text)));
      break;
    }
    case 'J': // BININT
      push(make_int(static_cast<std::int32_t>(little(4))));
      break;
    case 'K': // BININT1
      push(make_int(byte()));
      break;
    case 'M': // BININT2
      push(make_int(static_cast<std::int64_t>(little(2))));
      break;
    case 'L': { // LONG (text): "123L"
      std::string text = line();
      if (!text.empty() && text.back() == 'L')
        text.pop_back();
      push(integer_or_big(python_integer(text)));
      break;
    }
    case 0x8a: // LONG1
      push(counted_long(byte()));
      break;
    case 0x8b: { // LONG4
      const auto length = static_cast<std::int32_t>(little(4));
      if (length < 0)
        fail("LONG4 with a negative length");
      push(counted_long(static_cast<std::uint64_t>(length)));
      break;
    }
    case 'F': { // FLOAT (text)
      const std::string text = line();
      PickleRef value = make(PickleKind::Float);
      value->real = std::strtod(text.c_str(), nullptr);
      push(value);
      break;
    }
    case 'G': { // BINFLOAT: big-endian IEEE double
      std::uint64_t little_bits = little(8);
      std::uint64_t bits = 0;
      for (int i = 0; i < 8; ++i, little_bits >>= 8)
        bits = (bits << 8) | (little_bits & 0xFF);
      PickleRef value = make(PickleKind::Float);
      std::memcpy(&value->real, &bits, sizeof bits);
      push(value);
      break;
    }
    case 'S': { // STRING: a quoted Python bytes literal
      const std::string text = line();
      if (text.size() < 2 || text.front() != text.back() || (text.front() != '\'' && text.front() != '"'))
        fail("the STRING opcode argument must be quoted");
      push(make_string(PickleKind::String,
                       decode_string_escapes(std::string_view(text).substr(1, text.size() - 2))));
      break;
    }
    case 'V': // UNICODE (raw-unicode-escape line)
      push(make_string(PickleKind::String, decode_raw_unicode_escape(line())));
      break;
    case 'T': // BINSTRING (a str under torch.load's encoding)
    case 'X': // BINUNICODE
      push(make_string(PickleKind::String, bytes(little(4))));
      break;
    case 'U':  // SHORT_BINSTRING
    case 0x8c: // SHORT_BINUNICODE
      push(make_string(PickleKind::String, bytes(byte())));
      break;
    case 0x8d: // BINUNICODE8
      push(make_string(PickleKind::String, bytes(little(8))));
      break;
    case 'B': // BINBYTES
      push(make_string(PickleKind::Bytes, bytes(little(4))));
      break;
    case 'C': // SHORT_BINBYTES
      push(make_string(PickleKind::Bytes, bytes(byte())));
      break;
    case 0x8e: // BINBYTES8
    case 0x96: // BYTEARRAY8
      push(make_string(PickleKind::Bytes, bytes(little(8))));
      break;
    case 0x98: // READONLY_BUFFER: a view of what is on top
      top();
      break;
    case ')': // EMPTY_TUPLE
      push(make(PickleKind::Tuple));
      break;
    case 't': // TUPLE
      push(make_sequence(PickleKind::Tuple, pop_mark()));
      break;
    case 0x85:   // TUPLE1
    case 0x86:   // TUPLE2
    case 0x87: { // TUPLE3
      const std::size_t count = static_cast<std::size_t>(opcode - 0x84);
      std::vector<PickleRef> items(count);
      for (std::size_t i = count; i-- > 0;)
        items[i] = pop();
      push(make_sequence(PickleKind::Tuple, std::move(items)));
      break;
    }
    case ']': // EMPTY_LIST
      push(make(PickleKind::List));
      break;
    case 'l': // LIST
      push(make_sequence(PickleKind::List, pop_mark()));
      break;
    case 'a': { // APPEND
      PickleRef item = pop();
      std::vector<PickleRef> items{item};
      add_items(top(), items);
      break;
    }
    case 'e': { // APPENDS
      std::vector<PickleRef> items = pop_mark();
      add_items(top(), items);
      break;
    }
    case '}': // EMPTY_DICT
      push(make(PickleKind::Dict));
      break;
    case 'd': { // DICT
      std::vector<PickleRef> items = pop_mark();
      PickleRef value = make(PickleKind::Dict);
      set_items(value, items);
      push(value);
      break;
    }
    case 's': { // SETITEM
      PickleRef value = pop();
      PickleRef key = pop();
      std::vector<PickleRef> items{key, value};
      set_items(top(), items);
      break;
    }
    case 'u': { // SETITEMS
      std::vector<PickleRef> items = pop_mark();
      set_items(top(), items);
      break;
    }
    case 0x8f: // EMPTY_SET
      push(make(PickleKind::Set));
      break;
    case 0x90: { // ADDITEMS
      std::vector<PickleRef> items = pop_mark();
      add_items(top(), items);
      break;
    }
    case 0x91: // FROZENSET
      push(make_sequence(PickleKind::Set, pop_mark()));
      break;
    case 'c': { // GLOBAL: "module\nname\n"
      const std::string module = line(kMaxGlobalName);
      const std::string name = line(kMaxGlobalName);
      push(global(module, name, GlobalForm::Named));
      break;
    }
    case 0x93: { // STACK_GLOBAL: module and name from the stack
      PickleRef name = pop();
      PickleRef module = pop();
      if (module->kind == PickleKind::String && name->kind == PickleKind::String)
        push(global(module->text, name->text, GlobalForm::Named));
      else if (is_literal(*module) || is_literal(*name)) // Python needs str: it stops here
        fail("STACK_GLOBAL on a value that is not a string");
      else // the result of a call (builtins.str("os")): a name the reader cannot know
        push(global({}, {}, GlobalForm::Computed));
      break;
    }
    case 0x82: // EXT1..EXT4: a callable from copyreg's extension registry
      push(extension(byte()));
      break;
    case 0x83:
      push(extension(little(2)));
      break;
    case 0x84:
      push(extension(little(4)));
      break;
    case 'R': { // REDUCE: callable(*args), recorded, never performed
      PickleRef arguments = pop();
      PickleRef callee = pop();
      push(call(callee, arguments));
      break;
    }
    case 0x81: { // NEWOBJ: cls.__new__(cls, *args)
      PickleRef arguments = pop();
      PickleRef cls = pop();
      push(call(cls, arguments));
      break;
    }
    case 0x92: { // NEWOBJ_EX
      pop();     // keyword arguments
      PickleRef arguments = pop();
      PickleRef cls = pop();
      push(call(cls, arguments));
      break;
    }
    case 'i': {           // INST: "module\nname\n", arguments since MARK
      if (marks_.empty()) // Python looks for the MARK before it imports anything
        fail("INST without a MARK");
      const std::string module = line(kMaxGlobalName);
      const std::string name = line(kMaxGlobalName);
      PickleRef cls = global(module, name, GlobalForm::Named);
      push(call(cls, make_sequence(PickleKind::Tuple, pop_mark())));
      break;
    }
    case 'o': { // OBJ: class and arguments since MARK
      std::vector<PickleRef> items = pop_mark();
      if (items.empty())
        fail("OBJ without a class");
      PickleRef cls = items.front();
      items.erase(items.begin());
      push(call(cls, make_sequence(PickleKind::Tuple, std::move(items))));
      break;
    }
    case 'b': { // BUILD: state recorded on the object (Python calls its __setstate__)
      PickleRef state = pop();
      top()->state = state;
      ++result_.calls;
      break;
    }
    case 'p': // PUT (text)
      memo_put(python_integer(line()));
      break;
    case 'q': // BINPUT
      memo_put(byte());
      break;
    case 'r': // LONG_BINPUT
      memo_put(static_cast<std::int64_t>(little(4)));
      break;
    case 0x94: // MEMOIZE
      memo_put(static_cast<std::int64_t>(memo_.size()));
      break;
    case 'g': // GET (text)
      push(memo_get(python_integer(line())));
      break;
    case 'h': // BINGET
      push(memo_get(byte()));
      break;
    case 'j': // LONG_BINGET
      push(memo_get(static_cast<std::int64_t>(little(4))));
      break;
    case 'P': { // PERSID (text)
      PickleRef value = make(PickleKind::Persistent);
      value->persistent = make_string(PickleKind::String, line());
      push(value);
      break;
    }
    case 'Q': { // BINPERSID
      PickleRef value = make(PickleKind::Persistent);
      value->persistent = pop();
      push(value);
      break;
    }
    default:
      unknown_opcode(opcode);
    }
  }

  PickleRef integer_or_big(std::optional<std::int64_t> integer) {
    return integer ? make_int(*integer) : make(PickleKind::BigInt);
  }

  // LONG1/LONG4: two's complement, little-endian.
  PickleRef counted_long(std::uint64_t length) {
    if (length > 8) {
      skip(length);
      return make(PickleKind::BigInt);
    }
    const std::uint64_t value = length == 0 ? 0 : little(static_cast<std::size_t>(length));
    std::uint64_t extended = value;
    if (length > 0 && length < 8 && ((value >> (8 * length - 1)) & 1))
      extended |= ~0ull << (8 * length);
    return make_int(static_cast<std::int64_t>(extended));
  }

  PickleRef extension(std::uint64_t code) {
    record_extension(code);
    PickleRef value = make(PickleKind::Global);
    value->text = "copyreg";
    value->name = "extension code " + std::to_string(code);
    return value;
  }

  ByteStream &input_;
  std::string buffer_;
  std::size_t read_at_ = 0;
  std::uint64_t buffer_offset_; // file offset of buffer_[0]
  std::uint64_t fed_ = 0;       // bytes taken from input_
  bool input_ended_ = false;
  std::uint64_t opcode_at_ = 0;
  const PickleLimits &limits_;
  PickleResult &result_;
  std::size_t charged_ = 0;
  std::vector<PickleRef> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, PickleRef> memo_;
  std::unordered_set<std::string> seen_globals_;
};

} // namespace

PickleResult parse_pickle(ByteStream &input, std::uint64_t start_offset, const PickleLimits &limits) {
  PickleResult result;
  Decoder(input, start_offset, limits, result).run();
  return result;
}

PickleResult parse_pickle(std::string_view bytes, std::size_t start, const PickleLimits &limits) {
  if (start > bytes.size()) {
    PickleResult result;
    result.error = "start offset past the end of the data";
    return result;
  }
  MemorySource source(bytes);
  SourceStream stream(source, start, bytes.size() - start);
  return parse_pickle(stream, start, limits);
}

std::string global_name(const PickleValue &value) {
  if (value.kind != PickleKind::Global)
    return {};
  return value.text + "." + value.name;
}

} // namespace mpsaudit::checkpoint
