"""What fix must leave alone: strings, comments, guarded code, device indexes."""
import torch

HELP = "call .cuda() and torch.cuda.synchronize() before timing; torch.load(p) is fine"
# model.cuda() and torch.cuda.empty_cache() in a comment are not code.


def guarded(net, x):
    if torch.cuda.is_available():  # expect: MPS203
        net = net.cuda()  # expect: MPS201
        torch.cuda.synchronize()  # expect: MPS101
        x = x.cuda()  # expect: MPS201
    return net(x)


def early_exit(net):
    if not torch.cuda.is_available():
        return net
    torch.cuda.empty_cache()  # expect: MPS102
    return net.cuda()  # expect: MPS201


def on_rank(net, rank):
    # A device index is a choice fix cannot make for you.
    return net.cuda(rank)  # expect: MPS201


def timed(step):
    print("sync:", torch.cuda.synchronize())  # expect: MPS101
    return step()
