"""A device variable already in scope, from the command line."""
import torch


def evaluate(net, batches, device):
    net = net.cuda()  # expect: MPS201
    for batch in batches:
        yield net(batch.to(device))


def export(net, example):
    # Hard-coded devices: a selection that still picks CUDA first.
    target = torch.device("cuda:0")  # expect: MPS202
    return torch.jit.trace(net.to(target), example.to("cuda"))  # expect: MPS202


def benchmark(net, device="cuda"):  # expect: MPS210
    return net.to(device)
