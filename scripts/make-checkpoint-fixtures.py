#!/usr/bin/env python3
"""Writes the checkpoint fixtures of tests/unit/checkpoint and samples/memory-fit.

Python standard library only (torch is not needed): torch's zip format is a
zip archive holding <archive>/data.pkl (a protocol-2 pickle whose tensors are
calls to torch._utils._rebuild_tensor_v2 on persistent storage records) and
one <archive>/data/<key> entry per storage. Stand-in modules named `torch`
and `torch._utils` make the standard pickler write exactly the GLOBALs that
torch.save writes; nothing here imports real torch, and the hostile fixtures
are only pickled, never loaded.

    scripts/make-checkpoint-fixtures.py [repo-root]

Output is deterministic (fixed zip timestamps), so re-running it leaves the
committed files unchanged. tests/unit/checkpoint/fixtures/torch-2.11/ holds
files written by real torch 2.11 instead; see the README there.
"""
import collections
import io
import json
import os
import pickle
import struct
import sys
import types
import zipfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
FIXTURES = os.path.join(ROOT, "tests", "unit", "checkpoint", "fixtures")
SAMPLE = os.path.join(ROOT, "samples", "memory-fit")

# --- stand-ins for the torch names a checkpoint pickle references ----------
torch = types.ModuleType("torch")
torch_utils = types.ModuleType("torch._utils")
torch._utils = torch_utils


def _rebuild_tensor_v2(*args):  # never called: only its name is pickled
    raise RuntimeError("stand-in")


_rebuild_tensor_v2.__module__ = "torch._utils"
_rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"
torch_utils._rebuild_tensor_v2 = _rebuild_tensor_v2

STORAGE_TYPES = {}
for dtype, (storage_name, size, fmt) in {
    "float32": ("FloatStorage", 4, "<f"),
    "float64": ("DoubleStorage", 8, "<d"),
    "float16": ("HalfStorage", 2, "<e"),
    "int64": ("LongStorage", 8, "<q"),
}.items():
    cls = type(storage_name, (), {"__module__": "torch"})
    setattr(torch, storage_name, cls)
    STORAGE_TYPES[dtype] = (cls, size, fmt)


class Storage:
    def __init__(self, key, dtype, location, values):
        self.key, self.dtype, self.location, self.values = key, dtype, location, values

    def data(self):
        _, _, fmt = STORAGE_TYPES[self.dtype]
        return b"".join(struct.pack(fmt, v) for v in self.values)


class Tensor:
    def __init__(self, storage, shape):
        self.storage, self.shape = storage, shape

    def __reduce__(self):
        stride, step = [], 1
        for extent in reversed(self.shape):
            stride.insert(0, step)
            step *= extent
        return (_rebuild_tensor_v2,
                (self.storage, 0, tuple(self.shape), tuple(stride), False, collections.OrderedDict()))


class CheckpointPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            cls, _, _ = STORAGE_TYPES[obj.dtype]
            return ("storage", cls, obj.key, obj.location, len(obj.values))
        return None


