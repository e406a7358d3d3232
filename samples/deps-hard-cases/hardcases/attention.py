import torch.nn.functional as F

try:
    from flash_attn import flash_attn_func  # expect: MPS402
except ImportError:
    flash_attn_func = None

import tinycudann  # expect: MPS415, MPS715


def attention(query, key, value):
    if flash_attn_func is not None and query.device.type == "cuda":
        return flash_attn_func(query, key, value)
    return F.scaled_dot_product_attention(query, key, value)


def encoder(n_input_dims):
    return tinycudann.Encoding(n_input_dims, {"otype": "HashGrid"})
