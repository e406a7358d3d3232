import argparse
from dataclasses import dataclass

import click
import typer

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")  # expect: MPS211
parser.add_argument("--gpu", type=str, default="0")  # expect: MPS211
parser.add_argument("--workers", default="0")
parser.add_argument("--precision", default=None)


@click.command()
@click.option("--device", default="cuda:0")  # expect: MPS211
def main(device):
    pass


def cli(device: str = typer.Option("cuda")):  # expect: MPS212
    pass


@dataclass
class TrainConfig:
    device: str = "cuda"  # expect: MPS210
    batch_size: int = 32


def evaluate(model, device="cuda:0"):  # expect: MPS210
    return model
