import argparse

import torch

from devices import best_device, pick_device


def load_model(weights, device=None):
    device = pick_device(device)  # expect: MPS219
    return torch.load(weights, map_location=device)


def export(weights):
    device = pick_device("")  # expect: MPS219
    explicit = pick_device("mps")
    portable = best_device()  # best_device tries MPS itself: nothing to report
    return device, explicit, portable


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="", help="accelerator to use; empty picks one")  # expect: MPS219
    parser.add_argument("--weights", default="model.pt")
    return parser.parse_args()


def main(opt):
    device = pick_device(opt.device)
    return load_model(opt.weights, device)
