"""A Lightning training script of the 1.x era, with helpers copied from old
PyTorch examples."""
import argparse

import pytorch_lightning as pl
from pytorch_lightning.trainer import Trainer
from torch._six import inf  # expect: MPS717

from model import Autoencoder


def clip_norm(parameters, max_norm):
    norms = [p.grad.detach().abs().max() for p in parameters if p.grad is not None]
    return max(norms) if max_norm == inf else sum(n**2 for n in norms) ** 0.5


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--latent", type=int, default=64)
    parser = Trainer.add_argparse_args(parser)  # expect: MPS718
    args = parser.parse_args()
    trainer = pl.Trainer.from_argparse_args(args, max_epochs=10)  # expect: MPS718
    trainer.fit(Autoencoder(args.latent))


if __name__ == "__main__":
    main()
