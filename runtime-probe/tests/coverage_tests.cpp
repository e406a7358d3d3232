// Torch-free tests of the coverage tables: the derivation rules on small
// yaml inputs, the generator on every release in shared/pytorch-ops, the
// committed tables, release lookups and the Python API map.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "coverage_table.h"
#include "python_api.h"
#include "text_util.h"
#include "verdicts.h"

using namespace mpsaudit::probe;
namespace fs = std::filesystem;

namespace {

const std::string kProbeDir = MPSAUDIT_PROBE_DATA_DIR;
const std::string kOpsDir = MPSAUDIT_PYTORCH_OPS_DIR;

CoverageTable derive(const std::string &yaml, const DerivationData &data = {},
                     const std::string &version = "9.9.9") {
  std::vector<TableProblem> problems;
  CoverageTable table = derive_table(yaml, version, "test.yaml", data, problems);
  INFO((problems.empty() ? std::string() : problems.front().message));
  CHECK(problems.empty());
  return table;
}

// The committed table of type `Table` at `relative` below the probe's
// folder, loaded at the first call; REQUIREs that it loads without problems.
// One file per type: later calls return the first one's table.
template <typename Table> const Table &committed_table(const std::string &relative) {
  static const Table loaded = [&] {
    std::vector<TableProblem> problems;
    Table result = Table::load(kProbeDir + relative, problems);
    REQUIRE(problems.empty());
    return result;
  }();
  return loaded;
}

const CoverageLibrary &library() {
  return committed_table<CoverageLibrary>("/coverage");
}

const PythonApiMap &api_map() {
  return committed_table<PythonApiMap>("/data/python-api-map.tsv");
}

} // namespace

TEST_CASE("a structured op's functional overload takes the .out overload's kernels") {
  CoverageTable table = derive(R"(
- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: foo_out
    MPS: foo_out_mps
- func: foo(Tensor self) -> Tensor
  structured_delegate: foo.out
  variants: function, method
- func: bar.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: bar_out
- func: bar(Tensor self) -> Tensor
  structured_delegate: bar.out
)");
  const OperatorCoverage *foo = table.find("foo");
  REQUIRE(foo);
  CHECK(foo->cpu == KernelSource::Delegate);
  CHECK(foo->mps == KernelSource::Delegate);
  CHECK(foo->mps_status == MpsStatus::Native);
  CHECK(foo->function_variant);
  CHECK(foo->method_variant);
  CHECK(table.find("foo.out")->has_out_argument);
  CHECK(table.find("foo.out")->cpu == KernelSource::Direct);
  // bar.out has no MPS kernel: the functional overload fails on MPS too.
  CHECK(table.find("bar")->mps_status == MpsStatus::Missing);
  CHECK(table.find("bar")->composite == Composite::None);
}

