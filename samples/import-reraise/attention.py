import torch

try:
    from flash_attn import flash_attn_func  # expect: MPS402
except ImportError as error:
    raise ImportError("flash-attn is required: pip install flash-attn") from error


def attend(q, k, v):
    return flash_attn_func(q, k, v)
