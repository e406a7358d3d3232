from .common.train import train

train.max_iter = 90000
train.amp.enabled = True  # expect: MPS310
train.ddp.fp16_compression = False