TEST_CASE("ufunc loops give CPU and CUDA kernels; no dispatch means CompositeImplicitAutograd") {
  CoverageTable table = derive(R"(
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  structured: True
  ufunc_inner_loop:
    Generic: add (AllAndComplex)
  dispatch:
    MPS: add_out_mps
- func: chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
  variants: function, method
- func: baz(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: baz
  autogen: baz.out
- func: qux(Tensor self) -> Tensor
  autogen: qux.out
- func: core_qux(Tensor self) -> Tensor
  tags: [core, pointwise]
  autogen: core_qux.out
- func: sparse_only(Tensor self) -> Tensor
  dispatch:
    SparseCPU: sparse_only
)");
  const OperatorCoverage *add = table.find("add.out");
  REQUIRE(add);
  CHECK(add->cpu == KernelSource::Ufunc);
  CHECK(add->cuda == KernelSource::Ufunc);
  CHECK(add->mps == KernelSource::Direct);
  // An alias annotation with an arrow inside the arguments parses.
  REQUIRE(table.find("chunk"));
  CHECK(table.find("chunk")->composite == Composite::Implicit);
  CHECK(table.find("chunk")->mps_status == MpsStatus::CompositeImplicit);
  CHECK(table.find("baz")->mps_status == MpsStatus::CompositeExplicit);
  REQUIRE(table.find("baz.out"));
  CHECK(table.find("baz.out")->composite == Composite::Autogen);
  CHECK(table.find("baz.out")->delegate == "baz");
  // No autogen'd variant for a CompositeImplicitAutograd op, unless it is a core op.
  CHECK_FALSE(table.find("qux.out"));
  REQUIRE(table.find("core_qux.out"));
  CHECK(table.find("core_qux.out")->composite == Composite::Autogen);
  CHECK(table.find("sparse_only")->mps_status == MpsStatus::NotDense);
}

TEST_CASE("forced-CPU and vendor-only lists apply to their release only") {
  DerivationData data;
  data.forced_cpu["9.9.9"] = {"nonzero"};
  data.vendor_only["9.9.9"] = {"vendor_op"};
  const std::string yaml = R"(
- func: nonzero(Tensor self) -> Tensor
  dispatch:
    CPU: nonzero_cpu
    MPS: nonzero_mps
- func: vendor_op(Tensor self) -> Tensor
  dispatch:
    CUDA: vendor_op
)";
  CoverageTable table = derive(yaml, data, "9.9.9");
  CHECK(table.find("nonzero")->mps_status == MpsStatus::ForcedCpu);
  CHECK_FALSE(table.find("vendor_op"));
  CoverageTable other = derive(yaml, data, "9.9.8");
  CHECK(other.find("nonzero")->mps_status == MpsStatus::Native);
  CHECK(other.find("vendor_op"));
}

TEST_CASE("malformed yaml yields problems, never an exception") {
  std::vector<TableProblem> problems;
  CoverageTable table = derive_table("- func: [unclosed", "1.0.0", "bad.yaml", {}, problems);
  CHECK(table.operators.empty());
  REQUIRE_FALSE(problems.empty());
  CHECK(problems.front().path == "bad.yaml");

  problems.clear();
  table = derive_table("- func: no_parens -> Tensor\n- variants: method\n- func: ok(Tensor self) -> Tensor\n",
                       "1.0.0", "bad.yaml", {}, problems);
  CHECK(problems.size() == 2);
  CHECK(table.find("ok"));
}

TEST_CASE("the generator's tables for every release in shared/pytorch-ops are the committed ones") {
  if (!fs::exists(kOpsDir)) {
    WARN("no " << kOpsDir << ": the committed tables are only read, not regenerated");
    return;
  }
  std::vector<TableProblem> problems;
  DerivationData data = read_derivation_data(kProbeDir + "/data", problems);
  REQUIRE(problems.empty());
  int releases = 0;
  for (const auto &entry : fs::directory_iterator(kOpsDir)) {
    fs::path yaml = entry.path() / "native_functions.yaml";
    if (!fs::exists(yaml))
      continue;
    ++releases;
    std::string version = entry.path().filename().string();
    CoverageTable table =
        derive_table(read_whole_file(yaml).value_or(""), version, yaml.string(), data, problems);
    INFO(version);
    CHECK(problems.empty());
    CHECK(table.operators.size() > 2500);
    CHECK(write_table(table) ==
          read_whole_file(fs::path(kProbeDir) / "coverage" / (version + ".tsv")).value_or(""));
  }
  CHECK(releases == 5);
}

