import sys

import torch

assert torch.cuda.is_available(), "a GPU is required"  # expect: MPS216
capability = torch.cuda.get_device_capability()  # expect: MPS216


def start():
    if not torch.cuda.is_available():  # expect: MPS216
        sys.exit("CUDA is required")
    return torch.device("cuda")


def pick():
    if torch.cuda.is_available():  # expect: MPS216, MPS203
        return torch.device("cuda")
    else:
        raise NotImplementedError("CPU is not supported")


def build_optimizer(name):
    if name.startswith("fused"):
        assert torch.cuda.is_available()  # expect: MPS216
    return name
