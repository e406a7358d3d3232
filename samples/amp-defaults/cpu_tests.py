import torch


def load(model, device):
    # fp32 only on the CPU: an MPS model stays in fp16.
    if str(device) == "cpu":  # expect: MPS220
        model.float()
    return model


def train_step(model, batch, device):
    cuda = device.type != "cpu"  # expect: MPS220
    with torch.autocast(device.type, enabled=device.type != "cpu"):  # expect: MPS220
        loss = model(batch).sum()
    return loss, cuda


def loader_options(device):
    # Not about CUDA or precision: nothing to report.
    pin = device.type != "cpu"
    use_cuda = torch.cuda.is_available() and device.type != "cpu"
    return pin, use_cuda
