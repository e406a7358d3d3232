import torch

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # expect: MPS203


def load(path):
    net = torch.load(path)  # expect: MPS205
    return net.cuda().eval()  # expect: MPS201
