#!/usr/bin/env python3
"""Writes a deterministic, research-style repository for benchmarks.

    gen_corpus.py OUT_DIR --files N [--seed S]

About 100 lines per Python file, so 50k files is about 5 million lines.
The mix follows a typical research repository: models (nn.Module classes),
training loops, data pipelines, utilities, with CUDA-only calls at a
realistic density (roughly one hazard every 25 lines); plus notebooks,
requirements and pyproject files, CMake files and CUDA sources (about 6% of
files together). The same arguments always give byte-identical trees.
"""
import argparse
import json
import os
import random

HAZARDS = [
    "    x = x.cuda()",
    "    torch.cuda.synchronize()",
    "    state = torch.load(path)",
    "    y = x.to('cuda:0')",
    "    torch.cuda.empty_cache()",
    "    scaler = torch.cuda.amp.GradScaler()",
    "    z = x.double()",
    "    w = torch.zeros(4, dtype=torch.float64)",
    "    loader = DataLoader(ds, batch_size=32, pin_memory=True)",
    "    torch.backends.cudnn.benchmark = True",
    "    n = torch.cuda.device_count()",
]
PLAIN = [
    "    x = F.relu(self.fc1(x))",
    "    logits = self.head(hidden)",
    "    loss = F.cross_entropy(logits, labels)",
    "    optimizer.zero_grad()",
    "    loss.backward()",
    "    optimizer.step()",
    "    hidden = self.norm(hidden + residual)",
    "    # keep the running statistics for the report",
    "    values = [v * scale for v in values]",
    "    total += batch.size(0)",
    "    print(f'step {step}: {loss.item():.4f}')",
    "    mask = attention_mask[:, None, None, :]",
]
HEADER = """\"\"\"Module {index}: part of a research code base (generated for benchmarks).\"\"\"
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
{extra_import}

"""


def python_module(rng, index):
    extra = rng.choice(["", "", "", "import triton", "try:\n    import flash_attn\nexcept ImportError:\n    flash_attn = None",
                        "from torch.cuda import amp", "import torch as th"])
    lines = [HEADER.format(index=index, extra_import=extra)]
    lines.append(f"class Block{index}(nn.Module):")
    lines.append("    def __init__(self, width=256):")
    lines.append("        super().__init__()")
    lines.append("        self.fc1 = nn.Linear(width, width)")
    lines.append("        self.head = nn.Linear(width, 10)")
    lines.append("")
    lines.append("    def forward(self, x):")
    for _ in range(14):
        lines.append("    " + rng.choice(PLAIN + ["    noise = torch.randn(x.shape[0], 1)"]))
    lines.append("        return x")
    lines.append("")
    for function in range(4):
        lines.append(f"def step_{function}(model, batch, optimizer, path='ckpt.pt', ds=None):")
        lines.append("    device = 'cuda' if torch.cuda.is_available() else 'cpu'")
        for _ in range(15):
            lines.append(rng.choice(HAZARDS) if rng.random() < 0.04 else rng.choice(PLAIN))
        lines.append("    return batch")
        lines.append("")
    return "\n".join(lines) + "\n"


def notebook(rng, index):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"# Experiment {index}\n"]}]
    for c in range(6):
        source = ["import torch\n", "!nvidia-smi\n" if c == 0 else "x = torch.randn(8, 8)\n"]
        source += [rng.choice(HAZARDS).strip() + "\n" for _ in range(3)]
        cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source})
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


REQUIREMENTS = "torch==2.1.0+cu118\n--extra-index-url https://download.pytorch.org/whl/cu118\nnumpy>=1.24\ntriton; sys_platform == 'linux'\n"
PYPROJECT = """[project]
name = "pkg{index}"
version = "0.1.0"
dependencies = ["torch>=2.1", "numpy"]

[project.optional-dependencies]
cuda = ["flash-attn>=2.0", "xformers"]
"""
CMAKE = """cmake_minimum_required(VERSION 3.18)
project(ops{index} LANGUAGES CXX CUDA)
find_package(Torch REQUIRED)
add_library(ops{index} SHARED ops.cpp kernel{index}.cu)
set(CMAKE_CUDA_ARCHITECTURES 80)
"""
CUDA = """#include <cuda_runtime.h>
__global__ void scale_kernel_{index}(float *x, float s, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}}
void scale_{index}(float *x, float s, int n) {{
  scale_kernel_{index}<<<(n + 255) / 256, 256>>>(x, s, n);
  cudaDeviceSynchronize();
}}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--files", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for index in range(args.files):
        package = os.path.join(args.out, f"pkg{index // 200:04d}")
        os.makedirs(package, exist_ok=True)
        kind = index % 50
        if kind == 1:
            name, text = f"explore_{index}.ipynb", notebook(rng, index)
        elif kind == 2:
            name, text = "requirements.txt", REQUIREMENTS
        elif kind == 3:
            name, text = "pyproject.toml", PYPROJECT.format(index=index)
        elif kind == 4:
            name, text = "CMakeLists.txt", CMAKE.format(index=index)
        else:
            name, text = f"module_{index}.py", python_module(rng, index)
        with open(os.path.join(package, name), "w", encoding="utf-8") as handle:
            handle.write(text)
        if kind == 4:
            with open(os.path.join(package, f"kernel{index}.cu"), "w", encoding="utf-8") as handle:
                handle.write(CUDA.format(index=index))


if __name__ == "__main__":
    main()
