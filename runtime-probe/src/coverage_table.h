// Operator-coverage tables: which backends have a kernel for each ATen
// operator of one PyTorch release, derived from that release's
// native_functions.yaml. Torch-free: the analyzer and the generator use this
// without LibTorch; the live probe uses it for the MPS column when the
// target is not MPS.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpsaudit::probe {

// How one backend gets a kernel for one operator overload.
enum class KernelSource : std::uint8_t {
  None,     // '.'  no kernel registered under this backend key
  Direct,   // 'k'  listed under the key in `dispatch:`
  Delegate, // 'd'  `structured_delegate:` points at an overload that has it
  Ufunc,    // 'u'  generated from `ufunc_inner_loop:` (CPU and CUDA only)
};
char to_code(KernelSource source);
std::optional<KernelSource> kernel_source_from_code(char code);

// The composite alias key an overload is registered under, if any.
enum class Composite : std::uint8_t {
  None,
  Implicit,              // CIA, explicit or torchgen's default for ops without dispatch
  Explicit,              // CEA
  ExplicitNonFunctional, // CEANF
  Autogen,               // declared by another entry's `autogen:`; torchgen registers a CEA kernel
};
std::string_view to_string(Composite composite);
std::optional<Composite> composite_from_string(std::string_view text);

// What calling the overload on MPS does, by the decision rule of
// docs/runtime-probe.md ("Coverage derivation"); first match wins.
enum class MpsStatus : std::uint8_t {
  ForcedCpu,         // listed in that release's MPSFallback.mm: always runs on the CPU
  Native,            // an MPS kernel, directly or through the structured delegate
  CompositeImplicit, // decomposes into other ops: works when they do
  CompositeExplicit, // a device-generic kernel: usually works, check what it calls
  Missing,           // dense CPU/CUDA kernel but none for MPS: NotImplementedError or CPU fallback
  NotDense,          // only sparse/quantized/nested/mkldnn kernels: not a dense MPS question
};
std::string_view to_string(MpsStatus status);
std::optional<MpsStatus> mps_status_from_string(std::string_view text);
// Whether a call can be expected to run on the MPS device itself.
bool runs_on_mps(MpsStatus status);

struct OperatorCoverage {
  std::string name;     // ATen name without namespace, e.g. "add"
  std::string overload; // e.g. "Tensor", "out"; empty for the default overload
  KernelSource cpu = KernelSource::None;
  KernelSource cuda = KernelSource::None;
  KernelSource mps = KernelSource::None;
  MpsStatus mps_status = MpsStatus::NotDense;
  Composite composite = Composite::None;
  std::string delegate;             // `structured_delegate:` target ("add.out"), or the autogen base
  bool function_variant = false;    // `variants:` has function (torch.X)
  bool method_variant = false;      // `variants:` has method (Tensor.X)
  std::string python_module;        // nn, linalg, fft, special, sparse, nested or empty
  bool structured = false;          // `structured: True` (the .out overload holding the kernel)
  bool manual_registration = false; // `manual_kernel_registration: True` (registered by hand)
  bool has_out_argument = false;    // writes into an `out=` tensor
  bool in_place = false;            // name ends with '_' (mutates self)

  std::string full_name() const; // "add.Tensor", or "relu" for a default overload
};

// One release's table, sorted by full name.
struct CoverageTable {
  std::string version;           // e.g. "2.11.0"
  std::string input_fingerprint; // of native_functions.yaml, see fingerprint()
  std::vector<OperatorCoverage> operators;

  const OperatorCoverage *find(std::string_view full_name) const;
  // Every overload of one ATen name, in table order.
  std::vector<const OperatorCoverage *> overloads(std::string_view name) const;
  bool has_name(std::string_view name) const;

  // The full name of operators[i], sorted (a name can repeat: find() gives
  // the first row); built by rebuild_index().
  std::vector<std::string> full_names;
  void rebuild_index();
};

// Problems met while deriving or reading a table; reading never throws.
struct TableProblem {
  std::string path;
  std::uint32_t line = 0;
  std::string message;
};

// Inputs of the derivation beside the yaml file (runtime-probe/data/).
struct DerivationData {
  // version -> overloads that MPSFallback.mm sends to the CPU (SOURCES.md).
  std::map<std::string, std::vector<std::string>> forced_cpu;
  // version -> ATen names a vendor snapshot added (left out of the table).
  std::map<std::string, std::vector<std::string>> vendor_only;
};
DerivationData read_derivation_data(const std::string &data_dir, std::vector<TableProblem> &problems);

// Derives the table from native_functions.yaml text. `path` names the file in problems.
CoverageTable derive_table(std::string_view yaml_text, const std::string &version, const std::string &path,
                           const DerivationData &data, std::vector<TableProblem> &problems);

// The committed TSV form (docs/runtime-probe.md, "Table format").
std::string write_table(const CoverageTable &table);
std::optional<CoverageTable> read_table(std::string_view text, const std::string &path,
                                        std::vector<TableProblem> &problems);
std::optional<CoverageTable> read_table_file(const std::string &path, std::vector<TableProblem> &problems);

// 64-bit FNV-1a of the input, in hex: a staleness check, not a security hash.
std::string fingerprint(std::string_view bytes);

// Release numbers compare numerically ("2.11.0" > "2.6.0").
int compare_versions(std::string_view a, std::string_view b);

// All committed tables of a directory (<version>.tsv), oldest first. A
// table's rows are read when it is first used (thread-safe): a scan mostly
// needs the table of one release, and a process pays for each table it reads.
class CoverageLibrary {
public:
  // Reads every table now, and reports the problems of every row.
  static CoverageLibrary load(const std::string &tables_dir, std::vector<TableProblem> &problems);
  // Reads only each table's header lines now (its release), the rows on
  // first use. A table whose rows cannot be read then is empty; its problems
  // go unreported (load() reports them; the committed tables are checked by
  // the tests).
  static CoverageLibrary open(const std::string &tables_dir, std::vector<TableProblem> &problems);

  std::size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }
  // The release of table i (oldest first), without reading its rows.
  const std::string &version(std::size_t i) const { return slots_[i]->version; }
  const CoverageTable &table(std::size_t i) const;
  const CoverageTable &newest() const { return table(size() - 1); }
  // The table for a LibTorch release: the newest table not newer than it,
  // else the oldest table. nullptr when there are none.
  const CoverageTable *closest(std::string_view version) const;
  const CoverageTable *exact(std::string_view version) const;
  // The first release after `after` whose table lets `name` run on MPS in
  // every overload that does not in `after`; empty when none does.
  std::string first_release_with_mps(std::string_view name, std::string_view after) const;

private:
  struct Slot {
    std::string path;
    std::string version;
    mutable std::once_flag read;
    mutable CoverageTable table;
  };
  static void read_rows(const Slot &slot, std::vector<TableProblem> &problems);
  std::vector<std::unique_ptr<Slot>> slots_;
};

} // namespace mpsaudit::probe
