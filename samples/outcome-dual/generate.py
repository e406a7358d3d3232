"""Sample text from a trained TinyLM."""
import torch

from model.transformer import TinyLM


@torch.no_grad()
def generate(model: TinyLM, prompt: torch.Tensor, steps: int = 32) -> torch.Tensor:
    model.eval()
    tokens = prompt
    for _ in range(steps):
        logits = model(tokens)[:, -1]
        tokens = torch.cat([tokens, logits.argmax(dim=-1, keepdim=True)], dim=1)
    return tokens
