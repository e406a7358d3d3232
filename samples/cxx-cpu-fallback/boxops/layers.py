"""Modules over the compiled boxops ops."""
from torch import nn

from . import _C


class RoIMean(nn.Module):
    """The mean feature inside each region of interest."""

    def forward(self, features, rois):
        return _C.roi_mean_forward(features, rois)  # expect: MPS844


def box_area(boxes):
    return _C.box_area(boxes)  # expect: MPS844
