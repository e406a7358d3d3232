from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fused_ops",
    version="0.1.0",
    packages=["fused_ops"],
    ext_modules=[
        CUDAExtension(   # expect: MPS601, MPS620
            name="fused_ops._C",
            sources=["csrc/fused_ops.cpp", "csrc/fused_ops_cuda.cu"],
            libraries=["cublas"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
