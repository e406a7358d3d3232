import torch

# The None fallback only postpones the failure: every caller reaches the raise.
try:
    import scan_cuda  # expect: MPS604
except ImportError:
    scan_cuda = None


def _require_scan():
    if scan_cuda is None:  # expect: MPS604
        raise RuntimeError("scan_cuda is not built; reinstall with CUDA")


def scan(x):
    _require_scan()
    return scan_cuda.scan(x)  # expect: MPS606
