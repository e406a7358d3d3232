import torch

from lightnet.kernels.fused_norm import fused_norm


def test_norm():
    assert fused_norm(torch.ones(2, 4)).shape == (2, 4)
