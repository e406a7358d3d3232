import os
import subprocess
import sys

from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension


def nvcc_version(cuda_dir):
    output = subprocess.check_output([cuda_dir + "/bin/nvcc", "-V"], universal_newlines=True)
    return output.split("release ")[1].split(",")[0]


def check_toolkit_matches_torch(cuda_dir):
    return nvcc_version(cuda_dir)


check_toolkit_matches_torch(CUDA_HOME)  # expect: MPS621
cuda_include = os.path.join(CUDA_HOME, "include")  # expect: MPS621

if CUDA_HOME is not None:
    # Guarded: only where a toolkit exists.
    toolkit_version = nvcc_version(CUDA_HOME)

openmp = [] if sys.platform == "darwin" else ["-fopenmp"]

setup(
    name="blur",
    ext_modules=[
        CppExtension(
            "blur._C",
            ["csrc/blur.cpp"],
            extra_compile_args=["-O3", "-fopenmp"],  # expect: MPS622
            extra_link_args=["-lgomp"],  # expect: MPS622
        ),
        CppExtension("blur._portable", ["csrc/blur.cpp"], extra_compile_args=openmp),
    ],
    cmdclass={"build_ext": BuildExtension},
)
