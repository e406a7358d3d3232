import os

from setuptools import setup
from torch.utils import cpp_extension

extensions = [
    cpp_extension.CppExtension("seqedit.edit_cpu", sources=["seqedit/clib/cpu/edit_distance.cpp"]),
]
# The CUDA build is extra: without a toolkit the CPU extension above is all.
if "CUDA_HOME" in os.environ:
    extensions.append(
        cpp_extension.CppExtension(
            "seqedit.edit_cuda",
            sources=["seqedit/clib/cuda/edit_distance.cu", "seqedit/clib/cuda/binding.cpp"],
        )
    )

setup(
    name="seqedit",
    packages=["seqedit"],
    ext_modules=extensions,
    cmdclass={"build_ext": cpp_extension.BuildExtension},
)
