import torch

from sparse import _C


class ImplicitGemm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, features, weight):
        if features.device.type == "cuda":
            out = _C.implicit_gemm_forward(features, weight)
        else:
            raise NotImplementedError  # expect: MPS221
        ctx.save_for_backward(features, weight)
        return out


def downsample(coords, stride):
    if coords.is_cuda:  # expect: MPS209
        return _C.downsample_cuda(coords, stride)
    else:
        raise NotImplementedError("downsampling needs CUDA tensors")  # expect: MPS221
