import cv2
import einops
import faiss
import numpy as np
import torch

from hardcases.attention import attention  # expect: MPS420


def main():
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    frames = np.stack([cv2.resize(np.zeros((64, 64, 3), np.float32), (32, 32))] * 4)
    queries = torch.tensor(frames, dtype=torch.float32, device=device)
    tokens = einops.rearrange(queries, "b h w c -> b (h w) c")
    out = attention(tokens, tokens, tokens)
    index = faiss.IndexFlatL2(out.shape[-1])
    index.add(out[0].cpu().numpy())


if __name__ == "__main__":
    main()
