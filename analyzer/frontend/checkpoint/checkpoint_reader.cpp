#include "frontend/checkpoint/checkpoint_reader.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "frontend/checkpoint/pickle_reader.h"
#include "frontend/checkpoint/zip_reader.h"

namespace mpsaudit::checkpoint {
namespace {

constexpr std::uint64_t kMaxPickleBytes = 256ull << 20;
constexpr std::uint64_t kMaxSafetensorsHeader = 100ull << 20; // the format's own limit
constexpr std::size_t kWalkDepth = 64;
constexpr std::size_t kMaxTensorFacts = 20;

struct DtypeName {
  std::string_view storage; // torch.<X>Storage
  std::string_view safetensors;
  std::string_view dtype;
  std::uint64_t size;
};

// Storage classes as torch pickles them (torch/storage.py
// _pickle_storage_type), safetensors dtype codes (safetensors format spec),
// and torch dtype names.
constexpr std::array<DtypeName, 20> kDtypes{{
    {"DoubleStorage", "F64", "float64", 8},
    {"FloatStorage", "F32", "float32", 4},
    {"HalfStorage", "F16", "float16", 2},
    {"BFloat16Storage", "BF16", "bfloat16", 2},
    {"LongStorage", "I64", "int64", 8},
    {"IntStorage", "I32", "int32", 4},
    {"ShortStorage", "I16", "int16", 2},
    {"CharStorage", "I8", "int8", 1},
    {"ByteStorage", "U8", "uint8", 1},
    {"BoolStorage", "BOOL", "bool", 1},
    {"ComplexFloatStorage", "C64", "complex64", 8},
    {"ComplexDoubleStorage", "", "complex128", 16},
    {"QInt8Storage", "", "qint8", 1},
    {"QUInt8Storage", "", "quint8", 1},
    {"QInt32Storage", "", "qint32", 4},
    {"Float8_e4m3fnStorage", "F8_E4M3", "float8_e4m3fn", 1},
    {"Float8_e5m2Storage", "F8_E5M2", "float8_e5m2", 1},
    {"UInt16Storage", "U16", "uint16", 2},
    {"UInt32Storage", "U32", "uint32", 4},
    {"UInt64Storage", "U64", "uint64", 8},
}};

std::string dtype_of_storage_class(std::string_view name) {
  for (const auto &entry : kDtypes)
    if (entry.storage == name)
      return std::string(entry.dtype);
  if (name == "UntypedStorage")
    return "uint8";
  return {};
}

std::string dtype_of_safetensors(std::string_view code) {
  for (const auto &entry : kDtypes)
    if (!entry.safetensors.empty() && entry.safetensors == code)
      return std::string(entry.dtype);
  return {};
}

// Modules and callables that make torch.load run code: the classic pickle
// payloads (os.system, subprocess.Popen, builtins.eval/exec, ...).
bool is_dangerous_global(const std::string &module, const std::string &name) {
  static const std::unordered_set<std::string> modules{
      "os",      "posix",    "nt",     "subprocess", "sys",        "commands",        "pty",
      "socket",  "shutil",   "runpy",  "importlib",  "ctypes",     "pickle",          "cPickle",
      "_pickle", "marshal",  "code",   "codeop",     "webbrowser", "multiprocessing", "asyncio",
      "pdb",     "timeit",   "bdb",    "types",      "inspect",    "signal",          "_posixsubprocess",
      "ptrace",  "pip",      "urllib", "requests",   "http",       "ftplib",          "telnetlib",
      "smtplib", "tempfile", "glob",   "io",         "_io",        "zipimport"};
  static const std::unordered_set<std::string> builtins{
      "eval",    "exec", "compile",  "__import__", "getattr",    "setattr",
      "delattr", "open", "apply",    "input",      "breakpoint", "globals",
      "locals",  "vars", "execfile", "file",       "reload",     "memoryview"};
  const std::string root = module.substr(0, module.find('.'));
  if (modules.count(root))
    return true;
  if (module == "builtins" || module == "__builtin__" || module == "__builtins__")
    return builtins.count(name) > 0;
  // Gadgets that call an arbitrary attribute of their argument.
  if (module == "operator" && (name == "attrgetter" || name == "methodcaller"))
    return true;
  if (module == "functools" && name == "partial")
    return true;
  return false;
}

// GLOBALs a torch checkpoint uses: rebuild helpers, storage classes, dtypes,
// OrderedDict, TorchScript classes.
bool is_torch_global(const std::string &module, const std::string &name) {
  if (module == "collections" && (name == "OrderedDict" || name == "defaultdict"))
    return true;
  if (module == "torch" || starts_with(module, "torch.") || module == "__torch__" ||
      starts_with(module, "__torch__."))
    return true;
  if ((module == "builtins" || module == "__builtin__") &&
      (name == "set" || name == "frozenset" || name == "slice" || name == "complex" || name == "bytearray" ||
       name == "int" || name == "float" || name == "bool" || name == "str"))
    return true;
  return module == "_codecs" && name == "encode"; // how protocol 2 pickles bytes
}

struct StorageInfo {
  std::string dtype;
  std::string device;
  std::uint64_t elements = 0;
  bool optimizer_only = true;
};

class TensorWalker {
public:
  TensorWalker(CheckpointSummary &summary, std::map<std::string, StorageInfo> &storages)
      : summary_(summary), storages_(storages) {}

