import torch
import triton  # expect: MPS401


def fused_norm(x: torch.Tensor) -> torch.Tensor:
    return x / x.norm(dim=-1, keepdim=True)
