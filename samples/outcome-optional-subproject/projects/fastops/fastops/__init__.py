from fastops import _C  # expect: MPS604
