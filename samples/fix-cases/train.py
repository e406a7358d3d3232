#!/usr/bin/env python3
"""Training loop with the usual CUDA-only habits."""
import argparse

import torch
from torch.cuda.amp import GradScaler, autocast
from torch.utils.data import DataLoader

import model as models


def train(dataset, epochs=1, use_amp=True):
    net = models.Gate(16).cuda()  # expect: MPS201
    loader = DataLoader(dataset, batch_size=32, shuffle=True, pin_memory=True)  # expect: MPS206
    scaler = GradScaler(enabled=use_amp)  # expect: MPS109
    optimizer = torch.optim.AdamW(net.parameters())
    torch.cuda.manual_seed_all(0)  # expect: MPS103
    for _ in range(epochs):
        for batch, target in loader:
            batch = batch.cuda(non_blocking=True)  # expect: MPS201, MPS208
            target = target.cuda()  # expect: MPS201
            with autocast(use_amp):  # expect: MPS109
                loss = (net(batch) - target).pow(2).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        torch.cuda.synchronize()  # expect: MPS101
    torch.cuda.empty_cache()  # expect: MPS102
    return net


def resume(path):
    state = torch.load(path)  # expect: MPS205
    net = models.Gate(16)
    net.load_state_dict(state)
    return net


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint")
    args = parser.parse_args()
    resume(args.checkpoint)
