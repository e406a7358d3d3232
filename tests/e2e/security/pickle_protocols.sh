#!/usr/bin/env bash
# Hostile pickles in every protocol (0-5) and every container torch.load
# reads (plain pickle, legacy torch.save sequence, zip, legacy tar): each
# calls posix.system through REDUCE, INST, OBJ, a memoized STACK_GLOBAL, an
# EXT code or names computed at load time, and each must yield MPS964 naming
# it. Nothing may run: the payloads would create a marker file.
# (docs/security.md, section "Checkpoints and pickles")
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash" "$1"
source=$2

pickle_tree protocols >"$work/expected.txt"
# Controls: a benign protocol-0 pickle, bytes that are no pickle, and real
# torch checkpoints, none of which may be called hostile.
python3 -c "import pickle, sys; open(sys.argv[1], 'wb').write(pickle.dumps({'epoch': 3, 'lr': 0.5}, protocol=0))" \
  "$work/tree/benign_p0.pt"
printf 'word2vec binary vectors 300\n\001\002' >"$work/tree/vectors.bin"
cp "$source"/tests/unit/checkpoint/fixtures/torch-2.11/*.pt "$work/tree/"

scan_pickles 1 "error findings"

python3 - "$work/report.json" "$work/expected.txt" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
hostile = {f["path"]: f["message"] for f in report["findings"] if f["rule"] == "MPS964"}
expected = dict(line.rstrip("\n").split(" ", 1) for line in open(sys.argv[2]))
missing = [f"{name} (wants '{text}', got {hostile.get(name)!r})" for name, text in expected.items()
           if text not in hostile.get(name, "")]
if missing:
    sys.exit("FAIL: no MPS964 naming the callable for %d of %d hostile files:\n  %s"
             % (len(missing), len(expected), "\n  ".join(missing)))
controls = [p for p in hostile if p not in expected]
if controls:
    sys.exit(f"FAIL: MPS964 on benign files: {controls}")
notes = {d["path"] for d in report["diagnostics"] if d["code"] == "not-a-checkpoint"}
if notes != {"vectors.bin"}:
    sys.exit(f"FAIL: not-a-checkpoint notes on {sorted(notes)}, want only vectors.bin")
print(f"{len(expected)} hostile pickles reported, controls clean")
PY
