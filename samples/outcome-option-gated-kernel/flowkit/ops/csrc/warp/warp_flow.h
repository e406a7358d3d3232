// Dispatch for the warp op. CUDA tensors go to warp_flow_cuda.cu (compiled
// only where the build finds CUDA); no other device has an implementation.
#pragma once
#include <torch/types.h>

namespace flowkit {

#ifdef FLOWKIT_CUDA
void warp_flow_forward_cuda(const at::Tensor &image, const at::Tensor &flow, at::Tensor &out);
#endif

inline void warp_flow_forward(const at::Tensor &image, const at::Tensor &flow, at::Tensor &out) {
  if (image.is_cuda()) { // expect: MPS832
#ifdef FLOWKIT_CUDA
    warp_flow_forward_cuda(image, flow, out);
    return;
#else
    TORCH_CHECK(false, "flowkit was built without CUDA");
#endif
  }
  TORCH_CHECK(false, "warp_flow_forward: no implementation for device ", image.device());
}

} // namespace flowkit
