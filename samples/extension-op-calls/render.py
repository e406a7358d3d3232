"""Renders a mesh to a silhouette."""
import sys

import torch

from meshkit.io import load_obj
from meshkit.raster import rasterize
from meshkit.shading import shade  # expect: MPS420

if __name__ == "__main__":
    verts, faces = load_obj(sys.argv[1])
    image = rasterize(verts, faces)
    print(shade(image, torch.ones(3)).mean())
