import torch
from torch import nn

from flowkit.config import NetConfig
from flowkit.ops import FlowWarp


class WarpRefiner(nn.Module):
    """Warps the image by the coarse flow and predicts a correction."""

    def __init__(self, channels):
        super().__init__()
        self.warp = FlowWarp()
        self.correct = nn.Conv2d(channels + 2, 2, 3, padding=1)

    def forward(self, image, flow):
        warped = self.warp(image, flow)
        return flow + self.correct(torch.cat([warped, flow], dim=1))


class PlainRefiner(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.correct = nn.Conv2d(channels + 2, 2, 3, padding=1)

    def forward(self, image, flow):
        return flow + self.correct(torch.cat([image, flow], dim=1))


class FlowNet(nn.Module):
    def __init__(self, cfg: NetConfig, refiner: nn.Module):
        super().__init__()
        self.encode = nn.Conv2d(6, cfg.channels, 3, padding=1)
        self.coarse = nn.Conv2d(cfg.channels, 2, 3, padding=1)
        self.refiner = refiner

    def forward(self, first, second):
        features = torch.relu(self.encode(torch.cat([first, second], dim=1)))
        return self.refiner(features, self.coarse(features))


def build_net(cfg: NetConfig) -> FlowNet:
    if cfg.refine_with_warp:
        refiner = WarpRefiner(cfg.channels)
    else:
        refiner = PlainRefiner(cfg.channels)
    return FlowNet(cfg, refiner)
