"""The network's switches."""
from dataclasses import dataclass


@dataclass
class NetConfig:
    width: int = 64
    strict_fused: bool = True  # expect: MPS422
    checkpointing: bool = True
