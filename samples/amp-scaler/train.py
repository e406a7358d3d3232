from functools import partial

import torch


def build_amp(args, device):
    amp_autocast = partial(torch.autocast, device_type=device.type, dtype=torch.float16)
    loss_scaler = None
    if args.amp and device.type == "cuda":
        loss_scaler = torch.amp.GradScaler("cuda")  # expect: MPS311
    return amp_autocast, loss_scaler


def build_scaler(args, device):
    return torch.amp.GradScaler(enabled=args.amp and device.type == "cuda")  # expect: MPS311


def build_portable_scaler(device):
    # Made for every device: nothing to report.
    return torch.amp.GradScaler(device.type)


def build_sharded_scaler(args):
    # FSDP's scaler defaults to device="cuda", like torch.amp.GradScaler().
    from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler

    return ShardedGradScaler() if args.fp16 else None  # expect: MPS314


def build_default_scaler(args):
    return torch.amp.GradScaler(enabled=args.amp)  # expect: MPS314
