import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        # One input tensor: the mask is made where x lives.
        mask = torch.ones(x.shape[0], 1)  # expect: MPS204
        steps = torch.arange(  # expect: MPS204
            x.shape[-1],
        )
        return self.proj(x) * mask + steps


class Pair(nn.Module):
    def forward(self, query, key):
        # Two inputs: whose device to use is a choice fix leaves to you.
        bias = torch.zeros(query.shape[0])  # expect: MPS204
        return query @ key.T + bias
