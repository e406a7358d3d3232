import torch

# A working fallback: the pure-PyTorch path runs when the extension is absent.
try:
    import scan_cuda  # expect: MPS604
except ImportError:
    scan_cuda = None

# Re-raising is no fallback: the import still stops the program on a Mac.
try:
    from fastnorm._norm_cuda import forward as norm_forward  # expect: MPS604
except ImportError:
    raise


def scan(x):
    if scan_cuda is not None:
        return scan_cuda.scan(x)  # expect: MPS606
    return torch.cumsum(x, dim=-1)
