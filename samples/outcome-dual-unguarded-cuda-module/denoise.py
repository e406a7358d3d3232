import argparse

import torch

from smoothing.filters import median_filter


def pick_device():
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


@torch.no_grad()
def main(length):
    signal = torch.randn(4, length, device=pick_device())
    print(median_filter(signal, 5).shape)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Denoise a random signal")
    parser.add_argument("--length", type=int, default=64)
    main(parser.parse_args().length)
