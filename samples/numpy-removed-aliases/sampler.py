"""Importance sampling of diffusion timesteps, written against an old NumPy."""
import numpy as np
import torch


class LossAwareSampler:
    def __init__(self, num_timesteps, history=10):
        self.history = np.zeros([num_timesteps, history], dtype=np.float)  # expect: MPS716
        self.counts = np.zeros([num_timesteps], dtype=np.int)  # expect: MPS716
        # Near cases: sized types, the builtins, and np.bool, which NumPy 2 has again.
        self.seen = np.zeros([num_timesteps], dtype=np.bool)
        self.weights = np.ones([num_timesteps], dtype=np.float32)

    def sample(self, batch_size, device):
        p = self.weights / np.sum(self.weights)
        indices = np.random.choice(len(p), size=(batch_size,), p=p)
        return torch.as_tensor(indices, dtype=torch.long, device=device), float(p[indices].min())

    def update(self, t, loss):
        self.history[t, int(self.counts[t]) % self.history.shape[1]] = np.float(loss)  # expect: MPS716
        self.counts[t] += 1
