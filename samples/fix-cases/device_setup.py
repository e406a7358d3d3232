"""How training scripts choose a device: CUDA or nothing."""
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # expect: MPS203


def pick_device(prefer_gpu=True):
    # An if/else selection: the fix adds an `elif` branch for MPS.
    if prefer_gpu and torch.cuda.is_available():  # expect: MPS203
        chosen = torch.device("cuda")
    else:
        chosen = torch.device("cpu")
    return chosen


def portable_device():
    # Already portable: no finding, nothing to fix.
    if torch.cuda.is_available():
        return torch.device("cuda")
    elif torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
