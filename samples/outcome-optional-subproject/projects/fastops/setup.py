from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fastops",
    ext_modules=[CUDAExtension("fastops._C", ["fastops/csrc/scale_cuda.cu"])],  # expect: MPS601, MPS620
    cmdclass={"build_ext": BuildExtension},
)
