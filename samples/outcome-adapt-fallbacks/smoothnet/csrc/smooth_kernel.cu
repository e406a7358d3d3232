#include <ATen/cuda/CUDAContext.h> // expect: MPS830
#include <torch/types.h>

__global__ void smooth_kernel(const float *x, float *y, float strength, int height, int width) { // expect: MPS801
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= height * width)
    return;
  const int r = i / width, c = i % width;
  float sum = 0.f;
  int count = 0;
  for (int dr = -1; dr <= 1; ++dr)
    for (int dc = -1; dc <= 1; ++dc) {
      const int rr = r + dr, cc = c + dc;
      if (rr >= 0 && rr < height && cc >= 0 && cc < width) {
        sum += x[rr * width + cc];
        ++count;
      }
    }
  y[i] = x[i] + strength * (sum / count - x[i]);
}

torch::Tensor smooth_cuda(const torch::Tensor &x, double strength) {
  auto y = torch::empty_like(x);
  const int height = static_cast<int>(x.size(-2)), width = static_cast<int>(x.size(-1));
  smooth_kernel<<<(height * width + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>( // expect: MPS804, MPS830
      x.data_ptr<float>(), y.data_ptr<float>(), static_cast<float>(strength), height, width);
  return y;
}
