// Schemas of the fused_ops library and the CPU kernel of scaled_add.
// segment_softmax has no CPU kernel: on a machine without CUDA it cannot run.
#include <torch/library.h>
#include <torch/types.h>

namespace fused_ops {

at::Tensor scaled_add_cpu(const at::Tensor &a, const at::Tensor &b, double alpha) {
  TORCH_CHECK(a.sizes() == b.sizes(), "scaled_add: shapes differ");
  return a + b * alpha;
}

} // namespace fused_ops

TORCH_LIBRARY(fused_ops, m) {
  m.def("scaled_add(Tensor a, Tensor b, float alpha) -> Tensor");
  m.def("segment_softmax(Tensor x, Tensor offsets) -> Tensor");
  m.def("gram(Tensor x) -> Tensor");
  m.def("sorted_unique(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(fused_ops, CPU, m) {
  m.impl("scaled_add", &fused_ops::scaled_add_cpu);
}
