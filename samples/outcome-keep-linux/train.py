"""Train TinyViT in half precision on a CUDA GPU."""
import torch

from model.vit import TinyViT


def main():
    model = TinyViT().cuda().half()  # expect: MPS201
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(100):
        images = torch.randn(32, 3, 224, 224, device="cuda", dtype=torch.half)  # expect: MPS202
        labels = torch.randint(0, 100, (32,), device="cuda")  # expect: MPS202
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
