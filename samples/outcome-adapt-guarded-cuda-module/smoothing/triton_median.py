import torch
import triton  # expect: MPS401
import triton.language as tl  # expect: MPS401


@triton.jit
def median_kernel(x_ptr, out_ptr, width: tl.constexpr):
    pass


def median_cuda(x: torch.Tensor, width: int) -> torch.Tensor:
    out = torch.empty_like(x)
    median_kernel[(x.shape[0],)](x, out, width)
    return out