TEST_CASE("committed tables read back and record known MPS facts") {
  const CoverageLibrary &tables = library();
  REQUIRE(tables.size() == 5);
  CHECK(tables.version(0) == "1.13.1");
  CHECK(tables.newest().version == "2.11.0"); // numeric, not lexical, order
  const CoverageTable *old = tables.exact("1.13.1");
  const CoverageTable *current = tables.exact("2.11.0");
  REQUIRE(old);
  REQUIRE(current);
  // shared/MPS-FACTS.md (g): isin gained MPS kernels for all overloads by 2.11.
  CHECK(old->find("isin.Tensor_Tensor")->mps_status == MpsStatus::Missing);
  CHECK(current->find("isin.Tensor_Tensor")->mps_status == MpsStatus::Native);
  CHECK(old->find("repeat_interleave.Tensor")->mps_status == MpsStatus::ForcedCpu);
  CHECK(current->find("_foreach_mul_.Scalar")->mps_status == MpsStatus::CompositeExplicit);
  CHECK(old->find("add.out")->cpu == KernelSource::Ufunc);
  CHECK(old->find("add.Tensor")->mps == KernelSource::Delegate);
  // Vendor additions of the mcPytorch snapshots are left out.
  CHECK_FALSE(tables.exact("2.0.0")->has_name("cudnn_convolution_bias_fused"));
  CHECK_FALSE(tables.exact("2.4.0")->has_name("cudnn_convolution_bias_fused"));
}

TEST_CASE("the nearest release and the first release with an MPS kernel") {
  const CoverageLibrary &tables = library();
  CHECK(tables.closest("2.5.1")->version == "2.4.0");
  CHECK(tables.closest("2.11.0")->version == "2.11.0");
  CHECK(tables.closest("2.12")->version == "2.11.0");
  CHECK(tables.closest("1.12.1")->version == "1.13.1"); // older than all: the oldest
  CHECK(tables.first_release_with_mps("index_copy", "1.13.1") == "2.11.0");
  CHECK(tables.first_release_with_mps("max_pool3d_with_indices", "2.6.0") == "2.11.0");
  CHECK(tables.first_release_with_mps("upsample_bicubic2d", "2.0.0") == "2.6.0");
  CHECK(tables.first_release_with_mps("_ctc_loss", "1.13.1").empty());
}

TEST_CASE("an opened library reads a table's rows only when it is used") {
  const fs::path dir = fs::temp_directory_path() / ("mpsaudit-lazy-tables-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char *release : {"2.11.0", "1.13.1"})
    fs::copy_file(kProbeDir + "/coverage/" + release + ".tsv", dir / (std::string(release) + ".tsv"));
  { std::ofstream(dir / "broken.tsv") << "# pytorch: 3.0\nnot the header\n"; }
  std::vector<TableProblem> problems;
  const CoverageLibrary opened = CoverageLibrary::open(dir.string(), problems);
  REQUIRE(problems.size() == 1); // the header of broken.tsv; the others' rows are not read yet
  CHECK(problems[0].line == 2);
  REQUIRE(opened.size() == 2);
  CHECK(opened.version(0) == "1.13.1");
  CHECK(opened.version(1) == "2.11.0");
  // The older table's file goes before anything asks for it: it was never read.
  fs::remove(dir / "1.13.1.tsv");
  const CoverageTable &newest = opened.newest();
  CHECK(newest.operators.size() == library().exact("2.11.0")->operators.size());
  CHECK(newest.find("isin.Tensor_Tensor")->mps_status == MpsStatus::Native);
  CHECK(opened.closest("2.12")->version == "2.11.0");
  const CoverageTable &oldest = opened.table(0);
  CHECK(oldest.version == "1.13.1");
  CHECK(oldest.operators.empty());
  CHECK(opened.first_release_with_mps("isin", "1.13.1") == "2.11.0");
  fs::remove_all(dir);
}

TEST_CASE("bad table text is reported with its line") {
  std::vector<TableProblem> problems;
  auto table = read_table("# pytorch: 1.0\nnot the header\n", "t.tsv", problems);
  CHECK_FALSE(table);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].line == 2);
  problems.clear();
  CoverageTable one;
  one.version = "1.0";
  OperatorCoverage op;
  op.name = "relu";
  op.cpu = KernelSource::Direct;
  op.mps_status = MpsStatus::Missing;
  one.operators.push_back(op);
  std::string text = write_table(one) + "broken\tline\n";
  table = read_table(text, "t.tsv", problems);
  REQUIRE(table);
  CHECK(table->operators.size() == 1);
  CHECK(table->find("relu")->cpu == KernelSource::Direct);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message.find("10 tab-separated") != std::string::npos);
}

