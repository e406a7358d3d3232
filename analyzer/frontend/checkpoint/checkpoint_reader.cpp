#include "frontend/checkpoint/checkpoint_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "core/fact_kinds.h"
#include "core/text.h"
#include "frontend/checkpoint/pickle_reader.h"
#include "frontend/checkpoint/tar_reader.h"
#include "frontend/checkpoint/zip_reader.h"

namespace mpsaudit::checkpoint {
namespace {

constexpr std::uint64_t kMaxPickleBytes = 256ull << 20;
constexpr std::uint64_t kMaxSafetensorsHeader = 100ull << 20; // the format's own limit
constexpr std::size_t kWalkDepth = 64;
constexpr std::size_t kMaxTensorFacts = 20;
constexpr std::size_t kMaxListedGlobals = 64;
constexpr std::size_t kMaxNotes = 16;
constexpr std::size_t kMaxKeyInPath = 256; // longer dict keys are cut in tensor paths

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

std::vector<std::string> split_dotted(const std::string &path) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (true) {
    const auto dot = path.find('.', at);
    parts.push_back(path.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
    if (dot == std::string::npos)
      return parts;
    at = dot + 1;
  }
}

bool is_dunder(const std::string &part) {
  return part.size() > 4 && starts_with(part, "__") && ends_with(part, "__");
}

bool is_builtins_module(const std::string &module) {
  return module == "builtins" || module == "__builtin__" || module == "__builtins__";
}

// Callables known to run commands or code when the unpickler calls them:
// the classic payloads (os.system, subprocess.Popen, builtins.eval/exec),
// gadgets that call an attribute of their argument, attribute chains into
// Python internals (STACK_GLOBAL torch "__builtins__.get" reaches eval), and
// torch's own loaders of code or further pickles. Python resolves a dotted
// name as a chain of attributes (protocol 4), so the check is on the whole
// path, module and name joined.
bool is_dangerous_global(const std::string &module, const std::string &name) {
  static const std::unordered_set<std::string> modules{
      "os",      "posix",    "nt",     "subprocess", "sys",        "commands",        "pty",
      "socket",  "shutil",   "runpy",  "importlib",  "ctypes",     "pickle",          "cPickle",
      "_pickle", "marshal",  "code",   "codeop",     "webbrowser", "multiprocessing", "asyncio",
      "pdb",     "timeit",   "bdb",    "types",      "inspect",    "signal",          "_posixsubprocess",
      "ptrace",  "pip",      "urllib", "requests",   "http",       "ftplib",          "telnetlib",
      "smtplib", "tempfile", "glob",   "io",         "_io",        "zipimport",       "pydoc",
      "pkgutil", "imp",      "_thread"};
  static const std::unordered_set<std::string> builtins{
      "eval",    "exec", "compile",  "__import__", "getattr",    "setattr",
      "delattr", "open", "apply",    "input",      "breakpoint", "globals",
      "locals",  "vars", "execfile", "file",       "reload",     "memoryview"};
  static const std::array<std::string_view, 12> torch_loaders{"torch.load",
                                                              "torch.hub",
                                                              "torch.utils.cpp_extension",
                                                              "torch.package",
                                                              "torch.serialization",
                                                              "torch.storage._load_from_bytes",
                                                              "torch.jit.load",
                                                              "torch.fx",
                                                              "torch._dynamo",
                                                              "torch._inductor",
                                                              "torch.multiprocessing",
                                                              "torch.distributed.rpc"};
  const std::string path = module + "." + name;
  const std::vector<std::string> parts = split_dotted(path);
  if (modules.count(parts.front()))
    return true;
  if (is_builtins_module(parts.front()) && parts.size() > 1 && builtins.count(parts[1]))
    return true;
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (is_dunder(parts[i]))
      return true;
  if (path == "operator.attrgetter" || path == "operator.methodcaller" || path == "functools.partial")
    return true;
  if (path == "torch.serialization._get_layout")
    return false;
  for (std::string_view loader : torch_loaders)
    if (path == loader || starts_with(path, std::string(loader) + "."))
      return true;
  return false;
}

// torch's tensor-rebuild set: the callables torch.load(weights_only=True)
// accepts (torch/_weights_only_unpickler.py: rebuild functions, storage and
// tensor classes, dtypes, Size, device, Parameter, OrderedDict, _codecs.encode
// for bytes), plus what a plain state dict or a TorchScript archive also
// holds: harmless builtin value types, defaultdict, TorchScript classes and
// list builders, and the classes of torch's stock layers (a whole model
// saved with torch.save(model)). Everything else is reported.
bool is_torch_rebuild_global(const std::string &module, const std::string &name) {
  static const std::unordered_set<std::string> exact{
      "collections.OrderedDict",
      "collections.defaultdict",
      "collections.Counter",
      "_codecs.encode",
      "torch.Size",
      "torch.Tensor",
      "torch.device",
      "torch.nn.parameter.Parameter",
      "torch.nn.parameter.Buffer",
      "torch.serialization._get_layout",
      "torch.torch_version.TorchVersion", // torch.__version__, a str
      "torch._tensor._rebuild_from_type",
      "torch._tensor._rebuild_from_type_v2",
      "torch.UntypedStorage",
      "torch.TypedStorage",
      "torch.storage.UntypedStorage",
      "torch.storage.TypedStorage",
      "torch.jit._pickle.build_intlist",
      "torch.jit._pickle.build_doublelist",
      "torch.jit._pickle.build_boollist",
      "torch.jit._pickle.build_tensorlist",
      "torch.jit._pickle.build_tensor_from_id",
      "torch.jit._pickle.restore_type_tag"};
  // dtypes, layouts, memory formats and quantization schemes: GLOBAL torch <name>.
  static const std::unordered_set<std::string> torch_values{"float32",
                                                            "float",
                                                            "float64",
                                                            "double",
                                                            "float16",
                                                            "half",
                                                            "bfloat16",
                                                            "int64",
                                                            "long",
                                                            "int32",
                                                            "int",
                                                            "int16",
                                                            "short",
                                                            "int8",
                                                            "uint8",
                                                            "uint16",
                                                            "uint32",
                                                            "uint64",
                                                            "bool",
                                                            "complex32",
                                                            "chalf",
                                                            "complex64",
                                                            "cfloat",
                                                            "complex128",
                                                            "cdouble",
                                                            "qint8",
                                                            "quint8",
                                                            "qint32",
                                                            "quint4x2",
                                                            "quint2x4",
                                                            "float8_e4m3fn",
                                                            "float8_e5m2",
                                                            "float8_e4m3fnuz",
                                                            "float8_e5m2fnuz",
                                                            "float8_e8m0fnu",
                                                            "float4_e2m1fn_x2",
                                                            "bits8",
                                                            "bits16",
                                                            "bits1x8",
                                                            "bits2x4",
                                                            "bits4x2",
                                                            "uint1",
                                                            "uint2",
                                                            "uint3",
                                                            "uint4",
                                                            "uint5",
                                                            "uint6",
                                                            "uint7",
                                                            "int1",
                                                            "int2",
                                                            "int3",
                                                            "int4",
                                                            "int5",
                                                            "int6",
                                                            "int7",
                                                            "strided",
                                                            "sparse_coo",
                                                            "sparse_csr",
                                                            "sparse_csc",
                                                            "sparse_bsr",
                                                            "sparse_bsc",
                                                            "_mkldnn",
                                                            "jagged",
                                                            "contiguous_format",
                                                            "channels_last",
                                                            "channels_last_3d",
                                                            "preserve_format",
                                                            "per_tensor_affine",
                                                            "per_tensor_symmetric",
                                                            "per_channel_affine",
                                                            "per_channel_symmetric",
                                                            "per_channel_affine_float_qparams"};
  static const std::unordered_set<std::string> builtin_values{
      "set", "frozenset", "slice", "complex", "bytearray", "int", "float", "bool", "str"};
  const std::string path = module + "." + name;
  const std::vector<std::string> parts = split_dotted(path);
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (is_dunder(parts[i]) || parts[i].empty())
      return false;
  if (exact.count(path))
    return true;
  if ((module == "builtins" || module == "__builtin__") && builtin_values.count(name))
    return true;
  if (parts.size() == 3 && parts[0] == "torch" && parts[1] == "_utils" && starts_with(parts[2], "_rebuild_"))
    return true;
  if (parts.size() == 2 && parts[0] == "torch" && torch_values.count(parts[1]))
    return true;
  // torch.FloatStorage, torch.cuda.HalfTensor, torch.sparse.FloatTensor, ...
  const std::string &last = parts.back();
  const std::string folder = path.substr(0, path.size() - last.size() - 1);
  if (folder == "torch" || folder == "torch.cuda" || folder == "torch.sparse" ||
      folder == "torch.cuda.sparse")
    for (const auto &entry : kDtypes) {
      const std::string_view prefix =
          entry.storage.substr(0, entry.storage.size() - std::string_view("Storage").size());
      if (last == std::string(prefix) + "Storage" || last == std::string(prefix) + "Tensor")
        return true;
    }
  if (parts.front() == "__torch__") // TorchScript classes, built by the C++ unpickler only
    return true;
  // Stock layer classes, e.g. torch.nn.modules.linear.Linear.
  return starts_with(path, "torch.nn.modules.") && last.front() >= 'A' && last.front() <= 'Z';
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
      return key->text.substr(0, kMaxKeyInPath);
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

std::string mebibytes(std::uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

std::string display_name(const GlobalReference &reference) {
  switch (reference.form) {
  case GlobalForm::Computed:
    return "STACK_GLOBAL on computed names (byte " + std::to_string(reference.offset) + ")";
  case GlobalForm::Extension:
    return "copyreg " + reference.name;
  case GlobalForm::Named:
    break;
  }
  return reference.module + "." + reference.name;
}

// Files one pickle's callables in the summary: known code runners as
// dangerous, anything else outside torch's rebuild set as other.
void classify_globals(const PickleResult &result, CheckpointSummary &summary) {
  for (const auto &reference : result.globals) {
    const bool named = reference.form == GlobalForm::Named;
    const bool dangerous = named && is_dangerous_global(reference.module, reference.name);
    if (!dangerous && named && is_torch_rebuild_global(reference.module, reference.name))
      continue;
    auto &list = dangerous ? summary.dangerous_globals : summary.other_globals;
    const std::string name = display_name(reference);
    if (std::find(list.begin(), list.end(), name) != list.end())
      continue;
    if (list.size() >= kMaxListedGlobals)
      ++summary.unlisted_globals;
    else
      list.push_back(name);
  }
  summary.unlisted_globals += result.globals_not_kept;
}

void add_note(CheckpointSummary &summary, DiagnosticLevel level, const std::string &code,
              const std::string &message) {
  if (summary.notes.size() < kMaxNotes)
    summary.notes.push_back({level, code, message});
}

// The first problem found is the one reported.
void set_problem(CheckpointSummary &summary, const std::string &status, const std::string &problem) {
  if (summary.status != "ok")
    return;
  summary.status = status;
  summary.problem = problem;
}

// Decodes the pickles of one checkpoint within its scan budget (the limit
// is per file, however many pickles it holds), files their callables and
// notes the limits they hit.
class PickleScanner {
public:
  explicit PickleScanner(CheckpointSummary &summary) : summary_(summary) {}

  // Decodes without filing anything: for a first look at bytes that may be
  // no pickle at all.
  PickleResult decode(ByteStream &input, std::uint64_t offset) {
    PickleLimits limits;
    limits.max_input_bytes = budget_;
    PickleResult result = parse_pickle(input, offset, limits);
    budget_ -= std::min(budget_, result.end_offset - offset);
    return result;
  }

  void account(const PickleResult &result, const std::string &what) {
    classify_globals(result, summary_);
    if (result.memory_limit_hit)
      add_note(summary_, DiagnosticLevel::Warning, "checkpoint-memory-limit",
               what + ": decoding it needs more than " + mebibytes(PickleLimits{}.max_memory_bytes) +
                   " of memory, so its values (and tensors) were not read; every callable in it was still "
                   "checked");
    if (result.input_limit_hit)
      add_note(summary_, DiagnosticLevel::Error, "checkpoint-scan-limit",
               what + ": the pickle goes on past the " + mebibytes(kMaxPickleBytes) +
                   " scanned at most per checkpoint; callables after byte " +
                   std::to_string(result.end_offset) + " were not checked");
  }

  PickleResult scan(ByteStream &input, std::uint64_t offset, const std::string &what) {
    PickleResult result = decode(input, offset);
    account(result, what);
    return result;
  }

  PickleResult scan_range(ByteSource &source, std::uint64_t offset, std::uint64_t length,
                          const std::string &what) {
    SourceStream stream(source, offset, length);
    return scan(stream, offset, what);
  }

private:
  CheckpointSummary &summary_;
  std::uint64_t budget_ = kMaxPickleBytes;
};

// When any callable outside torch's rebuild set was found, the checkpoint
// is hostile, whatever else is wrong with it.
void settle_hostile_status(CheckpointSummary &summary) {
  if (summary.dangerous_globals.empty() && summary.other_globals.empty() && summary.unlisted_globals == 0)
    return;
  const auto joined = [](const std::vector<std::string> &names) {
    std::string out;
    for (const auto &name : names)
      out += (out.empty() ? "" : ", ") + name;
    return out;
  };
  std::string problem;
  if (!summary.dangerous_globals.empty())
    problem = "the pickle references " + joined(summary.dangerous_globals) + ", which run commands or code";
  if (!summary.other_globals.empty())
    problem += (problem.empty() ? "the pickle references " : "; and ") + joined(summary.other_globals) +
               ", outside torch's tensor-rebuild set";
  if (problem.empty())
    problem = "the pickle references callables";
  if (summary.unlisted_globals > 0)
    problem += " (and " + std::to_string(summary.unlisted_globals) + " more)";
  problem += ": torch.load(weights_only=False) would import and call them; nothing was run";
  if (summary.status != "ok" && !summary.problem.empty())
    problem += " (also: " + summary.problem + ")";
  summary.status = "hostile";
  summary.problem = problem;
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

// The pickle that holds the checkpoint's objects: its tensors are read when
// it decoded whole.
void read_tensors(const PickleResult &result, CheckpointSummary &summary,
                  std::map<std::string, StorageInfo> &storages) {
  if (!result.ok) {
    if (result.memory_limit_hit && result.stopped)
      set_problem(summary, "partial",
                  "the pickle needs too much memory to decode: its tensors were not read");
    else
      set_problem(summary, "unreadable", "pickle: " + result.error);
    return;
  }
  TensorWalker walker(summary, storages);
  walker.walk(result.root, "", 0);
  if (walker.malformed_)
    set_problem(summary, "partial", "some tensor records do not have the layout torch writes");
}

// Reads what is left of an entry (at most its recorded size, and one byte
// more to catch an entry longer than that), so that its CRC can be checked.
std::string drain_and_check(ZipEntryStream &stream, const ZipEntry &entry) {
  std::string buffer(64 * 1024, '\0');
  while (stream.delivered() <= entry.uncompressed_size) {
    const auto want = static_cast<std::size_t>(
        std::min<std::uint64_t>(buffer.size(), entry.uncompressed_size + 1 - stream.delivered()));
    if (stream.read_some(buffer.data(), want) == 0)
      break;
  }
  return stream.integrity_problem();
}

void read_zip(ByteSource &source, CheckpointSummary &summary) {
  summary.format = "torch-zip";
  ZipReader zip(source);
  if (!zip.open()) {
    summary.status = "unreadable";
    summary.problem = "zip: " + zip.error();
    summary.nothing_to_unpickle = true; // torch reads the same directory
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
  PickleScanner scanner(summary);
  std::map<std::string, StorageInfo> storages;
  std::map<std::string, std::uint64_t> entry_bytes;
  if (!data) {
    summary.status = "unreadable";
    summary.problem = "zip archive without data.pkl: not a torch checkpoint";
    summary.nothing_to_unpickle = true;
  } else if (auto stream = zip.stream(*data); !stream) {
    summary.status = "unreadable";
    summary.problem = "zip: " + zip.error();
  } else {
    const PickleResult result = scanner.scan(*stream, 0, data->name);
    if (data->uncompressed_size > kMaxPickleBytes && !result.input_limit_hit)
      add_note(summary, DiagnosticLevel::Note, "checkpoint-scan-limit",
               data->name + " claims " + std::to_string(data->uncompressed_size) + " bytes, more than the " +
                   mebibytes(kMaxPickleBytes) + " scanned at most: its pickle ends at byte " +
                   std::to_string(result.end_offset) +
                   ", the unpickler reads nothing after that, and the rest was not read");
    const std::string damage =
        data->uncompressed_size <= kMaxPickleBytes ? drain_and_check(*stream, *data) : std::string();
    if (!damage.empty()) {
      summary.status = "unreadable";
      summary.problem = "zip: " + damage;
    } else {
      read_tensors(result, summary, storages);
    }
    const std::string prefix = data->name.substr(0, data->name.size() - std::string("data.pkl").size());
    for (const auto &[key, info] : storages)
      if (const ZipEntry *entry = zip.find(prefix + "data/" + key))
        entry_bytes[key] = entry->uncompressed_size;
  }
  // torch.load unpickles <archive>/data.pkl, <archive> being the folder of
  // the first entry; a crafted archive may hold several data.pkl, or one
  // name twice. Every pickle in it is scanned for callables, so none can
  // hide behind the one read for tensors.
  for (const auto &entry : zip.entries())
    if (&entry != data && ends_with(entry.name, ".pkl"))
      if (auto stream = zip.stream(entry))
        scanner.scan(*stream, 0, entry.name);
  finish_totals(summary, storages, entry_bytes);
}

// A tar member's data as the legacy loader reads it, or null with a problem set.
const TarMember *tar_member(TarReader &tar, const std::string &name, CheckpointSummary &summary) {
  const TarMember *member = tar.data_of(name);
  if (!member)
    set_problem(summary, "unreadable",
                tar.error().empty() ? "tar archive without a " + name + " member: not a torch checkpoint"
                                    : "tar: " + tar.error());
  return member;
}

// The `storages` and `tensors` members of the tar format: a pickled count,
// then per record a pickle followed by raw bytes whose length `raw_length`
// reads (or 0 when it cannot tell), then (storages only) a pickled list of
// views. Each pickle is scanned for callables.
template <typename RawLength>
void read_tar_records(ByteSource &source, const TarMember &member, bool trailing_pickle,
                      PickleScanner &scanner, CheckpointSummary &summary, RawLength raw_length) {
  const std::uint64_t end = member.offset + member.size;
  std::uint64_t at = member.offset;
  const auto next = [&]() {
    PickleResult result = scanner.scan_range(source, at, end - at, member.name);
    if (!result.stopped)
      set_problem(summary, "unreadable", member.name + " pickle: " + result.error);
    at = result.end_offset;
    return result;
  };
  const PickleResult count = next();
  if (!count.stopped)
    return;
  if (!count.ok || count.root->kind != PickleKind::Int || count.root->integer < 0) {
    set_problem(summary, "partial", member.name + " does not start with a record count");
    return;
  }
  for (std::int64_t index = 0; index < count.root->integer; ++index) {
    const PickleResult record = next();
    if (!record.stopped)
      return;
    const std::uint64_t raw = raw_length(record, at);
    if (raw == 0 || raw > end - at) {
      set_problem(summary, "partial",
                  member.name + " record " + std::to_string(index) + " could not be followed");
      return;
    }
    at += raw;
  }
  if (trailing_pickle)
    next();
}

// torch.save before 0.4: a tar of sys_info, storages, tensors and pickle.
// torch's legacy_load unpickles storages, then tensors, then pickle.
void read_tar(ByteSource &source, CheckpointSummary &summary) {
  summary.format = "torch-tar";
  TarReader tar(source);
  if (!tar.open()) {
    summary.status = "unreadable";
    summary.problem = "tar: " + tar.error();
    summary.nothing_to_unpickle = true;
    return;
  }
  PickleScanner scanner(summary);
  const auto read_u64 = [&source](std::uint64_t at, std::uint64_t &value) {
    std::string raw;
    if (!source.read(at, 8, raw))
      return false;
    value = read_u64le(raw, 0);
    return true;
  };
  // A storage record (key, location, storage type) is followed by an int64
  // element count and the elements.
  const auto storage_bytes = [&](const PickleResult &record, std::uint64_t at) -> std::uint64_t {
    if (!record.ok || record.root->kind != PickleKind::Tuple || record.root->items.size() != 3 ||
        !record.root->items[2] || record.root->items[2]->kind != PickleKind::Global)
      return 0;
    const std::uint64_t element = dtype_size(dtype_of_storage_class(record.root->items[2]->name));
    std::uint64_t elements = 0;
    if (element == 0 || !read_u64(at, elements) || elements > (UINT64_MAX - 8) / element)
      return 0;
    return 8 + elements * element;
  };
  // A tensor record (key, storage id, tensor type) is followed by an int32
  // ndim, 4 bytes of padding, ndim sizes, ndim strides and an offset.
  const auto tensor_bytes = [&](const PickleResult &, std::uint64_t at) -> std::uint64_t {
    std::uint64_t head = 0;
    if (!read_u64(at, head))
      return 0;
    const auto ndim = static_cast<std::int32_t>(head & 0xFFFFFFFFu);
    return ndim < 0 || ndim > 64 ? 0 : 8 + 16 * static_cast<std::uint64_t>(ndim) + 8;
  };
  // legacy_load extracts storages first: without it, it unpickles nothing.
  summary.nothing_to_unpickle = tar.data_of("storages") == nullptr;
  if (const TarMember *member = tar_member(tar, "storages", summary))
    read_tar_records(source, *member, true, scanner, summary, storage_bytes);
  if (const TarMember *member = tar_member(tar, "tensors", summary))
    read_tar_records(source, *member, false, scanner, summary, tensor_bytes);
  if (const TarMember *member = tar_member(tar, "pickle", summary)) {
    const PickleResult result = scanner.scan_range(source, member->offset, member->size, "pickle");
    if (!result.stopped)
      set_problem(summary, "unreadable", "pickle: " + result.error);
  }
  // torch 0.1 unpickled sys_info too; a pickle there is scanned all the same.
  if (const TarMember *member = tar.data_of("sys_info"))
    scanner.scan_range(source, member->offset, member->size, "sys_info");
}

bool is_identifier_path(const std::string &text) {
  if (text.empty())
    return false;
  for (const auto &part : split_dotted(text)) {
    if (part.empty() || std::isdigit(static_cast<unsigned char>(part.front())))
      return false;
    for (char c : part)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
        return false;
  }
  return true;
}

// Whether a first decode found a pickle rather than bytes that happen to
// start with an opcode: it reached STOP, called something, named a
// callable the way Python spells one, or (unless the file's kind was only
// guessed from that header) started with a protocol header.
bool looks_like_pickle(const PickleResult &result, std::string_view head, bool kind_guessed) {
  if (result.stopped || result.calls > 0)
    return true;
  if (!kind_guessed && head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 &&
      static_cast<unsigned char>(head[1]) <= 5)
    return true;
  return std::any_of(result.globals.begin(), result.globals.end(), [](const GlobalReference &reference) {
    return reference.form != GlobalForm::Named ||
           (is_identifier_path(reference.module) && is_identifier_path(reference.name));
  });
}

// A file that is neither zip nor tar: the legacy torch.save sequence (magic
// number, protocol version, sys info, the objects, the storage keys, then
// raw storage data) or a plain pickle of any protocol. torch.load
// unpickles the first pickle before it checks for the magic number, so a
// plain pickle runs whatever it holds. False when the bytes are no pickle.
bool read_pickle_file(ByteSource &source, std::string_view head, bool kind_guessed,
                      CheckpointSummary &summary) {
  PickleScanner scanner(summary);
  SourceStream stream(source, 0, source.size());
  const PickleResult first = scanner.decode(stream, 0);
  if (!looks_like_pickle(first, head, kind_guessed))
    return false;
  scanner.account(first, "the pickle");
  std::map<std::string, StorageInfo> storages;
  if (!first.ok || first.root->kind != PickleKind::BigInt) {
    summary.format = "pickle";
    read_tensors(first, summary, storages);
    finish_totals(summary, storages, {});
    return true;
  }
  summary.format = "torch-legacy";
  static constexpr std::array<const char *, 4> kParts{"protocol version", "sys info", "object",
                                                      "storage keys"};
  std::uint64_t at = first.end_offset;
  for (std::size_t part = 0; part < kParts.size(); ++part) {
    const std::string what = std::string("legacy ") + kParts[part] + " pickle";
    const PickleResult result = scanner.scan_range(source, at, source.size() - at, what);
    if (part == 2)
      read_tensors(result, summary, storages);
    else if (!result.stopped)
      set_problem(summary, "unreadable", what + ": " + result.error);
    if (!result.stopped)
      break;
    at = result.end_offset;
  }
  finish_totals(summary, storages, {});
  return true;
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

void read_safetensors_file(ByteSource &source, const std::string &head, CheckpointSummary &summary) {
  const std::uint64_t header_length = read_u64le(head, 0);
  if (header_length > kMaxSafetensorsHeader || header_length > source.size() - 8) {
    summary.format = "safetensors";
    summary.status = "unreadable";
    summary.problem = "safetensors header length " + std::to_string(header_length) +
                      " is larger than the file or the format's 100 MB limit";
    summary.nothing_to_unpickle = true;
    return;
  }
  read_safetensors(source, header_length, summary);
  summary.nothing_to_unpickle = summary.status == "unreadable";
}

// A guessed file that holds nothing torch.load would unpickle, and names no
// callable, is no checkpoint: said with the not-a-checkpoint status, so
// that the scan lists it as it would have without the guess.
void refute_unproven_guess(CheckpointSummary &summary) {
  const bool names_callables =
      !summary.dangerous_globals.empty() || !summary.other_globals.empty() || summary.unlisted_globals > 0;
  if (names_callables || (summary.status != "not-a-checkpoint" && !summary.nothing_to_unpickle))
    return;
  const std::string why = summary.problem;
  summary = CheckpointSummary{};
  summary.status = "not-a-checkpoint";
  summary.problem = why.empty() ? "no pickle torch.load would unpickle" : why;
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

std::vector<std::string> untrusted_globals(const CheckpointSummary &summary) {
  std::vector<std::string> names = summary.dangerous_globals;
  names.insert(names.end(), summary.other_globals.begin(), summary.other_globals.end());
  return names;
}

bool has_checkpoint_signature(std::string_view head) {
  const auto byte = [&head](std::size_t at) { return static_cast<unsigned char>(head[at]); };
  if (head.size() >= 2 && byte(0) == 0x80 && byte(1) >= 2 && byte(1) <= 5)
    return true;
  if (head.substr(0, 4) == std::string_view("PK\x03\x04", 4))
    return true;
  MemorySource first_block(head);
  if (TarReader::looks_like_tar(first_block))
    return true;
  if (head.size() >= 9 && head[8] == '{') {
    const std::uint64_t header_length = read_u64le(head, 0);
    return header_length >= 2 && header_length <= kMaxSafetensorsHeader;
  }
  return false;
}

CheckpointSummary read_checkpoint(ByteSource &source, bool kind_guessed) {
  CheckpointSummary summary;
  std::string head;
  if (!source.read(0, std::min<std::uint64_t>(source.size(), 16), head) || head.empty()) {
    summary.status = kind_guessed ? "not-a-checkpoint" : "unreadable";
    summary.problem = "the file is empty";
    return summary;
  }
  // The order torch.load tries: zip, then tar, then a pickle. A valid
  // safetensors header goes before the pickle: its 8-byte length prefix can
  // begin with a pickle opcode, and its tensor data is binary noise.
  const bool safetensors_shape = head.size() >= 9 && head[8] == '{';
  if (ZipReader::looks_like_zip(source)) {
    read_zip(source, summary);
  } else if (TarReader::looks_like_tar(source)) {
    read_tar(source, summary);
  } else {
    if (safetensors_shape)
      read_safetensors_file(source, head, summary);
    if (!safetensors_shape || summary.status == "unreadable") {
      CheckpointSummary pickled;
      if (read_pickle_file(source, head, kind_guessed, pickled))
        summary = std::move(pickled);
      else if (!safetensors_shape) {
        summary.status = "not-a-checkpoint";
        summary.problem = "neither a torch zip or tar archive, a pickle nor a safetensors file";
      }
    }
  }
  settle_hostile_status(summary);
  recount_module_prefix(summary);
  if (kind_guessed)
    refute_unproven_guess(summary);
  return summary;
}

FileFacts checkpoint_facts(const CheckpointSummary &summary, const std::string &path) {
  FileFacts facts;
  facts.mode = summary.status == "not-a-checkpoint" ? "skipped" : "ast";
  for (const auto &note : summary.notes)
    facts.diagnostics.push_back({note.level, path, 0, note.code, note.message});
  if (summary.status == "not-a-checkpoint") {
    facts.diagnostics.push_back({DiagnosticLevel::Note, path, 0, "not-a-checkpoint", summary.problem});
    return facts;
  }
  Fact fact;
  fact.kind = fact_kind::Checkpoint;
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
  if (summary.status == "hostile") {
    std::string untrusted = join_list(untrusted_globals(summary));
    if (summary.unlisted_globals > 0)
      untrusted += " and " + std::to_string(summary.unlisted_globals) + " more";
    fact.set_attribute("untrusted_globals", untrusted);
  }
  facts.facts.push_back(std::move(fact));

  std::size_t listed = 0;
  for (const auto &tensor : summary.tensors) {
    if (tensor.dtype != "float64" || listed++ >= kMaxTensorFacts)
      continue;
    Fact detail;
    detail.kind = fact_kind::CheckpointTensor;
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
                             const std::string &absolute_path, bool kind_guessed) {
  if (!bytes.empty() || absolute_path.empty()) {
    MemorySource source(bytes);
    return checkpoint_facts(read_checkpoint(source, kind_guessed), path);
  }
  FileSource source(absolute_path);
  if (!source.is_open()) {
    FileFacts facts;
    facts.mode = "skipped";
    facts.diagnostics.push_back(
        {DiagnosticLevel::Error, path, 0, "unreadable", "could not open " + absolute_path});
    return facts;
  }
  return checkpoint_facts(read_checkpoint(source, kind_guessed), path);
}

} // namespace mpsaudit::checkpoint
