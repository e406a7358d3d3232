"""fused_ops: a small PyTorch CUDA extension (the mpsaudit C++/CUDA sample).

Importing the package loads the compiled library, which registers the ops
under torch.ops.fused_ops.
"""
import torch

from . import _C  # noqa: F401  (registers torch.ops.fused_ops)  # expect: MPS604
from .reference import scaled_add as scaled_add_reference


def scaled_add(a, b, alpha=1.0):
    """a + alpha * b: the CUDA kernel on CUDA tensors, the CPU kernel on CPU ones."""
    if a.device.type in ("cuda", "cpu"):
        return torch.ops.fused_ops.scaled_add(a, b, alpha)
    return scaled_add_reference(a, b, alpha)


def segment_softmax(x, offsets):
    """Softmax over the segments of x delimited by offsets (CUDA only)."""
    return torch.ops.fused_ops.segment_softmax(x, offsets)


def gram(x):
    """x^T x through cuBLAS (CUDA only)."""
    return torch.ops.fused_ops.gram(x)


def sorted_unique(x):
    """Sorted distinct values through thrust (CUDA only)."""
    return torch.ops.fused_ops.sorted_unique(x)
