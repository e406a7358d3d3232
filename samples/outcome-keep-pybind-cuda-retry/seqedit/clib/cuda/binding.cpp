#include <torch/extension.h>

torch::Tensor edit_distance_cuda(const torch::Tensor &source, const torch::Tensor &target);

torch::Tensor edit_distance(const torch::Tensor &source, const torch::Tensor &target) {
  TORCH_CHECK(source.is_cuda(), "source must be a CUDA tensor"); // expect: MPS832
  return edit_distance_cuda(source, target);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("edit_distance", &edit_distance, "edit distance (CUDA)"); // expect: MPS842
}
