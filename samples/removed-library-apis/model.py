"""The model, and a loop written against today's APIs: nothing to report."""
import math

import pytorch_lightning as pl
import torch
from torch import inf


class Autoencoder(pl.LightningModule):
    def __init__(self, latent):
        super().__init__()
        self.encoder = torch.nn.Linear(784, latent)
        self.decoder = torch.nn.Linear(latent, 784)

    def training_step(self, batch, batch_index):
        x, _ = batch
        loss = torch.nn.functional.mse_loss(self.decoder(self.encoder(x)), x)
        return loss if torch.isfinite(loss) else torch.tensor(math.inf if inf else 0.0)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class Trainer:
    """A local helper that happens to share Lightning's names."""

    @staticmethod
    def add_argparse_args(parser):
        parser.add_argument("--accelerator", default="mps")
        return parser


def fit(args):
    trainer = pl.Trainer(accelerator=args.accelerator, devices=1)
    return trainer, Trainer.add_argparse_args
