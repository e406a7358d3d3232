import sys

try:
    import triton  # expect: MPS401
except ModuleNotFoundError:
    print("this model needs Triton")
    sys.exit(1)
