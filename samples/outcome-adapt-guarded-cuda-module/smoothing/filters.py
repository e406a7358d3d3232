import warnings

import torch


def median_filter(x: torch.Tensor, width: int) -> torch.Tensor:
    result = None
    if x.is_cuda:  # expect: MPS209
        try:
            from .triton_median import median_cuda  # expect: MPS420

            result = median_cuda(x, width)
        except RuntimeError:
            warnings.warn("Triton kernel failed; using the PyTorch median")
    if result is None:
        result = x.unfold(-1, width, 1).median(-1).values
    return result
