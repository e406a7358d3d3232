import argparse

import torch

from model.net import TinyTransformer


def pick_device():
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


@torch.no_grad()
def main(steps):
    device = pick_device()
    model = TinyTransformer().to(device).eval()
    print(model(torch.rand(1, 8, 64, device=device)).shape)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Run the model on random tokens")
    parser.add_argument("--steps", type=int, default=1)
    main(parser.parse_args().steps)
