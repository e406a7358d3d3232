"""Attention over image crops of different sizes, packed into one sequence."""
import torch

try:
    from xformers.ops.fmha.attn_bias import BlockDiagonalMask  # expect: MPS419
    from xformers.ops import memory_efficient_attention  # expect: MPS403
except ImportError as error:
    raise SystemExit(f"packed attention needs xformers: {error}")


def attend_packed(q, k, v, crop_lengths):
    # One call for every crop: the bias keeps each crop's tokens to themselves.
    bias = BlockDiagonalMask.from_seqlens(crop_lengths)  # expect: MPS421
    return memory_efficient_attention(q, k, v, attn_bias=bias)


def pack(crops):
    return torch.cat([crop.flatten(1, 2) for crop in crops], dim=1)
