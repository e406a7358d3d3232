import torch


def lazy_norm(x: torch.Tensor) -> torch.Tensor:
    import triton  # expect: MPS401

    return x / x.norm(dim=-1, keepdim=True)
