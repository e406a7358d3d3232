"""Train SmallConvNet on random data (a stand-in for CIFAR-10)."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from model.net import SmallConvNet


def main():
    torch.manual_seed(0)
    torch.cuda.manual_seed(0)  # expect: MPS103
    images = torch.randn(512, 3, 32, 32)
    labels = torch.randint(0, 10, (512,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=64, shuffle=True)
    model = SmallConvNet().cuda()  # expect: MPS201
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()  # expect: MPS201, MPS201
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.cuda.synchronize()  # expect: MPS101
    torch.save(model.state_dict(), "net.pt")


if __name__ == "__main__":
    main()
