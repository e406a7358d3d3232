"""Trains with the settings of configs/train.yaml."""
import sys

import torch
from omegaconf import OmegaConf


def main(path):
    config = OmegaConf.load(path)
    device = torch.device(config.trainer.device)
    model = torch.nn.Linear(8, 2).to(device)
    return model


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configs/train.yaml")
