import numpy as np
import torch
from torch.utils.data import Dataset


class SyntheticImages(Dataset):
    def __init__(self, size: int):
        rng = np.random.default_rng(0)
        self.images = rng.standard_normal((size, 3, 32, 32))
        self.labels = rng.integers(0, 10, size)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        image = torch.from_numpy(self.images[index])  # expect: MPS304
        return image, int(self.labels[index])
