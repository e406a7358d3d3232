"""Predict the flow between two frames saved as tensors."""
import argparse

import torch

from flowkit.config import NetConfig
from flowkit.model import build_net


def main():
    parser = argparse.ArgumentParser(description="predict optical flow for a pair of frames")
    parser.add_argument("weights")
    parser.add_argument("frames")
    args = parser.parse_args()
    device = torch.device("cuda")  # expect: MPS202
    net = build_net(NetConfig()).to(device)
    net.load_state_dict(torch.load(args.weights))  # expect: MPS205
    first, second = torch.load(args.frames, map_location="cpu")
    with torch.no_grad():
        flow = net(first.to(device), second.to(device))
    print(flow.shape)


if __name__ == "__main__":
    main()
