// The Python bindings of boxops.
#include <torch/extension.h>

#include "op.h"

namespace boxops {

// Whether this build has the CUDA kernels.
bool cuda_compiled() {
#ifdef WITH_CUDA
  return true;
#else
  return false;
#endif
}

} // namespace boxops

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("roi_mean_forward", &boxops::roi_mean_forward, "mean feature inside each box");
  m.def("box_area", &boxops::box_area, "area of each box");
  m.def("cuda_compiled", &boxops::cuda_compiled, "whether the CUDA kernels were built");
}
