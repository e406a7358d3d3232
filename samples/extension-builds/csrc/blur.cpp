#include <torch/extension.h>

torch::Tensor blur(torch::Tensor x) { return x; }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("blur", &blur); }
