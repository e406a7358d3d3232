import pytorch_lightning as pl
import torch
from transformers import AutoModel

use_cuda = torch.cuda.is_available()  # expect: MPS203
device = torch.device("cuda" if use_cuda else "cpu")  # expect: MPS203


def get_device():
    cuda = torch.cuda.is_available()  # expect: MPS203
    return torch.device("cuda:0" if cuda else "cpu")  # expect: MPS203


def fit(model, data, local_rank):
    trainer = pl.Trainer(accelerator="gpu", devices=1)  # expect: MPS213
    legacy = pl.Trainer(gpus=2)  # expect: MPS214
    model = model.to(f"cuda:{local_rank}")  # expect: MPS202
    trainer.fit(model, data)
    return legacy


def fit_from_options(model, data, options):
    settings = {
        "max_epochs": options.epochs,
        "gpus": options.num_gpus,  # expect: MPS214
    }
    if options.amp:
        settings["precision"] = 16
    pl.Trainer(**settings).fit(model, data)


encoder = AutoModel.from_pretrained("encoder", device_map="cuda")  # expect: MPS215
