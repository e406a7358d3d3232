#include "frontend/checkpoint/pickle_reader.h"

#include <cstring>
#include <unordered_map>

#include "frontend/checkpoint/byte_source.h"

namespace mpsaudit::checkpoint {
namespace {

// Thrown inside the decoder only; parse_pickle turns it into an error result.
struct PickleError {
  std::string message;
};

class Decoder {
public:
  Decoder(std::string_view bytes, std::size_t start, const PickleLimits &limits, PickleResult &result)
      : bytes_(bytes), at_(start), limits_(limits), arena_(result.arena) {}

  void run(PickleResult &result) {
    try {
      result.root = decode(result);
      result.ok = true;
      result.end_offset = at_;
    } catch (const PickleError &error) {
      result.error = error.message;
      result.error_offset = opcode_at_;
    } catch (const std::bad_alloc &) {
      result.error = "out of memory while decoding";
      result.error_offset = opcode_at_;
    }
  }

private:
  PickleRef make(PickleKind kind) {
    if (arena_.size() >= limits_.max_values)
      fail("too many values");
    arena_.emplace_back();
    PickleRef value = &arena_.back();
    value->kind = kind;
    return value;
  }
  PickleRef make_string(PickleKind kind, std::string text) {
    PickleRef value = make(kind);
    value->text = std::move(text);
    return value;
  }
  PickleRef make_int(std::int64_t integer) {
    PickleRef value = make(PickleKind::Int);
    value->integer = integer;
    return value;
  }

  [[noreturn]] void fail(const std::string &message) {
    throw PickleError{message + " at byte " + std::to_string(opcode_at_)};
  }

  std::string_view take(std::size_t length) {
    if (length > bytes_.size() - at_)
      fail("the stream ends inside an opcode argument (truncated pickle)");
    const std::string_view out = bytes_.substr(at_, length);
    at_ += length;
    return out;
  }
  unsigned char byte() { return static_cast<unsigned char>(take(1)[0]); }
  std::uint64_t little(std::size_t width) {
    const std::string_view raw = take(width);
    std::uint64_t value = 0;
    for (std::size_t i = width; i-- > 0;)
      value = (value << 8) | static_cast<unsigned char>(raw[i]);
    return value;
  }
  std::string_view line() {
    const std::size_t end = bytes_.find('\n', at_);
    if (end == std::string_view::npos)
      fail("the stream ends inside a text argument (truncated pickle)");
    const std::string_view out = bytes_.substr(at_, end - at_);
    at_ = end + 1;
    return out;
  }
  std::size_t checked_length(std::uint64_t length) {
    if (length > bytes_.size() - at_)
      fail("a length of " + std::to_string(length) + " runs past the end of the stream");
    return static_cast<std::size_t>(length);
  }

  void push(PickleRef value) {
    if (stack_.size() >= limits_.max_stack)
      fail("the stack grew past its limit");
    stack_.push_back(std::move(value));
  }
  PickleRef pop() {
    if (stack_.size() <= floor())
      fail("stack underflow");
    PickleRef value = std::move(stack_.back());
    stack_.pop_back();
    return value;
  }
  PickleRef &top() {
    if (stack_.size() <= floor())
      fail("stack underflow");
    return stack_.back();
  }
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<PickleRef> pop_mark() {
    if (marks_.empty())
      fail("no MARK to pop to");
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<PickleRef> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
    return items;
  }
  void memo_put(std::uint64_t index) {
    if (memo_.size() >= limits_.max_memo && !memo_.count(index))
      fail("the memo grew past its limit");
    memo_[index] = top();
  }
  PickleRef memo_get(std::uint64_t index) {
    const auto it = memo_.find(index);
    if (it == memo_.end())
      fail("memo key " + std::to_string(index) + " was never stored");
    return it->second;
  }

  PickleRef tuple(std::vector<PickleRef> items) {
    PickleRef value = make(PickleKind::Tuple);
    value->items = std::move(items);
    return value;
  }

