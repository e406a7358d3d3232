import torch
from torch import nn

from lightnet.kernels.fused_norm import fused_norm  # expect: MPS420
from .kernels.lazy import lazy_norm
from .kernels import optional

try:
    from .kernels.fused_norm import fused_norm as fast_norm  # expect: MPS420
except ImportError:
    fast_norm = None

try:
    from lightnet.kernels.fused_norm import fused_norm as strict_norm  # expect: MPS420
except ImportError:
    strict_norm = None


class Net(nn.Module):
    def __init__(self, width: int = 64):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return optional.maybe_fast(lazy_norm(fused_norm(self.proj(x))))


def require_strict_norm():
    # The fallback above only postpones the failure.
    if strict_norm is None or not torch.is_grad_enabled():  # expect: MPS420
        raise ImportError("the strict norm needs Triton")
    return strict_norm


class StrictNet(nn.Module):
    def __init__(self, width: int = 64, strict_fused: bool = True):  # expect: MPS422
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.strict_fused = strict_fused
        if self.strict_fused:
            if strict_norm is None:  # expect: MPS420
                raise ImportError("strict_fused needs the Triton norm")
