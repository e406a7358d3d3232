"""Multi-node training of TinyLM with DDP and DeepSpeed (launch with torchrun)."""
import os

import deepspeed  # expect: MPS408
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from model.transformer import TinyLM


def main():
    dist.init_process_group(backend="nccl")  # expect: MPS501
    rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", rank)  # expect: MPS202
    data = TensorDataset(torch.randint(0, 256, (4096, 65)))
    loader = DataLoader(data, batch_size=32, sampler=DistributedSampler(data))
    model = DistributedDataParallel(TinyLM().to(device), device_ids=[rank])  # expect: MPS503
    engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters())
    for (batch,) in loader:
        batch = batch.to(device)
        logits = engine(batch[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten())
        engine.backward(loss)
        engine.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