  void walk(const PickleRef &value, const std::string &path, std::size_t depth) {
    if (!value || depth > kWalkDepth)
      return;
    const bool container = value->kind == PickleKind::Dict || value->kind == PickleKind::List ||
                           value->kind == PickleKind::Tuple || value->kind == PickleKind::Call ||
                           value->kind == PickleKind::Set;
    if (!container)
      return;
    // A shared value is walked once: pickles are DAGs, and a hostile one can
    // make a naive walk exponential.
    if (!visited_.insert(value).second)
      return;
    if (value->kind == PickleKind::Call) {
      const std::string callee = value->callee ? global_name(*value->callee) : std::string();
      if (rebuild_tensor(*value, callee, path))
        return;
      if (callee == "torch._utils._rebuild_parameter" ||
          callee == "torch._utils._rebuild_parameter_with_state") {
        if (value->arguments && !value->arguments->items.empty())
          walk_tensor_argument(value->arguments->items.front(), path, depth);
        return;
      }
      walk(value->arguments, path, depth + 1);
      walk(value->state, path, depth + 1);
    }
    for (std::size_t i = 0; i < value->items.size(); ++i)
      walk(value->items[i], join(path, std::to_string(i)), depth + 1);
    for (const auto &[key, entry] : value->entries)
      walk(entry, join(path, key_text(key)), depth + 1);
  }

private:
  // The data argument of _rebuild_parameter is itself a rebuild call, which
  // may already have been seen through the memo; tensors are keyed by path.
  void walk_tensor_argument(const PickleRef &value, const std::string &path, std::size_t depth) {
    if (value && value->kind == PickleKind::Call) {
      const std::string callee = value->callee ? global_name(*value->callee) : std::string();
      if (rebuild_tensor(*value, callee, path))
        return;
    }
    walk(value, path, depth + 1);
  }

  static std::string join(const std::string &path, const std::string &key) {
    return path.empty() ? key : path + "." + key;
  }

  static std::string key_text(const PickleRef &key) {
    if (!key)
      return "?";
    switch (key->kind) {
    case PickleKind::String:
      return key->text;
    case PickleKind::Int:
      return std::to_string(key->integer);
    default:
      return "?";
    }
  }

  static bool int_tuple(const PickleRef &value, std::vector<std::int64_t> &out) {
    if (!value || value->kind != PickleKind::Tuple)
      return false;
    for (const auto &item : value->items) {
      if (!item || item->kind != PickleKind::Int)
        return false;
      out.push_back(item->integer);
    }
    return true;
  }

