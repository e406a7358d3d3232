from fastops import _C
