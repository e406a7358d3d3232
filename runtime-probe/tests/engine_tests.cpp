// The live probe engine with the CPU as its target (and the meta device as a
// stand-in accelerator that, like CUDA or MPS, refuses to mix with the CPU).
#include <cstdio>
#include <fstream>
#include <set>

#include <ATen/Context.h>

#include "coverage_table.h"
#include "probe_engine.h"
#include "probe_run.h"
#include "python_api.h"

// LibTorch (through glog) defines its own CHECK; Catch2's must win in tests.
#undef CHECK
#include <catch2/catch.hpp>

using namespace mpsaudit::probe;

namespace {

const std::string kProbeDir = MPSAUDIT_PROBE_DATA_DIR;

ProbeEngine cpu_engine() {
  return ProbeEngine(*parse_target("cpu"));
}

} // namespace

TEST_CASE("targets parse; auto picks the CPU on a machine without accelerators") {
  CHECK(parse_target("cpu")->type() == c10::DeviceType::CPU);
  CHECK(parse_target("mps")->type() == c10::DeviceType::MPS);
  CHECK(parse_target("cuda")->type() == c10::DeviceType::CUDA);
  CHECK_FALSE(parse_target("tpu"));
  CHECK(target_name(*parse_target("mps")) == "mps");
#if !defined(__APPLE__)
  if (!at::hasCUDA())
    CHECK(parse_target("auto")->type() == c10::DeviceType::CPU);
#endif
}

TEST_CASE("common operators run on the CPU target and match the CPU reference") {
  ProbeEngine engine = cpu_engine();
  for (const char *name : {"add", "relu", "conv2d", "matmul", "softmax", "grid_sampler_2d", "embedding",
                           "index_select", "gather", "upsample_bilinear2d", "layer_norm", "cat"}) {
    LiveResult result = engine.probe_operator(name);
    INFO(name << ": " << result.outcome << " " << result.message);
    CHECK(result.outcome == "ok");
    CHECK(result.compared);
    CHECK(result.max_abs_diff == 0.0);
    CHECK_FALSE(result.overload.empty());
  }
}

TEST_CASE("random operators are recognised and reported as not comparable, not as mismatches") {
  for (const char *name : {"dropout", "exponential"}) {
    LiveResult result = cpu_engine().probe_operator(name);
    INFO(name << ": " << result.message);
    CHECK(result.outcome == "not-comparable");
    CHECK(result.random_output);
    CHECK_FALSE(result.compared);
    CHECK(result.comparison == "statistics");
    CHECK(result.message.find("not comparable") != std::string::npos);
  }
}

TEST_CASE("unknown operators and unbuildable inputs are classified, not thrown") {
  ProbeEngine engine = cpu_engine();
  CHECK(engine.probe_operator("no_such_operator_anywhere").outcome == "not-found");
  // No recipe: the generic builder makes float indices, which the CPU refuses.
  LiveResult bag = engine.probe_operator("_embedding_bag");
  CHECK(bag.outcome == "no-inputs");
  CHECK(bag.attempts > 1);
  CHECK_FALSE(bag.message.empty());
}

TEST_CASE("errors are sorted the way users meet them") {
  CHECK(classify_error("The operator 'aten::isin.Tensor_Tensor_out' is not currently implemented "
                       "for the MPS device.",
                       false) == "not-implemented");
  CHECK(classify_error("Could not run 'aten::foo' with arguments from the 'CUDA' backend.", false) ==
        "not-implemented");
  CHECK(classify_error("anything", true) == "not-implemented");
  CHECK(classify_error("Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't "
                       "support float64. Please use float32 instead.",
                       false) == "dtype-unsupported");
  CHECK(classify_error("\"addmm_impl_cpu_\" not implemented for 'Half'", false) == "dtype-unsupported");
  CHECK(classify_error("shape mismatch", false) == "error");
}

TEST_CASE("float64 and the device-mismatch probe, on the CPU and on a stand-in accelerator") {
  ProbeEngine cpu = cpu_engine();
  CHECK(cpu.probe_float64().outcome == "ok");
  // On the CPU a tensor without a device is already on the target.
  CHECK(cpu.probe_device_mismatch().outcome == "ok");

  ProbeEngine meta(*parse_target("meta"));
  LiveResult mismatch = meta.probe_device_mismatch();
  CHECK(mismatch.outcome == "error");
  CHECK(mismatch.message.find("same device") != std::string::npos);
}

TEST_CASE("the float64 to float32 downcast error is measured on the CPU") {
  ProbeEngine engine = cpu_engine();
  DowncastMeasurement matmul = engine.downcast_error("matmul");
  REQUIRE(matmul.outcome == "measured");
  // float32 keeps about 7 significant digits: the error is small but not zero.
  CHECK(matmul.max_relative_error > 1e-10);
  CHECK(matmul.max_relative_error < 1e-5);
  CHECK(matmul.mean_relative_error <= matmul.max_relative_error);
  DowncastMeasurement exp = engine.downcast_error("exp");
  REQUIRE(exp.outcome == "measured");
  CHECK(exp.max_relative_error < 1e-6);
  CHECK(engine.downcast_error("argmax").outcome == "not-floating");
  CHECK(engine.downcast_error("dropout").outcome == "random-output");
}

