import torch


class CharModel(torch.nn.Module):
    def __init__(self, vocabulary=16, width=32):
        super().__init__()
        self.embed = torch.nn.Embedding(vocabulary, width)
        self.head = torch.nn.Linear(width, vocabulary)

    def forward(self, ids):
        return self.head(self.embed(ids))