  PickleRef global(PickleResult &result, std::string module, std::string name) {
    result.globals.push_back({module, name, opcode_at_});
    PickleRef value = make(PickleKind::Global);
    value->text = std::move(module);
    value->name = std::move(name);
    return value;
  }

  PickleRef call(PickleRef callee, PickleRef arguments) {
    PickleRef value = make(PickleKind::Call);
    value->callee = std::move(callee);
    value->arguments = std::move(arguments);
    return value;
  }

  void set_items(PickleRef &target, std::vector<PickleRef> &items) {
    if (items.size() % 2 != 0)
      fail("SETITEMS with an odd number of items");
    if (target->kind != PickleKind::Dict && target->kind != PickleKind::Call)
      fail("SETITEM on something that is not a dict");
    for (std::size_t i = 0; i < items.size(); i += 2)
      target->entries.emplace_back(std::move(items[i]), std::move(items[i + 1]));
  }

  std::int64_t parse_decimal(std::string_view text) {
    std::int64_t value = 0;
    bool negative = false;
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '-' || text[i] == '+'))
      negative = text[i++] == '-';
    if (i == text.size())
      fail("malformed integer");
    for (; i < text.size(); ++i) {
      if (text[i] == 'L' && i + 1 == text.size())
        break;
      if (text[i] < '0' || text[i] > '9')
        fail("malformed integer");
      if (value > (INT64_MAX - 9) / 10)
        fail("integer too large");
      value = value * 10 + (text[i] - '0');
    }
    return negative ? -value : value;
  }

