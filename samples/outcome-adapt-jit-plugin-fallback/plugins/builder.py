import torch.utils.cpp_extension


def build_plugin(name, sources, **flags):
    # Compiles the sources the first time, then loads the cached module.
    return torch.utils.cpp_extension.load(name=name, sources=sources, **flags)  # expect: MPS605
