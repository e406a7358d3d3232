import torch
from torch import nn


class InferenceBackend(nn.Module):
    """Runs the detector from one of several weight formats."""

    def __init__(self, weights, device):
        super().__init__()
        suffix = str(weights).rsplit(".", 1)[-1]
        self.device = device
        if suffix == "pt":
            self.model = torch.load(weights, map_location="cpu")
        elif suffix == "onnx":
            import onnxruntime

            self.session = onnxruntime.InferenceSession(weights)
        elif suffix == "engine":
            import tensorrt as trt  # expect: MPS409, MPS715

            self.logger = trt.Logger(trt.Logger.INFO)

    def forward(self, images):
        return self.model(images.to(self.device))
