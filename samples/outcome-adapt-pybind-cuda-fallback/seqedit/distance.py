import torch


def load_edit_library():
    # The CUDA extension when it was built, the CPU one otherwise.
    try:
        from seqedit import edit_cuda

        return edit_cuda
    except ImportError:
        from seqedit import edit_cpu

        return edit_cpu


def sequence_distance(source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return load_edit_library().edit_distance(source, target)
