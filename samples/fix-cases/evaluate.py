"""A device variable already in scope, from the command line."""
import torch


def evaluate(net, batches, device):
    net = net.cuda()  # expect: MPS201
    for batch in batches:
        yield net(batch.to(device))
