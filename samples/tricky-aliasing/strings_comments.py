"""Docs that mention .cuda() and torch.cuda.synchronize() are not code."""
import logging

# model.cuda() would be wrong here; we call torch.cuda.synchronize() nowhere.
HELP = "pass --device cuda to train on an NVIDIA GPU"
log = logging.getLogger(__name__)


def describe(device):
    if device == "cuda":
        log.info("training on cuda")
    return f"device={device}"
