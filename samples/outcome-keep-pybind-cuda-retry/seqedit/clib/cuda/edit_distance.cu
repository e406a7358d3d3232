#include <torch/extension.h>

__global__ void edit_distance_kernel(const long *source, const long *target, long *out, int n) { // expect: MPS801
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = source[i] != target[i];
}

torch::Tensor edit_distance_cuda(const torch::Tensor &source, const torch::Tensor &target) {
  auto out = torch::empty_like(source);
  const int n = static_cast<int>(source.numel());
  edit_distance_kernel<<<(n + 255) / 256, 256>>>(source.data_ptr<long>(), target.data_ptr<long>(), // expect: MPS804
                                                 out.data_ptr<long>(), n);
  return out.sum(-1);
}
