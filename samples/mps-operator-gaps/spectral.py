import torch
import torch.nn.functional as F
from torchvision.ops import nms, roi_align


def spectrogram(wave, window):
    spec = torch.stft(wave, 512, window=window, return_complex=True)  # expect: MPS970, MPS313
    return torch.istft(spec, 512, window=window)  # expect: MPS970, MPS313


def keep_boxes(boxes, scores, features, rois):
    keep = nms(boxes, scores, 0.5)  # expect: MPS970
    pooled = roi_align(features, rois, output_size=7)  # expect: MPS970
    return keep, pooled


def resize(image):
    sharp = F.interpolate(image, scale_factor=2, mode="bicubic", antialias=True)  # expect: MPS970
    smooth = F.interpolate(image, scale_factor=2, mode="bilinear")
    return sharp, smooth


def buckets(values, edges, weights):
    index = torch.bucketize(values, edges)  # expect: MPS970
    distances = torch.cdist(values, edges)
    draws = torch.multinomial(weights, 4)  # expect: MPS971
    return index, distances, draws


def decompose(matrix, pairs):
    u, s, vh = torch.linalg.svd(matrix)  # expect: MPS970
    q, r = torch.linalg.qr(matrix)  # expect: MPS970
    z = torch.view_as_complex(pairs)  # expect: MPS970, MPS313
    sparse = matrix.to_sparse()  # expect: MPS970
    return u, s, vh, q, r, z, sparse
