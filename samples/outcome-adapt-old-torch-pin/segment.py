import argparse

import torch
from torch import nn


class TinySegmenter(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, classes, 1))

    def forward(self, x):
        return self.body(x)


def pick_device():
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


@torch.no_grad()
def main(size):
    device = pick_device()
    model = TinySegmenter().to(device).eval()
    print(model(torch.rand(1, 3, size, size, device=device)).argmax(1).shape)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Segment a random image")
    parser.add_argument("--size", type=int, default=32)
    main(parser.parse_args().size)
