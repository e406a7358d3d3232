import torch


def place(model, batch):
    # No device literal anywhere: the branches move things with .cuda().
    if not torch.cuda.is_available():  # expect: MPS203
        print("using the CPU, this will be slow")
    else:
        model = model.cuda()  # expect: MPS201
        batch = batch.cuda()  # expect: MPS201
    return model, batch


def place_everywhere(model):
    if torch.cuda.is_available():
        model = model.cuda()  # expect: MPS201
    elif torch.backends.mps.is_available():
        model = model.to("mps")
    return model


def seed_everything(seed):
    # Seeding CUDA is not a device choice.
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)  # expect: MPS103


def check_against_gpu(op, x):
    # A copy for one call, compared with the CPU result: not a device choice.
    expected = op(x)
    if torch.cuda.is_available():
        assert torch.allclose(expected, op(x.cuda()).cpu())  # expect: MPS201
    return expected


def to_model_device(model, tensor):
    # Inputs follow a CUDA test of the model's parameters: on MPS they stay on the CPU.
    on_gpu = next(model.parameters()).is_cuda  # expect: MPS209
    return tensor.cuda() if on_gpu else tensor  # expect: MPS201


def to_model_device_any(model, tensor):
    # Inputs follow the parameters' device, whatever it is.
    return tensor.to(next(model.parameters()).device)
