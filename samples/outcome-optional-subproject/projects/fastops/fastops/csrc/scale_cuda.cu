#include <torch/extension.h>

__global__ void scale_kernel(float *data, float factor, int n) {  // expect: MPS801
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= factor;
}

void scale(torch::Tensor data, float factor) {
  const int n = data.numel();
  scale_kernel<<<(n + 255) / 256, 256>>>(data.data_ptr<float>(), factor, n);  // expect: MPS804
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale); }  // expect: MPS842
