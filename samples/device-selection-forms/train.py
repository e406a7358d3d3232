import argparse

import torch


def get_device():
    if torch.cuda.is_available():  # expect: MPS203
        return torch.device("cuda")
    return torch.device("cpu")


def best_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-cuda", action="store_true", help="train on the CPU even with a GPU")  # expect: MPS217
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--cuda-eval", action="store_true", help="evaluate on the GPU")
    options = parser.parse_args()
    gpu = torch.cuda.is_available() and not options.no_cuda  # expect: MPS203

    torch.manual_seed(0)

    device = torch.device("cuda") if gpu else torch.device("cpu")  # expect: MPS203
    eval_device = torch.device("cuda:0" if options.cuda_eval else "cpu")  # expect: MPS203
    model = torch.nn.Linear(4, 2).to(device)
    return model, eval_device, get_device(), best_device()


if __name__ == "__main__":
    main()
