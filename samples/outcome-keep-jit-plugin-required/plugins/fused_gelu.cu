#include <torch/extension.h>

__global__ void fused_gelu_kernel(const float *x, float *y, int n) { // expect: MPS801
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 0.5f * x[i] * (1.f + tanhf(0.7978845608f * (x[i] + 0.044715f * x[i] * x[i] * x[i])));
}

torch::Tensor fused_gelu_cuda(const torch::Tensor &x) {
  auto y = torch::empty_like(x);
  const int n = static_cast<int>(x.numel());
  fused_gelu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n); // expect: MPS804
  return y;
}
