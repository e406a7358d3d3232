// Checkpoint inspection without unpickling: torch zip archives (torch.save
// since 1.6, TorchScript archives), the legacy torch.save pickle sequence,
// torch's oldest tar format, plain pickles of any protocol, and safetensors
// headers. Reports what matters on a Mac: dtypes and storage
// locations (cuda:0 means torch.load needs map_location), float64 tensors
// (MPS has no float64), DataParallel `module.` key prefixes, sizes for the
// memory-fit estimate, and GLOBALs that would execute code on torch.load.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "frontend/checkpoint/byte_source.h"

namespace mpsaudit::checkpoint {

struct TensorRecord {
  std::string key;    // dotted path inside the checkpoint, e.g. "model.fc1.weight"
  std::string dtype;  // torch dtype name: float32, float64, bfloat16, ...
  std::string device; // storage location as saved: cpu, cuda:0, ...
  std::vector<std::int64_t> shape;
  std::uint64_t elements = 0; // product of shape
  std::string storage_key;
  bool optimizer_state = false; // under an "optimizer"-like top-level key
};

// Something the scan of one checkpoint wants said beside its facts: a
// limit that was hit, a part that was not read.
struct CheckpointNote {
  DiagnosticLevel level = DiagnosticLevel::Warning;
  std::string code;
  std::string message;
};

struct CheckpointSummary {
  // torch-zip, torchscript, torch-legacy, torch-tar, pickle, safetensors, unknown
  std::string format = "unknown";
  // ok; partial (read, but part of it was not understood); unreadable;
  // hostile (a callable outside torch's tensor-rebuild set, which
  // torch.load(weights_only=False) would import and call); not-a-checkpoint
  std::string status = "ok";
  std::string problem; // why the status is not ok
  std::vector<TensorRecord> tensors;
  std::uint64_t parameters = 0;      // elements of tensors outside optimizer state
  std::uint64_t parameter_bytes = 0; // bytes of those tensors' storages
  std::uint64_t bytes = 0;           // bytes of all storages, each counted once
  std::uint64_t storages = 0;
  std::uint64_t float64_tensors = 0;
  std::uint64_t float64_bytes = 0;
  std::uint64_t cuda_storages = 0;
  std::uint64_t module_prefixed_keys = 0; // tensor keys starting with "module." (DataParallel)
  std::vector<std::string> devices;       // distinct storage locations
  std::vector<std::string> dtypes;        // distinct dtypes
  // Callables outside torch's tensor-rebuild set; any of them makes the
  // checkpoint hostile. Dangerous ones are known to run commands or code
  // (posix.system, builtins.eval); the others are merely unvetted
  // (argparse.Namespace, numpy, a STACK_GLOBAL on computed names).
  std::vector<std::string> dangerous_globals;
  std::vector<std::string> other_globals;
  std::uint64_t unlisted_globals = 0; // more of them than the lists above keep
  std::vector<CheckpointNote> notes;
  // torch.load would unpickle nothing of the file: it is empty, a zip
  // without data.pkl (or whose directory cannot be read), a tar without a
  // storages member, or a safetensors header that is not valid.
  bool nothing_to_unpickle = false;
};

// dangerous_globals then other_globals: every callable that made the
// checkpoint hostile.
std::vector<std::string> untrusted_globals(const CheckpointSummary &summary);

// Reads a checkpoint from `source`. Never throws and never executes anything.
// With `kind_guessed` (a file taken for a checkpoint by its first bytes or a
// name other formats share) the file must prove it: what holds no pickle
// torch.load would unpickle and names no callable is not-a-checkpoint, and
// bytes are a pickle only when they decode as one (a protocol header alone
// is not enough).
CheckpointSummary read_checkpoint(ByteSource &source, bool kind_guessed = false);

// Whether a file's first bytes (up to 512) are those of a format torch.load
// reads or of safetensors: a pickle protocol 2-5 header, a zip local file
// header (torch.load's own test), a tar header with a valid checksum
// (Python's tarfile's test), or a safetensors header length followed by '{'.
// Protocol 0 and 1 pickles have no header: they are found by name only.
bool has_checkpoint_signature(std::string_view head);

// Facts of a summary: one `checkpoint` fact, plus `checkpoint-tensor` facts
// for float64 tensors (the ones a user has to cast). Problems become
// diagnostics naming `path`.
FileFacts checkpoint_facts(const CheckpointSummary &summary, const std::string &path);

// The Checkpoint front end: reads `bytes` when the scan loaded the file, else
// `absolute_path` from disk (checkpoints are often too large to load).
FileFacts extract_checkpoint(std::string_view bytes, const std::string &path,
                             const std::string &absolute_path, bool kind_guessed = false);

// Bytes per element of a torch dtype name (0 when unknown).
std::uint64_t dtype_size(std::string_view dtype);
// "1.5 GB" style, decimal units as a user reads them.
std::string human_bytes(std::uint64_t bytes);

} // namespace mpsaudit::checkpoint