def dumps(obj):
    saved = {name: sys.modules.get(name) for name in ("torch", "torch._utils")}
    sys.modules["torch"], sys.modules["torch._utils"] = torch, torch_utils
    try:
        buffer = io.BytesIO()
        CheckpointPickler(buffer, protocol=2).dump(obj)
        return buffer.getvalue()
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def write_zip(path, archive, entries, compression=zipfile.ZIP_STORED):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive_file:
        for name, data in entries:
            info = zipfile.ZipInfo(f"{archive}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = compression
            archive_file.writestr(info, data)


def torch_zip(path, state, storages, compression=zipfile.ZIP_STORED):
    archive = os.path.splitext(os.path.basename(path))[0]
    entries = [("data.pkl", dumps(state)), ("byteorder", b"little")]
    entries += [(f"data/{s.key}", s.data()) for s in storages]
    entries.append(("version", b"3\n"))
    write_zip(path, archive, entries, compression)


def dataparallel_state():
    """A DataParallel state dict saved on cuda:0: Linear(4, 3) + a float64 buffer."""
    weight = Storage("0", "float32", "cuda:0", [0.5 * i for i in range(12)])
    bias = Storage("1", "float32", "cuda:0", [0.1, 0.2, 0.3])
    table = Storage("2", "float64", "cuda:0", [1.0, 2.0, 3.0, 4.0, 5.0])
    steps = Storage("3", "int64", "cpu", [7])
    state = collections.OrderedDict([
        ("module.fc.weight", Tensor(weight, [3, 4])),
        ("module.fc.bias", Tensor(bias, [3])),
        ("module.pos_table", Tensor(table, [5])),
        ("module.steps", Tensor(steps, [])),
    ])
    return state, [weight, bias, table, steps]


def cpu_state():
    weight = Storage("0", "float16", "cpu", [1.0] * 8)
    state = collections.OrderedDict([("encoder.weight", Tensor(weight, [2, 4]))])
    return state, [weight]


class Evil:
    """Pickles as GLOBAL posix.system (os.system) + REDUCE: the classic payload."""

    def __reduce__(self):
        return (os.system, ("echo mpsaudit-fixture-would-run-this",))


def hostile_zip(path):
    state = collections.OrderedDict([("payload", Evil())])
    write_zip(path, "hostile", [("data.pkl", pickle.dumps(state, protocol=2)), ("version", b"3\n")])


def legacy_hostile(path):
    # The legacy torch.save layout: magic number, protocol version, sys info, object.
    magic = 0x1950A86A20F9469CFC6C
    parts = [pickle.dumps(magic, protocol=2), pickle.dumps(1001, protocol=2),
             pickle.dumps({"protocol_version": 1001, "little_endian": True}, protocol=2),
             pickle.dumps({"state_dict": Evil()}, protocol=2)]
    with open(path, "wb") as out:
        out.write(b"".join(parts))


def safetensors(path, tensors, metadata=None):
    header, data = {}, b""
    for name, (code, shape, fmt, values) in tensors.items():
        raw = b"".join(struct.pack(fmt, v) for v in values)
        header[name] = {"dtype": code, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the format pads the header to 8 bytes
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text + data)


def main():
    state, storages = dataparallel_state()
    torch_zip(os.path.join(FIXTURES, "dataparallel_cuda.pt"), state, storages)
    torch_zip(os.path.join(FIXTURES, "dataparallel_cuda_deflated.pt"), state, storages, zipfile.ZIP_DEFLATED)
    with open(os.path.join(FIXTURES, "dataparallel_cuda.pt"), "rb") as whole:
        data = whole.read()
    with open(os.path.join(FIXTURES, "truncated.pt"), "wb") as out:
        out.write(data[: len(data) // 2])
    hostile_zip(os.path.join(FIXTURES, "hostile_os_system.pt"))
    legacy_hostile(os.path.join(FIXTURES, "hostile_legacy.pth"))

    small = {"embed.weight": ("F32", [8, 4], "<f", [0.25] * 32),
             "head.weight": ("F16", [4, 8], "<e", [0.5] * 32),
             "pos_table": ("F64", [4], "<d", [1.0, 2.0, 3.0, 4.0])}
    safetensors(os.path.join(FIXTURES, "small.safetensors"), small, {"format": "pt"})
    with open(os.path.join(FIXTURES, "bad_length.safetensors"), "wb") as out:
        out.write(struct.pack("<Q", 1 << 40) + b'{"a":1}')
    with open(os.path.join(FIXTURES, "bad_json.safetensors"), "wb") as out:
        out.write(struct.pack("<Q", 16) + b'{"x": {"dtype": ')
    safetensors(os.path.join(FIXTURES, "bad_offsets.safetensors"),
                {"w": ("F32", [4, 4], "<f", [0.0] * 4)})  # 16 bytes for 16 elements

    # The sample repository: a small CPU checkpoint, a DataParallel one saved
    # on CUDA, and a safetensors file.
    state, storages = cpu_state()
    torch_zip(os.path.join(SAMPLE, "checkpoints", "encoder.pt"), state, storages)
    state, storages = dataparallel_state()
    torch_zip(os.path.join(SAMPLE, "checkpoints", "finetuned_dp.pt"), state, storages)
    safetensors(os.path.join(SAMPLE, "weights", "model.safetensors"), small, {"format": "pt"})


if __name__ == "__main__":
    main()
