import torch
from torch import nn


class Detector(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Conv2d(8, classes + 4, 1)

    def forward(self, images):
        return self.head(torch.relu(self.backbone(images)))
