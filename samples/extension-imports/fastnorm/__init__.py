from .layers import FastNorm  # expect: MPS420
