import torch


def select_device(device=""):
    """Pick a device; the empty default is meant to choose the best one."""
    device = str(device).strip().lower()
    cpu = device == "cpu"
    mps = device == "mps"
    if not cpu and not mps and torch.cuda.is_available():  # expect: MPS218
        arg = "cuda:0"
    elif mps and torch.backends.mps.is_available():
        arg = "mps"
    else:
        arg = "cpu"
    return torch.device(arg)


def get_device(name=None):
    if torch.cuda.is_available():  # expect: MPS218
        return torch.device("cuda")
    if name == "mps":
        return torch.device("mps")
    return torch.device("cpu")


def best_device(device=None):
    # Tries MPS on the automatic path too: nothing to report.
    if device:
        return torch.device(device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
