import numpy as np
import torch


def make_schedule(steps, device):
    betas = np.linspace(1e-4, 0.02, steps)
    alphas = 1.0 - betas
    alphas_cumprod = np.cumprod(alphas, axis=0)
    return torch.tensor(alphas_cumprod, device=device)  # expect: MPS312


def make_noise(shape, device):
    z = np.random.randn(*shape) * 0.5
    return torch.from_numpy(z).to(device)  # expect: MPS304, MPS312


def make_weights(device):
    weights = np.array([0.25, 0.5, 0.25])
    return torch.as_tensor(weights.reshape(1, 3), device=device)  # expect: MPS312


class Sampler:
    def __init__(self, n):
        self.sigmas = np.exp(np.linspace(0.0, 1.0, n))

    def sigmas_on(self, device):
        return torch.as_tensor(self.sigmas, device=device)  # expect: MPS312


def portable(steps, device):
    # Cast before the device, kept on the CPU, or integer: nothing to report.
    betas = np.linspace(1e-4, 0.02, steps).astype(np.float32)
    on_device = torch.tensor(betas, device=device)
    stats = np.random.rand(4)
    host = torch.tensor(stats, device="cpu")
    cast = torch.from_numpy(stats).float().to(device)  # expect: MPS304
    ids = torch.tensor(np.array([1, 2, 3]), device=device)
    rebound = np.mean(stats)
    rebound = float(rebound)
    scalar = torch.tensor(rebound, device=device)
    return on_device, host, cast, ids, scalar


# float64 that stays on the host: a lookup table, a dtype test, CPU
# statistics and a schedule cast to float32 at once. None reaches MPS.
PRECISIONS = {"fp64": torch.float64, "fp32": torch.float32}


def host_statistics(losses):
    if losses.dtype == torch.float64:
        losses = losses.float()
    total = torch.zeros(1, dtype=torch.float64, device="cpu")
    schedule = torch.tensor(np.linspace(0.0, 1.0, 10), dtype=torch.float64).float()
    return total + losses.sum().cpu(), schedule
