"""Train the denoiser on one device, or on several with --distributed."""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from smoothnet.model import Denoiser


def pick_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def main():
    parser = argparse.ArgumentParser(description="train the denoiser")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--distributed", action="store_true", help="one process per GPU (torchrun)")
    args = parser.parse_args()

    device = pick_device()
    model = Denoiser().to(device)
    if args.distributed:
        dist.init_process_group("nccl")  # expect: MPS501
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)  # expect: MPS106
        model = DistributedDataParallel(model, device_ids=[local_rank])  # expect: MPS503

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(args.epochs):
        noisy = torch.randn(8, 1, 32, 32, device=device)
        loss = (model(noisy) - noisy).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
