import argparse

import torch

from net import Denoiser


@torch.no_grad()
def main(count):
    device = "cuda" if torch.cuda.is_available() else "cpu"  # expect: MPS203
    model = Denoiser().to(device).eval()
    print(model(torch.randn(count, 32, device=device)).shape)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Generate samples in one process")
    parser.add_argument("--count", type=int, default=4)
    main(parser.parse_args().count)
