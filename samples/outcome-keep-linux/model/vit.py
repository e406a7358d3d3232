"""A small vision transformer."""
import torch
import torch.nn as nn

from model.attention import FlashSelfAttention  # expect: MPS420
from model.fused_gelu import bias_gelu  # expect: MPS420


class Block(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = FlashSelfAttention(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width, bias=False)
        self.bias = nn.Parameter(torch.zeros(4 * width))
        self.fc2 = nn.Linear(4 * width, width)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(bias_gelu(self.fc1(self.norm2(x)), self.bias))


class TinyViT(nn.Module):
    def __init__(self, width: int = 192, depth: int = 6, heads: int = 3, classes: int = 100):
        super().__init__()
        self.patch = nn.Conv2d(3, width, 16, stride=16)
        self.blocks = nn.Sequential(*(Block(width, heads) for _ in range(depth)))
        self.head = nn.Linear(width, classes)

    def forward(self, images):
        x = self.patch(images).flatten(2).transpose(1, 2)
        return self.head(self.blocks(x).mean(dim=1))
