import argparse

import torch


def pick_device(requested):
    # The user's choice wins; the default a Mac gets is still the CPU.
    return requested if requested is not None else "cuda" if torch.cuda.is_available() else "cpu"  # expect: MPS203


def pick_any_device(requested):
    # The default tries MPS too: nothing to fix.
    return requested or ("mps" if torch.backends.mps.is_available() else "cuda" if torch.cuda.is_available() else "cpu")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    options = parser.parse_args()
    return torch.device(pick_device(options.device)), torch.device(pick_any_device(options.device))


if __name__ == "__main__":
    main()
