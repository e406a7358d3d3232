import argparse

import torch

from devices import best_device, select_device


def load_model(weights, device=None):
    device = select_device(device)  # expect: MPS219
    return torch.load(weights, map_location=device)


def export(weights):
    device = select_device("")  # expect: MPS219
    explicit = select_device("mps")
    portable = best_device()  # best_device tries MPS itself: nothing to report
    return device, explicit, portable


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="", help="cuda device, i.e. 0 or cpu")  # expect: MPS219
    parser.add_argument("--weights", default="model.pt")
    return parser.parse_args()


def main(opt):
    device = select_device(opt.device)
    return load_model(opt.weights, device)