  // _rebuild_tensor(storage, offset, size, stride, ...), _v2 and _v3 (whose
  // seventh argument is the dtype), and _rebuild_qtensor share the layout.
  bool rebuild_tensor(const PickleValue &call, const std::string &callee, const std::string &path) {
    if (callee != "torch._utils._rebuild_tensor" && callee != "torch._utils._rebuild_tensor_v2" &&
        callee != "torch._utils._rebuild_tensor_v3" && callee != "torch._utils._rebuild_qtensor")
      return false;
    if (!call.arguments || call.arguments->kind != PickleKind::Tuple || call.arguments->items.size() < 4) {
      malformed_ = true;
      return true;
    }
    const auto &arguments = call.arguments->items;
    TensorRecord tensor;
    tensor.key = path;
    tensor.optimizer_state = is_optimizer_path(path);
    if (!int_tuple(arguments[2], tensor.shape)) {
      malformed_ = true;
      return true;
    }
    tensor.elements = 1;
    for (std::int64_t extent : tensor.shape)
      tensor.elements *= static_cast<std::uint64_t>(std::max<std::int64_t>(extent, 0));
    const PickleRef &storage = arguments[0];
    // ('storage', storage_type, key, location, numel[, view_metadata])
    if (!storage || storage->kind != PickleKind::Persistent || !storage->persistent ||
        storage->persistent->kind != PickleKind::Tuple || storage->persistent->items.size() < 5) {
      malformed_ = true;
      return true;
    }
    const auto &record = storage->persistent->items;
    const auto text_of = [](const PickleRef &item) {
      return item && item->kind == PickleKind::String ? item->text : std::string();
    };
    tensor.storage_key = text_of(record[2]);
    tensor.device = text_of(record[3]);
    if (record[1] && record[1]->kind == PickleKind::Global)
      tensor.dtype = dtype_of_storage_class(record[1]->name);
    if (callee == "torch._utils._rebuild_tensor_v3" && arguments.size() >= 7 && arguments[6] &&
        arguments[6]->kind == PickleKind::Global)
      tensor.dtype = arguments[6]->name; // torch.float32 pickles as GLOBAL torch float32
    const std::uint64_t storage_elements =
        record[4] && record[4]->kind == PickleKind::Int && record[4]->integer > 0
            ? static_cast<std::uint64_t>(record[4]->integer)
            : 0;
    auto &info = storages_[tensor.storage_key];
    if (info.dtype.empty()) {
      info.dtype = tensor.dtype;
      info.device = tensor.device;
      info.elements = storage_elements;
    }
    if (!tensor.optimizer_state)
      info.optimizer_only = false;
    summary_.tensors.push_back(std::move(tensor));
    return true;
  }

