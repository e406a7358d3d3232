import torch
from torch import nn

from lightnet.kernels.fused_norm import fused_norm  # expect: MPS420
from .kernels.lazy import lazy_norm
from .kernels import optional

try:
    from .kernels.fused_norm import fused_norm as fast_norm  # expect: MPS420
except ImportError:
    fast_norm = None


class Net(nn.Module):
    def __init__(self, width: int = 64):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return optional.maybe_fast(lazy_norm(fused_norm(self.proj(x))))
