import argparse

import torch

from detector.backends import InferenceBackend


@torch.no_grad()
def main(weights, device):
    backend = InferenceBackend(weights, torch.device(device))
    images = torch.rand(1, 3, 64, 64)
    print(backend(images).shape)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Detect objects")
    parser.add_argument("--weights", default="detector.pt")
    parser.add_argument("--device", default="cpu")
    arguments = parser.parse_args()
    main(arguments.weights, arguments.device)
