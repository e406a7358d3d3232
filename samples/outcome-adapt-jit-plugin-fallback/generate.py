import argparse

import torch
from torch import nn

from plugins.fused_gelu import fused_gelu


class Generator(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.inner = nn.Linear(width, width)
        self.outer = nn.Linear(width, width)

    def forward(self, z):
        return self.outer(fused_gelu(self.inner(z)))


def pick_device():
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


@torch.no_grad()
def main(count):
    device = pick_device()
    model = Generator().to(device).eval()
    print(model(torch.randn(count, 32, device=device)).shape)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Generate from random latents")
    parser.add_argument("--count", type=int, default=4)
    main(parser.parse_args().count)
