from accelerate import Accelerator


class Trainer:
    def __init__(
        self,
        model,
        amp=False,
        mixed_precision_type="fp16",  # expect: MPS308
        split_batches=True,
    ):
        self.accelerator = Accelerator(split_batches=split_batches, mixed_precision=mixed_precision_type if amp else "no")
        self.model = model


class QuietTrainer:
    def __init__(self, model, mixed_precision="bf16"):
        self.accelerator = Accelerator(mixed_precision=mixed_precision)
        self.model = model


def fast_accelerator():
    return Accelerator(mixed_precision="fp16")  # expect: MPS309
