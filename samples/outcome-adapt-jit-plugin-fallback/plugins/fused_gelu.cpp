// The binding of the fused GELU: CUDA tensors only.
#include <torch/extension.h>

torch::Tensor fused_gelu_cuda(const torch::Tensor &x);

torch::Tensor fused_gelu(const torch::Tensor &x) {
  TORCH_CHECK(x.is_cuda(), "fused_gelu needs a CUDA tensor"); // expect: MPS832
  return fused_gelu_cuda(x);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("fused_gelu", &fused_gelu, "fused GELU (CUDA)"); } // expect: MPS842
