import glob
import os

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension


def extensions():
    """The CUDA kernels are compiled only where CUDA is; elsewhere (a Mac) the
    extension is CPU-only and op.h sends every tensor to the CPU code."""
    cpu_sources = sorted(glob.glob(os.path.join("csrc", "*.cpp")))
    cuda_sources = sorted(glob.glob(os.path.join("csrc", "*.cu")))
    if torch.cuda.is_available() and CUDA_HOME is not None or os.getenv("FORCE_CUDA", "0") == "1":
        return [
            CUDAExtension(   # expect: MPS601
                "boxops._C",
                cpu_sources + cuda_sources,
                define_macros=[("WITH_CUDA", None)],
                extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]},
            )
        ]
    return [CppExtension("boxops._C", cpu_sources, extra_compile_args={"cxx": ["-O3"]})]


setup(
    name="boxops",
    version="0.1.0",
    packages=find_packages(),
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildExtension},
)
