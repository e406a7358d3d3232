"""Builds the fused layers for the GPU the machine has; a Mac has none."""
import os
import sys

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

if "FUSED_CUDA_ARCH_LIST" in os.environ:
    arch_list = os.environ["FUSED_CUDA_ARCH_LIST"].split(";")
elif torch.cuda.is_available():
    major, minor = torch.cuda.get_device_capability()
    arch_list = [f"{major}.{minor}"]
else:
    raise EnvironmentError("No CUDA device: set FUSED_CUDA_ARCH_LIST")  # expect: MPS623

# Near cases: a version check where CUDA is there, an opt-in feature that
# needs nvcc, and a check inside a function that only the CUDA build calls.
if torch.cuda.is_available() and torch.version.cuda < "11.0":
    raise RuntimeError("CUDA 11 or newer is needed")

if "--with-profiler" in sys.argv:
    sys.argv.remove("--with-profiler")
    if CUDA_HOME is None:
        raise RuntimeError("--with-profiler needs nvcc")


def nvcc_flags():
    if CUDA_HOME is None:
        sys.exit("nvcc not found")
    return ["-O3"] + [f"-gencode=arch=compute_{a.replace('.', '')},code=sm_{a.replace('.', '')}" for a in arch_list]


setup(
    name="fused-layers",
    ext_modules=[CUDAExtension("fused_layers._C", ["csrc/fused.cpp", "csrc/fused_kernel.cu"])],  # expect: MPS601, MPS620
    cmdclass={"build_ext": BuildExtension},
)