  PickleRef decode(PickleResult &result) {
    std::size_t operations = 0;
    while (true) {
      if (++operations > limits_.max_operations)
        fail("too many opcodes");
      opcode_at_ = at_;
      if (at_ >= bytes_.size())
        fail("the stream ends before STOP (truncated pickle)");
      const unsigned char opcode = byte();
      switch (opcode) {
      case 0x80: // PROTO
        result.protocol = byte();
        break;
      case 0x95: // FRAME: a length prefix only
        take(8);
        break;
      case '.': // STOP
        return pop();
      case '(': // MARK
        marks_.push_back(stack_.size());
        break;
      case '0': // POP
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
      case 0x88:   // NEWTRUE
      case 0x89: { // NEWFALSE
        PickleRef value = make(PickleKind::Bool);
        value->boolean = opcode == 0x88;
        push(value);
        break;
      }
      case 'I': { // INT (text); I01/I00 are the protocol-0 booleans
        const std::string_view text = line();
        if (text == "01" || text == "00") {
          PickleRef value = make(PickleKind::Bool);
          value->boolean = text == "01";
          push(value);
        } else {
          push(make_int(parse_decimal(text)));
        }
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
      case 'L': { // LONG (text)
        const std::string_view text = line();
        if (text.size() > 19)
          push(make(PickleKind::BigInt));
        else
          push(make_int(parse_decimal(text)));
        break;
      }
      case 0x8a:   // LONG1
      case 0x8b: { // LONG4
        const std::size_t length = opcode == 0x8a ? byte() : checked_length(little(4));
        const std::string_view raw = take(length);
        if (length > 8) {
          push(make(PickleKind::BigInt));
          break;
        }
        std::uint64_t value = 0;
        for (std::size_t i = length; i-- > 0;)
          value = (value << 8) | static_cast<unsigned char>(raw[i]);
        if (length > 0 && length < 8 && (static_cast<unsigned char>(raw[length - 1]) & 0x80))
          value |= ~0ull << (8 * length); // sign-extend two's complement
        push(make_int(static_cast<std::int64_t>(value)));
        break;
      }
      case 'F': { // FLOAT (text)
        const std::string text(line());
        PickleRef value = make(PickleKind::Float);
        value->real = std::strtod(text.c_str(), nullptr);
        push(value);
        break;
      }
      case 'G': { // BINFLOAT: big-endian IEEE double
        const std::string_view raw = take(8);
        std::uint64_t bits = 0;
        for (char c : raw)
          bits = (bits << 8) | static_cast<unsigned char>(c);
        PickleRef value = make(PickleKind::Float);
        std::memcpy(&value->real, &bits, sizeof bits);
        push(value);
        break;
      }
      case 'S': { // STRING: a quoted repr; escapes are kept as written
        std::string_view text = line();
        if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
          text = text.substr(1, text.size() - 2);
        push(make_string(PickleKind::String, std::string(text)));
        break;
      }
      case 'V': // UNICODE (raw-unicode-escape line)
        push(make_string(PickleKind::String, std::string(line())));
        break;
      case 'T': // BINSTRING
        push(make_string(PickleKind::String, std::string(take(checked_length(little(4))))));
        break;
      case 'U': // SHORT_BINSTRING
        push(make_string(PickleKind::String, std::string(take(byte()))));
        break;
      case 'X': // BINUNICODE
        push(make_string(PickleKind::String, std::string(take(checked_length(little(4))))));
        break;
      case 0x8c: // SHORT_BINUNICODE
        push(make_string(PickleKind::String, std::string(take(byte()))));
        break;
      case 0x8d: // BINUNICODE8
        push(make_string(PickleKind::String, std::string(take(checked_length(little(8))))));
        break;
      case 'B': // BINBYTES
        push(make_string(PickleKind::Bytes, std::string(take(checked_length(little(4))))));
        break;
      case 'C': // SHORT_BINBYTES
        push(make_string(PickleKind::Bytes, std::string(take(byte()))));
        break;
      case 0x8e: // BINBYTES8
      case 0x96: // BYTEARRAY8
        push(make_string(PickleKind::Bytes, std::string(take(checked_length(little(8))))));
        break;
      case ')': // EMPTY_TUPLE
        push(make(PickleKind::Tuple));
        break;
      case 't': // TUPLE
        push(tuple(pop_mark()));
        break;
      case 0x85:   // TUPLE1
      case 0x86:   // TUPLE2
      case 0x87: { // TUPLE3
        const std::size_t count = static_cast<std::size_t>(opcode - 0x84);
        std::vector<PickleRef> items(count);
        for (std::size_t i = count; i-- > 0;)
          items[i] = pop();
        push(tuple(std::move(items)));
        break;
      }
      case ']': // EMPTY_LIST
        push(make(PickleKind::List));
        break;
      case 'l': { // LIST
        PickleRef value = make(PickleKind::List);
        value->items = pop_mark();
        push(value);
        break;
      }
      case 'a': { // APPEND
        PickleRef item = pop();
        PickleRef &target = top();
        if (target->kind != PickleKind::List && target->kind != PickleKind::Call)
          fail("APPEND to something that is not a list");
        target->items.push_back(std::move(item));
        break;
      }
      case 'e': { // APPENDS
        std::vector<PickleRef> items = pop_mark();
        PickleRef &target = top();
        if (target->kind != PickleKind::List && target->kind != PickleKind::Call)
          fail("APPENDS to something that is not a list");
        for (auto &item : items)
          target->items.push_back(std::move(item));
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
        std::vector<PickleRef> items{std::move(key), std::move(value)};
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
        PickleRef &target = top();
        if (target->kind != PickleKind::Set)
          fail("ADDITEMS to something that is not a set");
        for (auto &item : items)
          target->items.push_back(std::move(item));
        break;
      }
      case 0x91: { // FROZENSET
        PickleRef value = make(PickleKind::Set);
        value->items = pop_mark();
        push(value);
        break;
      }
      case 'c': { // GLOBAL: "module\nname\n"
        std::string module(line());
        std::string name(line());
        push(global(result, std::move(module), std::move(name)));
        break;
      }
      case 0x93: { // STACK_GLOBAL
        PickleRef name = pop();
        PickleRef module = pop();
        if (module->kind != PickleKind::String || name->kind != PickleKind::String)
          fail("STACK_GLOBAL needs two strings");
        push(global(result, module->text, name->text));
        break;
      }
      case 'R': { // REDUCE: callable(*args), recorded, never performed
        PickleRef arguments = pop();
        PickleRef callee = pop();
        push(call(std::move(callee), std::move(arguments)));
        break;
      }
      case 0x81: { // NEWOBJ: cls.__new__(cls, *args)
        PickleRef arguments = pop();
        PickleRef cls = pop();
        push(call(std::move(cls), std::move(arguments)));
        break;
      }
      case 0x92: { // NEWOBJ_EX
        pop();     // keyword arguments
        PickleRef arguments = pop();
        PickleRef cls = pop();
        push(call(std::move(cls), std::move(arguments)));
        break;
      }
      case 'i': { // INST: "module\nname\n", arguments since MARK
        std::string module(line());
        std::string name(line());
        PickleRef cls = global(result, std::move(module), std::move(name));
        push(call(std::move(cls), tuple(pop_mark())));
        break;
      }
      case 'o': { // OBJ: class and arguments since MARK
        std::vector<PickleRef> items = pop_mark();
        if (items.empty())
          fail("OBJ without a class");
        PickleRef cls = items.front();
        items.erase(items.begin());
        push(call(std::move(cls), tuple(std::move(items))));
        break;
      }
      case 'b': { // BUILD: state recorded on the object
        PickleRef state = pop();
        top()->state = std::move(state);
        break;
      }
      case 'p': // PUT (text)
        memo_put(static_cast<std::uint64_t>(parse_decimal(line())));
        break;
      case 'q': // BINPUT
        memo_put(byte());
        break;
      case 'r': // LONG_BINPUT
        memo_put(little(4));
        break;
      case 0x94: // MEMOIZE
        memo_put(memo_.size());
        break;
      case 'g': // GET (text)
        push(memo_get(static_cast<std::uint64_t>(parse_decimal(line()))));
        break;
      case 'h': // BINGET
        push(memo_get(byte()));
        break;
      case 'j': // LONG_BINGET
        push(memo_get(little(4)));
        break;
      case 'P': { // PERSID (text)
        PickleRef value = make(PickleKind::Persistent);
        value->persistent = make_string(PickleKind::String, std::string(line()));
        push(value);
        break;
      }
      case 'Q': { // BINPERSID
        PickleRef value = make(PickleKind::Persistent);
        value->persistent = pop();
        push(value);
        break;
      }
      case 0x82:
      case 0x83:
      case 0x84:
        fail("EXT opcodes (copyreg extension codes) are not used by torch and not supported");
      case 0x97:
      case 0x98:
        fail("out-of-band buffers (protocol 5) are not used by torch and not supported");
      default:
        fail("unknown opcode 0x" + std::string(1, "0123456789abcdef"[opcode >> 4]) +
             std::string(1, "0123456789abcdef"[opcode & 15]));
      }
    }
  }

  std::string_view bytes_;
  std::size_t at_;
  std::size_t opcode_at_ = 0;
  const PickleLimits &limits_;
  std::vector<PickleRef> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, PickleRef> memo_;
  std::deque<PickleValue> &arena_;
};

} // namespace

PickleResult parse_pickle(std::string_view bytes, std::size_t start, const PickleLimits &limits) {
  if (start > bytes.size()) {
    PickleResult result;
    result.error = "start offset past the end of the data";
    return result;
  }
  PickleResult result;
  Decoder(bytes, start, limits, result).run(result);
  return result;
}

std::string global_name(const PickleValue &value) {
  if (value.kind != PickleKind::Global)
    return {};
  return value.text + "." + value.name;
}

} // namespace mpsaudit::checkpoint
