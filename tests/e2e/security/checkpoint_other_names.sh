#!/usr/bin/env bash
# torch.load reads a file by its bytes, not its name (docs/security.md,
# "Checkpoints and pickles"). Attack: checkpoints under names other than
# .pt/.pth/.ckpt/.bin/.safetensors were listed as unknown kinds and never
# read: model_best.pth.tar (the name PyTorch's ImageNet example saves), a
# .pkl, .pickle or .model, or a file renamed to anything (`ckpt`,
# `weights.dat`), so a hostile pickle the tree's code loads went unreported.
# Promise: those names are read as checkpoints, and so is every file whose
# first bytes are a pickle protocol 2-5 header, a zip, a tar or a
# safetensors header, whatever its name; each pickle that calls posix.system
# (GLOBAL + REDUCE, in a plain pickle, a torch zip whose first entry is not
# data.pkl, a legacy tar, a binary file named like a config) gets MPS964.
# Near cases keep their report: a text file named x.model, random bytes, a
# dataset tar, a zip of CSVs, bytes that only start like a pickle stay
# skipped as unknown-kind with no diagnostic, and a binary .yaml keeps its
# binary-file note. Nothing may run: the payloads would create a marker.
# Usage: checkpoint_other_names.sh <mpsaudit binary> <source dir>
set -euo pipefail
BIN=$(realpath "$1")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset MPSAUDIT_RULES_DIR
fail() { echo "FAIL: $*" >&2; exit 1; }
marker=$WORK/marker-a-payload-ran
tree=$WORK/tree
mkdir -p "$tree/weights" "$tree/data"

python3 - "$tree" "$marker" <<'PY'
import io, os, pickle, random, struct, sys, tarfile, zipfile
tree, marker = sys.argv[1], sys.argv[2]

class Payload:  # pickles as GLOBAL posix system + REDUCE
    def __reduce__(self):
        return (os.system, ("touch " + marker,))

def hostile(protocol):
    return pickle.dumps({"state_dict": {"fc.weight": [0.5]}, "epoch": 90, "hook": Payload()}, protocol=protocol)

def write(name, data):
    with open(os.path.join(tree, name), "wb") as out:
        out.write(data)

def torch_zip(pickled, first_entry=None):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        if first_entry:
            archive.writestr("archive/" + first_entry, b"3\n")
        archive.writestr("archive/data.pkl", pickled)
        archive.writestr("archive/version", b"3\n")
    return buffer.getvalue()

