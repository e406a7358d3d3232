import argparse

import torch


def get_device():
    if torch.cuda.is_available():  # expect: MPS203
        return torch.device("cuda")
    return torch.device("cpu")


def best_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-cuda", action="store_true", default=False, help="disables CUDA training")  # expect: MPS217
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    use_cuda = not args.no_cuda and torch.cuda.is_available()  # expect: MPS203

    torch.manual_seed(1)

    device = torch.device("cuda" if use_cuda else "cpu")  # expect: MPS203
    model = torch.nn.Linear(4, 2).to(device)
    return model, get_device(), best_device()


if __name__ == "__main__":
    main()
