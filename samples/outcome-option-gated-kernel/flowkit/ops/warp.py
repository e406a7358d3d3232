"""Python face of the compiled warp op."""
import torch
from torch import nn
from torch.autograd import Function

from flowkit import _C


class _WarpFlow(Function):
    @staticmethod
    def forward(ctx, image, flow):
        if not image.is_cuda:  # expect: MPS216, MPS209
            raise NotImplementedError("warp_flow has no CPU kernel")
        out = torch.empty_like(image)
        _C.warp_flow_forward(image, flow, out)  # expect: MPS607
        return out


def warp_flow(image, flow):
    return _WarpFlow.apply(image, flow)


class FlowWarp(nn.Module):
    def forward(self, image, flow):
        return warp_flow(image, flow)
