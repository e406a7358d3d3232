import argparse

import torch
from torch import nn

from detector.model import Detector


class WithPostprocess(nn.Module):
    """Adds the decoding step that exported graphs carry."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images):
        return self.model(images).sigmoid()


def export_onnx(model, image, path):
    torch.onnx.export(model, image, path)


def export_engine(model, image, path):
    try:
        import tensorrt as trt  # expect: MPS409
    except ImportError:
        print("TensorRT is missing; installing it")
        import tensorrt as trt  # expect: MPS409
    builder = trt.Builder(trt.Logger())
    return builder.build_serialized_network(path)


def run(formats, weights):
    model = WithPostprocess(Detector())
    image = torch.zeros(1, 3, 64, 64)
    if "onnx" in formats:
        export_onnx(model, image, weights + ".onnx")
    if "engine" in formats:
        export_engine(model, image, weights + ".engine")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Export the detector")
    parser.add_argument("--include", nargs="+", default=["onnx"])
    parser.add_argument("--weights", default="detector")
    arguments = parser.parse_args()
    run(arguments.include, arguments.weights)
