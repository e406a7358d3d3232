"""Reading meshes: meshkit.io._C is built for the CPU on every platform, and
its ops take file names, not tensors."""
import torch

from meshkit.io import _C


def load_obj(path):
    verts, faces = _C.read_obj(path)
    return torch.as_tensor(verts), torch.as_tensor(faces)


def tracing():
    return torch._C._get_tracing_state() is not None
