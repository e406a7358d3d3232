"""Top-p filtering through NumPy, restoring the tensor's type afterwards."""
import numpy as np
import torch


def top_p_filter(logits: torch.Tensor, top_p: float) -> torch.Tensor:
    device = logits.device
    type_string = logits.type()  # "torch.mps.FloatTensor" on a Mac
    values = logits.detach().cpu().numpy().astype(np.float32)
    order = np.argsort(values)[::-1]
    cumulative = np.cumsum(np.exp(values[order]) / np.exp(values).sum())
    values[order[cumulative > top_p]] = -np.inf
    return torch.from_numpy(values).to(device).type(type_string)  # expect: MPS304, MPS315


def top_p_filter_portable(logits: torch.Tensor, top_p: float) -> torch.Tensor:
    # The dtype and the device, not the type string: no MPS315 (MPS304, an
    # info, only says that from_numpy keeps the array's dtype).
    values = logits.detach().cpu().numpy().astype(np.float32)
    order = np.argsort(values)[::-1]
    cumulative = np.cumsum(np.exp(values[order]) / np.exp(values).sum())
    values[order[cumulative > top_p]] = -np.inf
    return torch.from_numpy(values).to(device=logits.device, dtype=logits.dtype)  # expect: MPS304
