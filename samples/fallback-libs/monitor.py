"""GPU utilisation logging, optional."""
try:
    import pynvml  # expect: MPS410

    pynvml.nvmlInit()
except ImportError:
    pynvml = None


def gpu_utilisation():
    if pynvml is None:
        return None
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    return pynvml.nvmlDeviceGetUtilizationRates(handle).gpu
