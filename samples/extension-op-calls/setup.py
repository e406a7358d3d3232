"""Builds meshkit's four compiled modules: the rasterizer for CUDA or, without
it, for the CPU; the fused kernels and the blur for CUDA only; the mesh reader
for the CPU."""
import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension


def get_extensions():
    extension = CppExtension
    sources = ["meshkit/csrc/ext.cpp", "meshkit/csrc/raster_cpu.cpp"]
    if torch.cuda.is_available():
        extension = CUDAExtension
        sources += ["meshkit/csrc/raster_cuda.cu"]
    return [
        extension("meshkit._C", sources),
        CUDAExtension("meshkit.kernels._C", ["meshkit/kernels/fused.cpp", "meshkit/kernels/fused_kernel.cu"]),  # expect: MPS601
        CUDAExtension("meshkit.blur_cuda", ["meshkit/csrc/blur.cpp", "meshkit/csrc/blur_kernel.cu"]),  # expect: MPS601
        CppExtension("meshkit.io._C", ["meshkit/io/reader.cpp"]),
    ]


setup(
    name="meshkit",
    version="0.1.0",
    packages=find_packages(),
    ext_modules=get_extensions(),
    cmdclass={"build_ext": BuildExtension},
)
