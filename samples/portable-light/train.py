import argparse

import torch
from torch.utils.data import DataLoader

from data import SyntheticImages
from model import ConvNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--resume", default="")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # expect: MPS203
    torch.cuda.manual_seed_all(0)  # expect: MPS103
    model = ConvNet().to(device)
    if args.resume:
        model.load_state_dict(torch.load(args.resume))  # expect: MPS205
    loader = DataLoader(SyntheticImages(512), batch_size=64, shuffle=True, pin_memory=True)  # expect: MPS206
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()  # expect: MPS109

    for epoch in range(args.epochs):
        for images, labels in loader:
            images, labels = images.cuda(), labels.cuda()  # expect: MPS201, MPS201
            with torch.cuda.amp.autocast():  # expect: MPS109
                loss = torch.nn.functional.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        torch.cuda.synchronize()  # expect: MPS101
        print(f"epoch {epoch}: loss {loss.item():.3f}")
    torch.save(model.state_dict(), "convnet.pt")


if __name__ == "__main__":
    main()
