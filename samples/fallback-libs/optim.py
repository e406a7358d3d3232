try:
    from apex.optimizers import FusedAdam as Adam  # expect: MPS404
except ImportError:
    from torch.optim import AdamW as Adam


def make_optimizer(model, lr=3e-4):
    return Adam(model.parameters(), lr=lr)
