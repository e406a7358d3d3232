// The CPU-column cross-check: the table of the release closest to the linked
// LibTorch against its dispatcher's hasKernelForDispatchKey(CPU). Every
// disagreement is explained in docs/runtime-probe.md ("Cross-checks"); this
// test pins them so that a new one fails until it is explained.
#include <torch/version.h>

#include "coverage_table.h"
#include "dispatcher_check.h"

// LibTorch (through glog) defines its own CHECK; Catch2's must win in tests.
#undef CHECK
#include <catch2/catch.hpp>

using namespace mpsaudit::probe;

TEST_CASE("the CPU column agrees with this LibTorch's dispatcher") {
  std::vector<TableProblem> problems;
  CoverageLibrary library =
      CoverageLibrary::load(std::string(MPSAUDIT_PROBE_DATA_DIR) + "/coverage", problems);
  REQUIRE(problems.empty());
  const CoverageTable *table = library.closest(TORCH_VERSION);
  REQUIRE(table);
  CrossCheckResult result = cross_check(*table, "CPU");
  INFO("LibTorch " << TORCH_VERSION << " vs table " << table->version);
  WARN("CPU column: " << result.agree << " of " << result.compared << " agree (" << result.agreement()
                      << ")");
  CHECK(result.compared > 2500);
  CHECK(result.table_only.empty());
  CHECK(result.dispatcher_only.empty());
  CHECK(result.agreement() == 1.0);
  // Table rows the dispatcher lacks: none once autogen'd variants of
  // CompositeImplicitAutograd ops are left out.
  CHECK(result.not_in_dispatcher.empty());
  // Dispatcher ops the yaml does not declare: defined in C++ with
  // TORCH_LIBRARY_FRAGMENT (quantized RNNs in aten/src/ATen/native/RNN.cpp;
  // get_gradients in torch/csrc/jit/runtime/register_distributed_ops.cpp).
  for (const std::string &op : result.not_in_table) {
    INFO(op);
    CHECK(
        (op.rfind("quantized_lstm.", 0) == 0 || op.rfind("quantized_gru.", 0) == 0 || op == "get_gradients"));
  }
}
