"""Trains CharModel on the prepared ids."""
import numpy as np
import torch

from model import CharModel
from tools.plot import plot_loss

ids = torch.as_tensor(np.load("data/ids.npy"), dtype=torch.long)
model = CharModel().cuda()  # expect: MPS201
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
losses = []
for step in range(100):
    batch = ids[step : step + 33].cuda()  # expect: MPS201
    loss = torch.nn.functional.cross_entropy(model(batch[:-1]), batch[1:])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
torch.save(model.state_dict(), "char.pt")
plot_loss(losses)
