import torch
from apex.optimizers import FusedAdam  # expect: MPS404

from model.fused_loss import fused_square_loss  # expect: MPS420
from model.net import TinyTransformer


def main():
    model = TinyTransformer()
    optimizer = FusedAdam(model.parameters(), lr=1e-4)
    for _ in range(10):
        loss = fused_square_loss(model(torch.rand(1, 8, 64)))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
