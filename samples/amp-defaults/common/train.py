from types import SimpleNamespace

train = SimpleNamespace(max_iter=1000, amp=SimpleNamespace(enabled=False), ddp=SimpleNamespace(fp16_compression=False))
