import importlib

import torch
from torch import nn

from . import _norm_cuda  # expect: MPS604


class FastNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return _norm_cuda.forward(x, self.weight)  # expect: MPS606


class LazyScan(nn.Module):
    def __init__(self):
        super().__init__()
        # Imported when the layer is built, not when the module is.
        self.kernel = importlib.import_module("scan_cuda")  # expect: MPS604

    def forward(self, x):
        return self.kernel.scan(x)
