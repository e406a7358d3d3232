import torch

if torch.cuda.is_available():
    torch.cuda.empty_cache()  # expect: MPS102
    x = torch.zeros(4).cuda()  # expect: MPS201


def maybe_sync():
    if not torch.cuda.is_available():
        return
    torch.cuda.synchronize()  # expect: MPS101


def always_sync():
    torch.cuda.synchronize()  # expect: MPS101
