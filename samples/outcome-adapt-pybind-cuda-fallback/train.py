import argparse

import torch

from seqedit.distance import sequence_distance


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--length", type=int, default=16)
    args = parser.parse_args()
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    source = torch.randint(0, 4, (8, args.length), device=device)
    target = torch.randint(0, 4, (8, args.length), device=device)
    print(sequence_distance(source, target))


if __name__ == "__main__":
    main()
