from .layers import FastNorm
