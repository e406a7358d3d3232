// Bilinear warping on the GPU, one thread per output pixel and channel.
#include <c10/cuda/CUDAStream.h> // expect: MPS830
#include <torch/types.h>

#include "warp_flow.h"

namespace flowkit {

__global__ void warp_flow_kernel(const float *image, const float *flow, float *out, int channels, int height, // expect: MPS801
                                 int width) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  const int pixels = height * width;
  if (index >= channels * pixels)
    return;
  const int c = index / pixels, p = index % pixels;
  const float x = (p % width) + flow[p], y = (p / width) + flow[pixels + p];
  const int x0 = max(0, min(width - 1, static_cast<int>(floorf(x))));
  const int y0 = max(0, min(height - 1, static_cast<int>(floorf(y))));
  out[index] = image[c * pixels + y0 * width + x0];
}

void warp_flow_forward_cuda(const at::Tensor &image, const at::Tensor &flow, at::Tensor &out) {
  const int channels = static_cast<int>(image.size(0));
  const int height = static_cast<int>(image.size(1)), width = static_cast<int>(image.size(2));
  const int total = channels * height * width;
  warp_flow_kernel<<<(total + 255) / 256, 256, 0, c10::cuda::getCurrentCUDAStream()>>>( // expect: MPS804, MPS830
      image.data_ptr<float>(), flow.data_ptr<float>(), out.data_ptr<float>(), channels, height, width);
}

} // namespace flowkit
