#include <torch/extension.h>

#include "warp/warp_flow.h"

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("warp_flow_forward", &flowkit::warp_flow_forward, "bilinear warp of an image by a flow field");
}
