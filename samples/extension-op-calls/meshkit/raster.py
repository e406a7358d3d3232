"""Rasterization: an op of meshkit._C, built for CUDA or for the CPU."""
import torch
from torch.autograd import Function

from meshkit import _C


class _Rasterize(Function):
    @staticmethod
    def forward(ctx, verts, faces, size):
        ctx.save_for_backward(verts, faces)
        return _C.rasterize(verts, faces, size)  # expect: MPS607

    @staticmethod
    def backward(ctx, grad):
        verts, faces = ctx.saved_tensors
        return _C.rasterize_backward(verts, faces, grad), None, None  # expect: MPS607


def rasterize(verts, faces, size=256):
    return _Rasterize.apply(verts, faces, size)


def coverage(verts, faces, size=256):
    """How many pixels each face covers; on CUDA the compiled op counts them."""
    if verts.is_cuda:  # expect: MPS209
        return _C.face_coverage(verts, faces, size)  # expect: MPS607
    return torch.bincount(faces.flatten(), minlength=verts.shape[0])
