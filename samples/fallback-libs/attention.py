import torch
import torch.nn.functional as F

try:
    from flash_attn import flash_attn_func  # expect: MPS402
    HAS_FLASH = True
except ImportError:
    HAS_FLASH = False

try:
    import xformers.ops as xops  # expect: MPS403
except ModuleNotFoundError:
    xops = None


def attention(q, k, v):
    if HAS_FLASH and q.is_cuda:  # expect: MPS209
        return flash_attn_func(q, k, v)
    if xops is not None and q.is_cuda:  # expect: MPS209
        return xops.memory_efficient_attention(q, k, v)
    return F.scaled_dot_product_attention(q, k, v)
