from .warp import FlowWarp, warp_flow