  static bool is_optimizer_path(const std::string &path) {
    const std::string top = to_lower(path.substr(0, path.find('.')));
    return top.find("optim") != std::string::npos || top == "scaler" || top == "lr_scheduler" ||
           top == "scheduler";
  }

public:
  bool malformed_ = false;

private:
  CheckpointSummary &summary_;
  std::map<std::string, StorageInfo> &storages_;
  std::unordered_set<const PickleValue *> visited_;
};

void add_distinct(std::vector<std::string> &list, const std::string &value) {
  if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end())
    list.push_back(value);
}

void classify_globals(const std::vector<GlobalReference> &globals, CheckpointSummary &summary) {
  for (const auto &reference : globals) {
    const std::string name = reference.module + "." + reference.name;
    if (is_dangerous_global(reference.module, reference.name))
      add_distinct(summary.dangerous_globals, name);
    else if (!is_torch_global(reference.module, reference.name))
      add_distinct(summary.other_globals, name);
  }
  if (!summary.dangerous_globals.empty()) {
    summary.status = "hostile";
    std::string names;
    for (const auto &name : summary.dangerous_globals)
      names += (names.empty() ? "" : ", ") + name;
    summary.problem = "the pickle references " + names +
                      ", which torch.load(weights_only=False) would call: it was not run";
  }
}

// Totals over tensors and storages, shared by the pickle-based formats and
// safetensors. `entry_bytes` gives a storage's size when the archive knows it.
void finish_totals(CheckpointSummary &summary, const std::map<std::string, StorageInfo> &storages,
                   const std::map<std::string, std::uint64_t> &entry_bytes) {
  std::set<std::string> float64_storages;
  for (const auto &[key, info] : storages) {
    const auto known = entry_bytes.find(key);
    const std::uint64_t bytes =
        known != entry_bytes.end() ? known->second : info.elements * dtype_size(info.dtype);
    summary.bytes += bytes;
    if (!info.optimizer_only)
      summary.parameter_bytes += bytes;
    ++summary.storages;
    if (starts_with(info.device, "cuda"))
      ++summary.cuda_storages;
    if (info.dtype == "float64")
      summary.float64_bytes += bytes;
    add_distinct(summary.devices, info.device);
  }
  for (const auto &tensor : summary.tensors) {
    if (!tensor.optimizer_state)
      summary.parameters += tensor.elements;
    if (tensor.dtype == "float64")
      ++summary.float64_tensors;
    add_distinct(summary.dtypes, tensor.dtype);
  }
  std::sort(summary.devices.begin(), summary.devices.end());
  std::sort(summary.dtypes.begin(), summary.dtypes.end());
}

// Counts only prefixes at the state-dict level: "module.fc.weight" or
// "model.module.fc.weight", not every key with "module" in it.
void recount_module_prefix(CheckpointSummary &summary) {
  summary.module_prefixed_keys = 0;
  for (const auto &tensor : summary.tensors) {
    if (tensor.optimizer_state)
      continue;
    const std::string &key = tensor.key;
    if (starts_with(key, "module."))
      ++summary.module_prefixed_keys;
    else {
      const auto dot = key.find('.');
      if (dot != std::string::npos && starts_with(std::string_view(key).substr(dot + 1), "module."))
        ++summary.module_prefixed_keys;
    }
  }
}

void read_pickle_checkpoint(std::string_view pickle, std::size_t start, CheckpointSummary &summary,
                            std::map<std::string, StorageInfo> &storages) {
  PickleResult result = parse_pickle(pickle, start);
  classify_globals(result.globals, summary);
  if (!result.ok) {
    if (summary.status != "hostile") {
      summary.status = "unreadable";
      summary.problem = "pickle: " + result.error;
    }
    return;
  }
  TensorWalker walker(summary, storages);
  walker.walk(result.root, "", 0);
  if (walker.malformed_ && summary.status == "ok") {
    summary.status = "partial";
    summary.problem = "some tensor records do not have the layout torch writes";
  }
}

void read_zip(ByteSource &source, CheckpointSummary &summary) {
  summary.format = "torch-zip";
  ZipReader zip(source);
  if (!zip.open()) {
    summary.status = "unreadable";
    summary.problem = "zip: " + zip.error();
    return;
  }
  // torch.save writes <archive>/data.pkl; TorchScript adds code/ and constants.pkl.
  const ZipEntry *data = nullptr;
  bool torchscript = false;
  for (const auto &entry : zip.entries()) {
    if (ends_with(entry.name, "/data.pkl") || entry.name == "data.pkl")
      if (!data || entry.name.size() < data->name.size())
        data = &entry;
    if (ends_with(entry.name, "/constants.pkl") || entry.name.find("/code/") != std::string::npos)
      torchscript = true;
  }
  summary.format = torchscript ? "torchscript" : "torch-zip";
  if (!data) {
    summary.status = "unreadable";
    summary.problem = "zip archive without data.pkl: not a torch checkpoint";
    return;
  }
  const std::string prefix = data->name.substr(0, data->name.size() - std::string("data.pkl").size());
  auto pickle = zip.read(*data, kMaxPickleBytes);
  if (!pickle) {
    summary.status = "unreadable";
    summary.problem = "zip: " + zip.error();
    return;
  }
  std::map<std::string, StorageInfo> storages;
  read_pickle_checkpoint(*pickle, 0, summary, storages);
  std::map<std::string, std::uint64_t> entry_bytes;
  for (const auto &[key, info] : storages)
    if (const ZipEntry *entry = zip.find(prefix + "data/" + key))
      entry_bytes[key] = entry->uncompressed_size;
  finish_totals(summary, storages, entry_bytes);
}

// torch.save before 1.6 (and with _use_new_zipfile_serialization=False):
// magic number, protocol version, sys info, then the object pickle.
void read_legacy(ByteSource &source, CheckpointSummary &summary) {
  std::string bytes;
  const std::uint64_t length = std::min<std::uint64_t>(source.size(), kMaxPickleBytes);
  if (!source.read(0, length, bytes)) {
    summary.status = "unreadable";
    summary.problem = "could not read the file";
    return;
  }
  std::size_t at = 0;
  std::map<std::string, StorageInfo> storages;
  PickleResult magic = parse_pickle(bytes, 0);
  const bool torch_legacy = magic.ok && magic.root && magic.root->kind == PickleKind::BigInt;
  if (torch_legacy) {
    summary.format = "torch-legacy";
    at = magic.end_offset;
    for (int header = 0; header < 2; ++header) { // protocol version, sys info
      PickleResult part = parse_pickle(bytes, at);
      if (!part.ok) {
        summary.status = "unreadable";
        summary.problem = "legacy header pickle: " + part.error;
        return;
      }
      at = part.end_offset;
    }
  } else {
    summary.format = "pickle";
  }
  read_pickle_checkpoint(bytes, at, summary, storages);
  finish_totals(summary, storages, {});
}

void read_safetensors(ByteSource &source, std::uint64_t header_length, CheckpointSummary &summary) {
  summary.format = "safetensors";
  std::string header;
  if (!source.read(8, header_length, header)) {
    summary.status = "unreadable";
    summary.problem = "safetensors header runs past the end of the file";
    return;
  }
  const nlohmann::json document = nlohmann::json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    summary.status = "unreadable";
    summary.problem = "safetensors header is not a JSON object";
    return;
  }
  const std::uint64_t data_size = source.size() - 8 - header_length;
  std::map<std::string, StorageInfo> storages;
  std::map<std::string, std::uint64_t> entry_bytes;
  for (const auto &item : document.items()) {
    // Named copies, not structured bindings: the lambda below captures them.
    const std::string &name = item.key();
    const auto &entry = item.value();
    if (name == "__metadata__")
      continue;
    const auto bad = [&](const std::string &why) {
      summary.status = "partial";
      summary.problem = "safetensors entry '" + name + "' " + why;
    };
    if (!entry.is_object() || !entry.contains("dtype") || !entry["dtype"].is_string() ||
        !entry.contains("shape") || !entry["shape"].is_array() || !entry.contains("data_offsets") ||
        !entry["data_offsets"].is_array() || entry["data_offsets"].size() != 2) {
      bad("lacks dtype, shape or data_offsets");
      continue;
    }
    TensorRecord tensor;
    tensor.key = name;
    tensor.device = "cpu"; // safetensors stores no device
    const std::string code = entry["dtype"].get<std::string>();
    tensor.dtype = dtype_of_safetensors(code);
    if (tensor.dtype.empty()) {
      bad("has unknown dtype " + code);
      continue;
    }
    tensor.elements = 1;
    bool valid = true;
    for (const auto &extent : entry["shape"]) {
      if (!extent.is_number_unsigned()) {
        valid = false;
        break;
      }
      tensor.shape.push_back(extent.get<std::int64_t>());
      tensor.elements *= extent.get<std::uint64_t>();
    }
    const auto &offsets = entry["data_offsets"];
    if (!valid || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
      bad("has a malformed shape or offsets");
      continue;
    }
    const std::uint64_t begin = offsets[0].get<std::uint64_t>();
    const std::uint64_t end = offsets[1].get<std::uint64_t>();
    if (begin > end || end > data_size) {
      bad("points outside the file's data");
      continue;
    }
    if (end - begin != tensor.elements * dtype_size(tensor.dtype)) {
      bad("has a byte range that does not match its shape and dtype");
      continue;
    }
    tensor.storage_key = name;
    tensor.optimizer_state = false;
    StorageInfo info;
    info.dtype = tensor.dtype;
    info.device = tensor.device;
    info.elements = tensor.elements;
    info.optimizer_only = false;
    storages[name] = info;
    entry_bytes[name] = end - begin;
    summary.tensors.push_back(std::move(tensor));
  }
  finish_totals(summary, storages, entry_bytes);
}

