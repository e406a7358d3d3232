import torch

import scan_cuda  # expect: MPS604
from fastnorm import _norm_cuda  # expect: MPS604


def scan(x):
    return scan_cuda.scan(x)  # expect: MPS606
