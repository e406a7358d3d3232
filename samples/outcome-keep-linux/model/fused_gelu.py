"""A fused bias + GELU written in Triton."""
import torch
import triton  # expect: MPS401
import triton.language as tl  # expect: MPS401


@triton.jit
def _bias_gelu_kernel(x_ptr, bias_ptr, out_ptr, n, width, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask) + tl.load(bias_ptr + offsets % width, mask=mask)
    tl.store(out_ptr + offsets, 0.5 * x * (1 + tl.erf(x * 0.7071067811865476)), mask=mask)


def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _bias_gelu_kernel[(triton.cdiv(n, 1024),)](x, bias, out, n, x.shape[-1], BLOCK=1024)
    return out
