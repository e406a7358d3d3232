import subprocess
import sys

import torch


def load_edit_library():
    # Builds the CUDA extension when it is missing, then imports it again:
    # a retry, not a way on without it.
    try:
        from seqedit import edit_cuda
    except ImportError:
        subprocess.check_call([sys.executable, "setup.py", "build_ext", "--inplace"])
        from seqedit import edit_cuda
    return edit_cuda


def sequence_distance(source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return load_edit_library().edit_distance(source, target)
