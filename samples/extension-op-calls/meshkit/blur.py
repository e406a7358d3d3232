"""Blur: an op of meshkit.blur_cuda, named after its back end, beside a
private Python helper module that is no extension."""
from meshkit import _padding
from meshkit import blur_cuda  # expect: MPS604


def blur(image, radius=2):
    padded = _padding.reflect(image, radius)
    return blur_cuda.gaussian(padded, radius)  # expect: MPS606
