"""Distributed training whose back end comes from a flag or a config."""
import argparse
from dataclasses import dataclass, field

import torch
import torch.distributed as dist


@dataclass
class DistributedConfig:
    backend: str = field(default="nccl", metadata={"help": "distributed back end"})  # expect: MPS505
    init_method: str = field(default="env://")


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-backend", default="nccl", type=str)  # expect: MPS505
    parser.add_argument("--world-size", default=1, type=int)
    # The near case: a default that picks gloo where CUDA is missing.
    parser.add_argument("--eval-backend", default="nccl" if torch.cuda.is_available() else "gloo")
    return parser.parse_args()


def init_from_flags(args):
    dist.init_process_group(backend=args.dist_backend, world_size=args.world_size)  # expect: MPS504


def init_from_config(config: DistributedConfig):
    dist.init_process_group(config.backend, init_method=config.init_method)  # expect: MPS504


def init_for_evaluation():
    # Near cases: a choice that falls back to gloo, and no back end at all
    # (torch picks gloo for CPU tensors).
    dist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo")
    dist.new_group(ranks=[0])


if __name__ == "__main__":
    arguments = parse_args()
    if arguments.world_size > 1:
        init_from_flags(arguments)
