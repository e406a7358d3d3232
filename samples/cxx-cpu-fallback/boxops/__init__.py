"""boxops: region-of-interest pooling and box areas from a small C++/CUDA
extension (the mpsaudit sample of an op with a CPU fallback)."""
from .layers import RoIMean, box_area

__all__ = ["RoIMean", "box_area"]
