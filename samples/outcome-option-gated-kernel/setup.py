import glob
import os

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension


def flow_extension():
    """The .cu sources join the build only where nvcc is; elsewhere the
    extension is built from the C++ sources alone."""
    here = os.path.join("flowkit", "ops", "csrc")
    sources = glob.glob(os.path.join(here, "*.cpp"))
    kernels = glob.glob(os.path.join(here, "**", "*.cu"), recursive=True)
    if CUDA_HOME is not None and torch.cuda.is_available():
        return CUDAExtension("flowkit._C", sources + kernels, define_macros=[("FLOWKIT_CUDA", None)])  # expect: MPS601
    return CppExtension("flowkit._C", sources)


setup(
    name="flowkit",
    packages=find_packages(),
    ext_modules=[flow_extension()],
    cmdclass={"build_ext": BuildExtension},
)
