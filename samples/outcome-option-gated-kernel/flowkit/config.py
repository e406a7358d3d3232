from dataclasses import dataclass


@dataclass
class NetConfig:
    channels: int = 32
    levels: int = 3
    # The warping head needs the compiled warp op; the plain head does not.
    refine_with_warp: bool = False