std::string join_list(const std::vector<std::string> &items) {
  std::string out;
  for (const auto &item : items)
    out += (out.empty() ? "" : ",") + item;
  return out;
}

} // namespace

std::uint64_t dtype_size(std::string_view dtype) {
  for (const auto &entry : kDtypes)
    if (entry.dtype == dtype)
      return entry.size;
  return dtype == "uint8" ? 1 : 0;
}

std::string human_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char *, 5> units{"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1000.0 && unit + 1 < units.size()) {
    value /= 1000.0;
    ++unit;
  }
  char buffer[32];
  if (unit == 0)
    std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, units[unit]);
  return buffer;
}

CheckpointSummary read_checkpoint(ByteSource &source) {
  CheckpointSummary summary;
  std::string head;
  if (!source.read(0, std::min<std::uint64_t>(source.size(), 16), head) || head.empty()) {
    summary.status = "unreadable";
    summary.problem = "the file is empty";
    return summary;
  }
  // safetensors first: its 8-byte length prefix can begin with 0x80, the
  // pickle PROTO opcode, but a pickle never has '{' right after 8 bytes of
  // a length that fits the file.
  const bool safetensors = head.size() >= 9 && head[8] == '{';
  if (ZipReader::looks_like_zip(source)) {
    read_zip(source, summary);
  } else if (!safetensors && static_cast<unsigned char>(head[0]) == 0x80) {
    read_legacy(source, summary);
  } else if (safetensors) {
    const std::uint64_t header_length = read_u64le(head, 0);
    if (header_length > kMaxSafetensorsHeader || header_length > source.size() - 8) {
      summary.format = "safetensors";
      summary.status = "unreadable";
      summary.problem = "safetensors header length " + std::to_string(header_length) +
                        " is larger than the file or the format's 100 MB limit";
    } else {
      read_safetensors(source, header_length, summary);
    }
  } else {
    summary.status = "not-a-checkpoint";
    summary.problem = "neither a torch zip archive, a pickle nor a safetensors file";
  }
  recount_module_prefix(summary);
  return summary;
}

