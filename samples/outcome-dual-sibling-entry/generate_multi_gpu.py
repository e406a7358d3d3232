import argparse

import torch

from net import Denoiser


@torch.no_grad()
def main(count):
    assert torch.cuda.is_available(), "one GPU per process; generate.py runs anywhere"  # expect: MPS216
    device = torch.device("cuda", 0)  # expect: MPS202
    model = Denoiser().to(device).eval()
    print(model(torch.randn(count, 32, device=device)).shape)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Generate samples on every GPU")
    parser.add_argument("--count", type=int, default=4)
    main(parser.parse_args().count)
