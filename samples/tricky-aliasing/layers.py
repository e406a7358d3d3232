import torch
from torch import nn


class Base(nn.Module):
    pass


class Positional(Base):
    """Derives from nn.Module through Base: forward() still counts."""

    def forward(self, x):
        steps = torch.arange(x.shape[1])  # expect: MPS204
        ok = torch.arange(x.shape[1], device=x.device)
        return x + steps[None, :, None] + ok[None, :, None]


def build_table(n):
    return torch.arange(n)  # outside forward: fine