FileFacts checkpoint_facts(const CheckpointSummary &summary, const std::string &path) {
  FileFacts facts;
  facts.mode = summary.status == "not-a-checkpoint" ? "skipped" : "ast";
  if (summary.status == "not-a-checkpoint") {
    facts.diagnostics.push_back({DiagnosticLevel::Note, path, 0, "not-a-checkpoint", summary.problem});
    return facts;
  }
  Fact fact;
  fact.kind = "checkpoint";
  fact.name = summary.format;
  fact.set_attribute("format", summary.format);
  fact.set_attribute("status", summary.status);
  if (!summary.problem.empty())
    fact.set_attribute("problem", summary.problem);
  fact.set_attribute("tensors", std::to_string(summary.tensors.size()));
  fact.set_attribute("parameters", std::to_string(summary.parameters));
  fact.set_attribute("parameter_bytes", std::to_string(summary.parameter_bytes));
  fact.set_attribute("bytes", std::to_string(summary.bytes));
  fact.set_attribute("bytes_human", human_bytes(summary.bytes));
  fact.set_attribute("float64_tensors", std::to_string(summary.float64_tensors));
  fact.set_attribute("float64_bytes", std::to_string(summary.float64_bytes));
  fact.set_attribute("float64_bytes_human", human_bytes(summary.float64_bytes));
  fact.set_attribute("has_float64", summary.float64_tensors > 0 ? "true" : "false");
  fact.set_attribute("cuda_storages", std::to_string(summary.cuda_storages));
  fact.set_attribute("has_cuda_storage", summary.cuda_storages > 0 ? "true" : "false");
  fact.set_attribute("module_prefixed_keys", std::to_string(summary.module_prefixed_keys));
  fact.set_attribute("module_prefix", summary.module_prefixed_keys > 0 ? "true" : "false");
  fact.set_attribute("devices", join_list(summary.devices));
  fact.set_attribute("dtypes", join_list(summary.dtypes));
  if (!summary.dangerous_globals.empty())
    fact.set_attribute("dangerous_globals", join_list(summary.dangerous_globals));
  if (!summary.other_globals.empty())
    fact.set_attribute("other_globals", join_list(summary.other_globals));
  facts.facts.push_back(std::move(fact));

  std::size_t listed = 0;
  for (const auto &tensor : summary.tensors) {
    if (tensor.dtype != "float64" || listed++ >= kMaxTensorFacts)
      continue;
    Fact detail;
    detail.kind = "checkpoint-tensor";
    detail.name = tensor.key;
    detail.set_attribute("dtype", tensor.dtype);
    detail.set_attribute("device", tensor.device);
    std::string shape;
    for (std::int64_t extent : tensor.shape)
      shape += (shape.empty() ? "" : "x") + std::to_string(extent);
    detail.set_attribute("shape", shape.empty() ? "scalar" : shape);
    detail.set_attribute("bytes", std::to_string(tensor.elements * dtype_size(tensor.dtype)));
    facts.facts.push_back(std::move(detail));
  }

  if (summary.status == "unreadable" || summary.status == "partial")
    facts.diagnostics.push_back(
        {DiagnosticLevel::Warning, path, 0, "checkpoint-unreadable", summary.problem});
  else if (summary.status == "hostile")
    facts.diagnostics.push_back(
        {DiagnosticLevel::Warning, path, 0, "checkpoint-hostile-pickle", summary.problem});
  return facts;
}

FileFacts extract_checkpoint(std::string_view bytes, const std::string &path,
                             const std::string &absolute_path) {
  if (!bytes.empty() || absolute_path.empty()) {
    MemorySource source(bytes);
    return checkpoint_facts(read_checkpoint(source), path);
  }
  FileSource source(absolute_path);
  if (!source.is_open()) {
    FileFacts facts;
    facts.mode = "skipped";
    facts.diagnostics.push_back(
        {DiagnosticLevel::Error, path, 0, "unreadable", "could not open " + absolute_path});
    return facts;
  }
  return checkpoint_facts(read_checkpoint(source), path);
}

} // namespace mpsaudit::checkpoint
