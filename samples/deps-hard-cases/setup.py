import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension, CUDA_HOME

ext_modules = []
if CUDA_HOME is not None and os.environ.get("HARDCASES_CPU_ONLY") != "1":
    ext_modules.append(
        CUDAExtension(  # expect: MPS601
            "hardcases._C",
            sources=["csrc/ops.cpp", "csrc/ops_kernel.cu"],
        )
    )
else:
    ext_modules.append(CppExtension("hardcases._C", sources=["csrc/ops.cpp"]))

setup(
    name="hardcases",
    packages=["hardcases"],
    ext_modules=ext_modules,
    cmdclass={"build_ext": BuildExtension},
)