TEST_CASE("a probe run on the sample repository's report, with the CPU as target") {
  ProbeOptions options;
  options.report_path = kProbeDir + "/tests/data/sample-report.json";
  options.target = "cpu";
  options.torch_version = "2.4.0";
  options.tables_dir = kProbeDir + "/coverage";
  options.api_map_path = kProbeDir + "/data/python-api-map.tsv";
  EnvironmentReport environment;
  environment.libtorch_version = "1.13.0";
  ProbeOutput output = run_probe(options, environment);
  CHECK(output.diagnostics.empty());
  CHECK(output.coverage_version == "2.4.0");
  CHECK(output.target == "cpu");
  REQUIRE(output.operators.size() > 70);
  // The share of operators the engine could build inputs for, reported in docs/.
  REQUIRE(output.live_attempted > 0);
  double share = static_cast<double>(output.live_built) / output.live_attempted;
  WARN("live inputs built for " << output.live_built << " of " << output.live_attempted << " ATen operators ("
                                << share << ")");
  CHECK(share >= 0.98);
  for (const OperatorVerdict &verdict : output.operators) {
    if (verdict.resolution.aten_names.empty())
      continue;
    CHECK(verdict.live_evidence == "live-cpu");
    for (const auto &[aten, live] : verdict.live) {
      INFO(verdict.python_name << " " << aten << " " << live.message);
      // not-found: an operator newer than the linked LibTorch (1.13 has no
      // scaled_dot_product_attention); not-comparable: random operators.
      CHECK((live.outcome == "ok" || live.outcome == "not-comparable" || live.outcome == "not-found"));
    }
  }
  int float64 = 0, mismatch = 0, other = 0;
  for (const FindingVerdict &verdict : output.findings) {
    if (verdict.kind == "float64")
      ++float64;
    else if (verdict.kind == "device-mismatch")
      ++mismatch;
    else
      ++other;
    CHECK(verdict.evidence == "not-probeable"); // MPS questions need a Mac; mismatch needs a GPU
    CHECK_FALSE(verdict.reason.empty());
  }
  CHECK(float64 == 2);
  CHECK(mismatch == 2);
  CHECK(other == 1);
  REQUIRE_FALSE(output.downcasts.empty());
  for (const DowncastVerdict &downcast : output.downcasts)
    if (downcast.outcome == "measured")
      CHECK(downcast.max_relative_error < 1e-3);
  auto json = to_json(output);
  CHECK(json["summary"]["live_inputs_share"].get<double>() == Approx(share));
}

TEST_CASE("an unavailable MPS target falls back to the coverage table and says so") {
  ProbeOptions options;
  options.report_path = kProbeDir + "/tests/data/sample-report.json";
  options.target = "mps";
  options.tables_dir = kProbeDir + "/coverage";
  options.api_map_path = kProbeDir + "/data/python-api-map.tsv";
  EnvironmentReport environment; // no MPS
  environment.libtorch_version = "2.11.0";
  ProbeOutput output = run_probe(options, environment);
  REQUIRE(output.diagnostics.size() == 1);
  CHECK(output.diagnostics[0].code == "target-unavailable");
  CHECK(output.coverage_version == "2.11.0");
  for (const OperatorVerdict &verdict : output.operators) {
    CHECK(verdict.live_evidence == "not-probeable");
    CHECK(verdict.live.empty());
    if (!verdict.resolution.aten_names.empty())
      CHECK(verdict.mps_evidence == "coverage-table@2.11.0");
  }
}

TEST_CASE("every operator the python-api map and the sample report name gets inputs the CPU accepts") {
  std::vector<TableProblem> problems;
  PythonApiMap map = PythonApiMap::load(kProbeDir + "/data/python-api-map.tsv", problems);
  REQUIRE(problems.empty());
  std::set<std::string> names;
  for (const auto &entry : map.entries())
    names.insert(entry.second.aten_names.begin(), entry.second.aten_names.end());
  // Operators the sample report reaches through derived names (torch.X, F.X).
  for (const char *name : {"one_hot", "linalg_cholesky", "linalg_svd", "unique_dim", "_unique2", "topk",
                           "sort", "nonzero", "conv3d", "conv_transpose2d"})
    names.insert(name);
  ProbeEngine engine = cpu_engine();
  int built = 0, absent = 0;
  std::vector<std::string> without_inputs;
  for (const std::string &name : names) {
    LiveResult result = engine.probe_operator(name);
    if (result.outcome == "not-found")
      ++absent; // newer than this LibTorch
    else if (result.outcome == "no-inputs")
      without_inputs.push_back(name + ": " + result.message);
    else
      ++built;
  }
  WARN("inputs the CPU accepts for " << built << " of " << built + static_cast<int>(without_inputs.size())
                                     << " mapped operators (" << absent << " not in this LibTorch)");
  for (const std::string &missing : without_inputs)
    INFO(missing);
  CHECK(without_inputs.empty());
}

TEST_CASE("recipes build what each family needs") {
  ProbeEngine engine = cpu_engine();
  for (const char *name :
       {"conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "_native_multi_head_attention", "one_hot",
        "linalg_cholesky", "lstm", "gru", "rnn_tanh"}) {
    LiveResult result = engine.probe_operator(name);
    INFO(name << ": " << result.outcome << " " << result.message);
    CHECK(result.outcome == "ok");
    CHECK_FALSE(result.input_recipe.empty());
    CHECK(result.attempts == 1); // the recipe's inputs were accepted at once
  }
  CHECK(engine.probe_operator("lstm").overload == "lstm.input");
  CHECK(engine.probe_operator("linalg_svd").comparison == "invariants");
  CHECK(engine.probe_operator("_unique2").comparison == "set");
  CHECK(engine.probe_operator("conv3d").tolerance_class == "convolution");
}