TEST_CASE("Python names resolve to ATen operators from the yaml or the checked map") {
  const CoverageTable &table = *library().exact("2.11.0");
  const PythonApiMap &map = api_map();
  auto resolve = [&](const char *name) { return map.resolve(name, table); };
  CHECK(resolve("torch.nn.functional.grid_sample").how == "checked-map");
  CHECK(resolve("torch.nn.functional.grid_sample").aten_names.front() == "grid_sampler");
  CHECK(resolve("torch.linalg.solve").aten_names == std::vector<std::string>{"linalg_solve"});
  CHECK(resolve("torch.linalg.solve").how == "derived:linalg");
  CHECK(resolve("torch.fft.rfft").aten_names == std::vector<std::string>{"fft_rfft"});
  CHECK(resolve("torch.special.erf").aten_names == std::vector<std::string>{"special_erf"});
  CHECK(resolve("torch.matmul").how == "derived:function");
  CHECK(resolve("torch.Tensor.view").how == "derived:method");
  CHECK(resolve("torch.nn.functional.gelu").how == "derived:nn");
  CHECK(resolve("torch.nn.functional.relu").how == "derived:function");
  CHECK(resolve("torch.cuda.synchronize").how == "unmapped");
  CHECK(resolve("torch.Tensor.cuda").aten_names == std::vector<std::string>{"_to_copy"});
  // torch.view is not a function (only a method) and torch.linalg.nope does not exist.
  CHECK(resolve("torch.view").how == "unmapped");
  CHECK(resolve("torch.linalg.nope").how == "unmapped");
}

TEST_CASE("every operator of the checked map exists in the newest table") {
  const CoverageTable &table = *library().exact("2.11.0");
  REQUIRE(api_map().entries().size() > 50);
  for (const auto &[python_name, entry] : api_map().entries())
    for (const std::string &aten : entry.aten_names) {
      INFO(python_name << " -> " << aten);
      CHECK(table.has_name(aten));
    }
}

TEST_CASE("coverage verdicts name the missing overloads and the release that adds them") {
  const CoverageLibrary &tables = library();
  std::vector<ApiUse> uses = {{"torch.nn.functional.grid_sample", "m.py", 3, 1},
                              {"torch.Tensor.index_copy", "m.py", 4, 1},
                              {"torch.nn.functional.grid_sample", "n.py", 9, 2},
                              {"torch.relu", "m.py", 5, 1},
                              {"torch.cuda.synchronize", "m.py", 6, 1}};
  auto verdicts = coverage_verdicts(uses, api_map(), *tables.exact("2.4.0"), tables);
  REQUIRE(verdicts.size() == 4);
  CHECK(verdicts[0].uses.size() == 2);
  CHECK(verdicts[0].mps_outcome == "partial");
  CHECK(verdicts[0].missing_overloads == std::vector<std::string>{"grid_sampler_3d"});
  CHECK(verdicts[0].first_release_with_mps == "2.11.0");
  CHECK(verdicts[0].mps_evidence == "coverage-table@2.4.0");
  CHECK(verdicts[1].mps_outcome == "missing");
  CHECK(verdicts[1].first_release_with_mps == "2.11.0");
  CHECK(verdicts[2].mps_outcome == "native");
  CHECK(verdicts[3].mps_outcome == "unmapped");
  CHECK(verdicts[3].mps_evidence == "not-probeable");

  ProbeOutput output;
  output.coverage_version = "2.4.0";
  output.operators = verdicts;
  auto json = to_json(output);
  CHECK(json["schema_version"] == 1);
  CHECK(json["summary"]["operators_without_mps_kernel"] ==
        nlohmann::json::array({"torch.Tensor.index_copy"}));
  CHECK(json["summary"]["headline"].get<std::string>().rfind(
            "1 operators used by your code have no MPS kernel in PyTorch 2.4.0", 0) == 0);
  CHECK(json["operators"][0]["mps"]["first_release_with_mps"] == "2.11.0");
}
