import os

from torch.utils.cpp_extension import load, load_inline

HERE = os.path.dirname(__file__)

# Compiled by nvcc the first time this module is imported.
blur_cuda = load(name="blur_cuda", sources=[os.path.join(HERE, "blur.cpp"), os.path.join(HERE, "blur_kernel.cu")])  # expect: MPS602

# C++ only: builds with Apple clang, given the Xcode command line tools.
blur_cpu = load(name="blur_cpu", sources=[os.path.join(HERE, "blur.cpp")])  # expect: MPS605

scale = load_inline(  # expect: MPS603
    name="scale",
    cpp_sources="torch::Tensor scale(torch::Tensor x);",
    cuda_sources="__global__ void k() {}",
)
