from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

def sources(:
    return ["k.cu"]

setup(
    name="broken",
    install_requires=["pycuda"],  # expect: MPS703, MPS714
    ext_modules=[CUDAExtension("broken._C", ["k.cpp", "k.cu"])],  # expect: MPS601, MPS620
    cmdclass={"build_ext": BuildExtension},
)
