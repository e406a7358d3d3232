import torch

from lightnet import Net

model = Net()
print(model(torch.randn(2, 64)).shape)
