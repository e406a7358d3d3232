from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fastnorm",
    packages=["fastnorm"],
    ext_modules=[
        CUDAExtension(  # expect: MPS601, MPS620
            name="fastnorm._norm_cuda",
            sources=["csrc/norm.cpp", "csrc/norm_kernel.cu"],
        ),
        CUDAExtension(  # expect: MPS601, MPS620
            name="scan_cuda",
            sources=["csrc/scan.cpp", "csrc/scan_kernel.cu"],
        ),
    ],
    cmdclass={"build_ext": BuildExtension},
)
