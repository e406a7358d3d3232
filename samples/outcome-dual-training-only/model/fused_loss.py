import torch
import triton  # expect: MPS401
import triton.language as tl  # expect: MPS401


@triton.jit
def _square_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * x, mask=mask)


def fused_square_loss(x):
    out = torch.empty_like(x)
    _square_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out.mean()