def legacy_tar(pickled):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in (("sys_info", pickle.dumps({"little_endian": True}, protocol=2)),
                           ("pickle", pickled),
                           ("tensors", pickle.dumps(0, protocol=2)),
                           ("storages", pickle.dumps(0, protocol=2) + pickle.dumps([], protocol=2))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()

# Hostile, under other names.
write("model_best.pth.tar", torch_zip(hostile(2)))
write("x.pkl", hostile(4))
write("old.pkl", hostile(0))          # protocol 0: no header, found by its name
write("x.pickle", hostile(2))
write("x.model", hostile(3))
write("ckpt", hostile(5))             # renamed: no extension at all
write("weights/weights.dat", torch_zip(hostile(2), first_entry=".data/version"))
write("weights/legacy", legacy_tar(hostile(2)))
write("weights/config.yaml", hostile(2))  # a known text kind, but binary
# A safetensors file under a neutral name: read (no pickle, nothing hostile).
header = b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
write("weights/tensors.data", struct.pack("<Q", len(header)) + header + b"\0" * 8)

# Near cases: none is a checkpoint.
write("tokenizer.model", b"# a text vocabulary, not a pickle\nthe 1\nof 2\n")
rng = random.Random(39)
write("data/blob.dat", bytes([0x17]) + bytes(rng.randrange(256) for _ in range(4095)))
write("data/fake.dat", b"\x80\x03" + bytes(rng.randrange(256) for _ in range(600)))
buffer = io.BytesIO()
with tarfile.open(fileobj=buffer, mode="w") as archive:
    for i in range(3):
        info = tarfile.TarInfo("%06d.jpg" % i)
        info.size = 4
        archive.addfile(info, io.BytesIO(b"\xff\xd8\xff\xe0"))
write("data/shard-000000.tar", buffer.getvalue())
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w") as archive:
    archive.writestr("table.csv", "a,b\n1,2\n")
write("data/tables.zip", buffer.getvalue())
write("data/notes.yaml", b"key: value\n\0\0binary tail\n")
PY
printf 'import torch\nstate = torch.load("model_best.pth.tar", weights_only=False)\n' >"$tree/train.py"

status=0
timeout 120 "$BIN" scan "$tree" --no-git --no-config --format json -o "$WORK/report.json" \
  >"$WORK/out" 2>"$WORK/err" || status=$?
[[ $status -eq 1 ]] || fail "the scan exited $status, not 1 (error findings): $(cat "$WORK/err")"
[[ ! -e $marker ]] || fail "a payload ran during the scan"

python3 - "$WORK/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
hostile = {f["path"]: f["message"] for f in report["findings"] if f["rule"] == "MPS964"}
want = ["model_best.pth.tar", "x.pkl", "old.pkl", "x.pickle", "x.model", "ckpt", "weights/weights.dat",
        "weights/legacy", "weights/config.yaml"]
missing = [name for name in want if "posix.system" not in hostile.get(name, "")]
if missing:
    sys.exit(f"FAIL: no MPS964 naming posix.system for {missing} (MPS964 on {sorted(hostile)})")
extra = sorted(set(hostile) - set(want))
if extra:
    sys.exit(f"FAIL: MPS964 on {extra}")
kinds = {f["path"]: f["kind"] for f in report["files"]}
for name in want + ["weights/tensors.data"]:
    if kinds.get(name) != "checkpoint":
        sys.exit(f"FAIL: {name} was not read as a checkpoint (kind {kinds.get(name)})")
skipped = {s["path"]: s["reason"] for s in report["skipped"]}
for name in want + ["weights/tensors.data"]:
    if name in skipped:
        sys.exit(f"FAIL: {name} is both read and skipped")
near = ["tokenizer.model", "data/blob.dat", "data/fake.dat", "data/shard-000000.tar", "data/tables.zip"]
for name in near:
    if skipped.get(name) != "unknown-kind" or name in kinds:
        sys.exit(f"FAIL: {name}: skipped {skipped.get(name)}, read as {kinds.get(name)}; want unknown-kind")
noisy = [d for d in report["diagnostics"] if d["path"] in near]
if noisy:
    sys.exit(f"FAIL: diagnostics on files that are no checkpoint: {noisy}")
notes = [d["code"] for d in report["diagnostics"] if d["path"] == "data/notes.yaml"]
if notes != ["binary-file"] or kinds.get("data/notes.yaml") != "model-config":
    sys.exit(f"FAIL: data/notes.yaml: {notes}, kind {kinds.get('data/notes.yaml')}; want its binary-file note")
summary = report["summary"]
if summary["skipped"] != len(report["skipped"]) or summary["files"] != len(report["files"]):
    sys.exit(f"FAIL: the summary {summary} does not count the lists")
print(f"{len(want)} hostile checkpoints under other names reported, {len(near)} near cases left alone")
PY

# A single file named on the command line is recognised the same way, and
# one that is no checkpoint keeps its unknown-kind note (and exit code 3:
# nothing to scan).
single() { # file, expected exit status, python condition over `r`
  local status=0
  "$BIN" scan "$tree/$1" --no-config --format json -o "$WORK/one.json" >/dev/null 2>&1 || status=$?
  [[ $status -eq $2 ]] || fail "scanning $1 alone exited $status, not $2"
  python3 -c "import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$WORK/one.json" ||
    fail "scanning $1 alone: $(head -c 800 "$WORK/one.json")"
}
single ckpt 1 '[f["rule"] for f in r["findings"]] == ["MPS964"] and not r["skipped"] and
  [d["code"] for d in r["diagnostics"]] == ["checkpoint-hostile-pickle"]'
single tokenizer.model 3 'not r["files"] and [(s["path"], s["reason"]) for s in r["skipped"]] ==
  [("tokenizer.model", "unknown-kind")] and [d["code"] for d in r["diagnostics"]] == ["unknown-kind"]' 

# A tree whose own config excludes the folder: the renamed pickle is still
# read for the safety rule (MPS964), and every entry is counted once.
excluded=$WORK/excluded
mkdir -p "$excluded/weights" "$excluded/src"
cp "$tree/ckpt" "$excluded/weights/ckpt"
cp "$tree/data/blob.dat" "$excluded/weights/blob.dat"
printf 'import torch\n' >"$excluded/src/train.py"
printf 'exclude = ["weights"]\n' >"$excluded/mpsaudit.toml"
status=0
timeout 60 "$BIN" scan "$excluded" --no-git --no-cache --format json -o "$WORK/excluded.json" >/dev/null 2>&1 ||
  status=$?
[[ $status -eq 1 ]] || fail "the excluded tree: exit $status, not 1"
python3 - "$WORK/excluded.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
if [f["path"] for f in report["findings"] if f["rule"] == "MPS964"] != ["weights/ckpt"]:
    sys.exit(f"FAIL: the excluded tree: MPS964 on {[f['path'] for f in report['findings'] if f['rule'] == 'MPS964']}")
summary = report["summary"]
entries = {"mpsaudit.toml", "src/train.py", "weights/ckpt", "weights/blob.dat"}
listed = [f["path"] for f in report["files"]] + [s["path"] for s in report["skipped"]]
if len(listed) != len(set(listed)) or summary["files"] + summary["skipped"] + summary["not_selected"] != len(entries):
    sys.exit(f"FAIL: the excluded tree: {listed} and summary {summary} do not count {len(entries)} entries once")
PY
[[ ! -e $marker ]] || fail "a payload ran during the scan"
echo "PASS: checkpoints are recognised by their bytes, whatever their names"
