import torch

try:
    import triton  # expect: MPS401
except ImportError:
    triton = None


def maybe_fast(x: torch.Tensor) -> torch.Tensor:
    return x * 2
