import torch
from torch import nn

from smoothnet.smooth import smooth


class Denoiser(nn.Module):
    def __init__(self, channels=16):
        super().__init__()
        self.inp = nn.Conv2d(1, channels, 3, padding=1)
        self.out = nn.Conv2d(channels, 1, 3, padding=1)

    def forward(self, x):
        return self.out(torch.relu(self.inp(smooth(x))))
