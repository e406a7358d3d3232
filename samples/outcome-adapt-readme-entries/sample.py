"""Prints samples of a trained CharModel."""
import torch

from model import CharModel

model = CharModel()
model.load_state_dict(torch.load("char.pt"))  # expect: MPS205
model = model.cuda().eval()  # expect: MPS201
with torch.no_grad():
    ids = torch.zeros(1, dtype=torch.long, device="cuda")  # expect: MPS202
    for _ in range(8):
        ids = torch.cat([ids, model(ids)[-1:].argmax(-1)])
print(ids.tolist())
