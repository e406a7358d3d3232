// The CUDA kernels of boxops. setup.py and CMakeLists.txt compile this file
// only when they find CUDA, and op.h calls it only for CUDA tensors.
#include <ATen/cuda/CUDAContext.h> // expect: MPS830
#include <c10/cuda/CUDAGuard.h> // expect: MPS830
#include <torch/types.h>

#include "op.h"

namespace boxops {

template <typename scalar_t>
__global__ void roi_mean_kernel(const scalar_t *features, const float *rois, scalar_t *output, int channels, // expect: MPS801
                                int height, int width, int count) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= count * channels)
    return;
  const int k = index / channels, c = index % channels;
  const float *box = rois + k * 5;
  const int batch = static_cast<int>(box[0]);
  const int x0 = max(0, static_cast<int>(box[1])), y0 = max(0, static_cast<int>(box[2]));
  const int x1 = min(width, static_cast<int>(box[3])), y1 = min(height, static_cast<int>(box[4]));
  scalar_t sum = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x)
      sum += features[((batch * channels + c) * height + y) * width + x];
  const int area = max(1, (x1 - x0) * (y1 - y0));
  output[index] = sum / static_cast<scalar_t>(area);
}

__global__ void box_area_kernel(const float *boxes, float *areas, int count) { // expect: MPS801
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count)
    areas[k] = fmaxf(boxes[4 * k + 2] - boxes[4 * k], 0.f) * fmaxf(boxes[4 * k + 3] - boxes[4 * k + 1], 0.f);
}

at::Tensor roi_mean_forward_cuda(const at::Tensor &features, const at::Tensor &rois) {
  const c10::cuda::CUDAGuard guard(features.device()); // expect: MPS830
  const int channels = static_cast<int>(features.size(1));
  const int count = static_cast<int>(rois.size(0));
  auto output = at::zeros({rois.size(0), features.size(1)}, features.options());
  auto boxes = rois.to(at::kFloat).contiguous();
  const int threads = 256;
  const int blocks = (count * channels + threads - 1) / threads;
  auto stream = at::cuda::getCurrentCUDAStream(); // expect: MPS830
  AT_DISPATCH_FLOATING_TYPES(features.scalar_type(), "roi_mean_forward", [&] { // expect: MPS833
    roi_mean_kernel<scalar_t><<<blocks, threads, 0, stream>>>( // expect: MPS804
        features.contiguous().data_ptr<scalar_t>(), boxes.data_ptr<float>(), output.data_ptr<scalar_t>(),
        channels, static_cast<int>(features.size(2)), static_cast<int>(features.size(3)), count);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK(); // expect: MPS830
  return output;
}

at::Tensor box_area_cuda(const at::Tensor &boxes) {
  const c10::cuda::CUDAGuard guard(boxes.device()); // expect: MPS830
  auto input = boxes.to(at::kFloat).contiguous();
  auto areas = at::empty({boxes.size(0)}, input.options());
  const int count = static_cast<int>(boxes.size(0));
  box_area_kernel<<<(count + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>( // expect: MPS804, MPS830
      input.data_ptr<float>(), areas.data_ptr<float>(), count);
  C10_CUDA_KERNEL_LAUNCH_CHECK(); // expect: MPS830
  return areas;
}

} // namespace boxops
