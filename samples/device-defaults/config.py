from yacs.config import CfgNode as CN

_C = CN()
_C.MODEL = CN()
_C.MODEL.DEVICE = "cuda"  # expect: MPS210
_C.MODEL.NAME = "resnet"
