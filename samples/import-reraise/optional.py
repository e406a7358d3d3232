import torch

try:
    import xformers.ops as xops  # expect: MPS403
    HAS_XFORMERS = True
except ImportError:
    HAS_XFORMERS = False


def attend(q, k, v):
    if HAS_XFORMERS:
        return xops.memory_efficient_attention(q, k, v)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)
