// The ops of the boxops extension. Each picks its implementation from the
// tensor's device: CUDA tensors go to the kernels in op_cuda.cu (compiled
// only when the build finds CUDA), every other tensor to op_cpu.cpp.
#pragma once
#include <torch/types.h>

namespace boxops {

at::Tensor roi_mean_forward_cpu(const at::Tensor &features, const at::Tensor &rois);
at::Tensor box_area_cpu(const at::Tensor &boxes);

#ifdef WITH_CUDA
at::Tensor roi_mean_forward_cuda(const at::Tensor &features, const at::Tensor &rois);
at::Tensor box_area_cuda(const at::Tensor &boxes);
#endif

// The mean feature inside each box: rois is (K, 5) = (batch index, x0, y0, x1, y1).
inline at::Tensor roi_mean_forward(const at::Tensor &features, const at::Tensor &rois) { // expect: MPS843
  if (features.is_cuda()) { // expect: MPS832
#ifdef WITH_CUDA
    TORCH_CHECK(rois.is_cuda(), "rois must be on the same device as features"); // expect: MPS832
    return roi_mean_forward_cuda(features, rois);
#else
    AT_ERROR("boxops was built without CUDA");
#endif
  }
  return roi_mean_forward_cpu(features, rois);
}

// The area of each (x0, y0, x1, y1) box.
inline at::Tensor box_area(const at::Tensor &boxes) { // expect: MPS843
#if defined(WITH_CUDA)
  return boxes.is_cuda() ? box_area_cuda(boxes) : box_area_cpu(boxes); // expect: MPS832
#else
  return box_area_cpu(boxes);
#endif
}

} // namespace boxops
