"""Writes a tiny character corpus as integer ids."""
import numpy as np

text = "hello mac " * 100
vocabulary = sorted(set(text))
ids = np.array([vocabulary.index(c) for c in text], dtype=np.int32)
np.save("data/ids.npy", ids)
