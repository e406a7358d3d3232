import torch


def pick_device(requested=""):
    """The empty default is documented as the best accelerator there is."""
    wants_cpu = requested == "cpu"
    wants_apple = requested == "mps"
    if torch.cuda.is_available() and not (wants_cpu or wants_apple):  # expect: MPS218
        choice = "cuda"
    elif wants_apple and torch.backends.mps.is_available():
        choice = "mps"
    else:
        choice = "cpu"
    return torch.device(choice)


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
