import torch as th
import torch.nn.functional as F
from torch import cuda
from torch.cuda import amp as A
import torch.backends.cudnn as cudnn

cudnn.benchmark = True  # expect: MPS113
sync = th.cuda  # a plain alias, resolved like an import


def step(model, x, rank):
    cuda.synchronize()  # expect: MPS101
    sync.empty_cache()  # expect: MPS102
    with A.autocast():  # expect: MPS109
        y = F.interpolate(model(x), scale_factor=2)
    target = th.device(f"cuda:{rank}")  # expect: MPS202
    return y.to(target)
