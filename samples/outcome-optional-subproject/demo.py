import torch

from pkg import TinyTransformer


@torch.no_grad()
def main():
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = TinyTransformer().to(device).eval()
    print(model(torch.rand(1, 8, 64, device=device)).shape)


if __name__ == "__main__":
    main()
