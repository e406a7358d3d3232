"""The fused kernels, compiled for CUDA only."""
