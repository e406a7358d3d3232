"""Denoise a saved tensor with trained weights."""
import sys

import torch

from smoothnet.model import Denoiser


def main(weights, image):
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = Denoiser().to(device).eval()
    model.load_state_dict(torch.load(weights, map_location="cpu"))
    with torch.no_grad():
        print(model(torch.load(image, map_location="cpu").to(device)).shape)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
