#!/usr/bin/env bash
# Hostile trees: each must finish with a diagnostic naming the problem file,
# and with the findings of the ordinary file beside it intact.
set -euo pipefail
binary=$1
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Every case gets a canary: an ordinary file whose finding must survive.
canary() { printf 'import torch\ntorch.cuda.synchronize()\n' >"$1/canary.py"; }
scan() { # tree, then extra options; JSON report on stdout
  local tree=$1; shift
  local status=0
  "$binary" scan --no-git --format json "$@" "$tree" >"$work/report.json" 2>"$work/stderr" || status=$?
  [[ $status -le 3 ]] || fail "scan of $tree exited $status: $(cat "$work/stderr")"
}
has_canary() { python3 -c "import json,sys; d=json.load(open('$work/report.json')); sys.exit(0 if any(f['path']=='canary.py' and f['rule']=='MPS101' for f in d['findings']) else 1)" || fail "$1: the canary's finding is missing"; }
has_diagnostic() { # path-substring code
  python3 -c "import json,sys; d=json.load(open('$work/report.json')); sys.exit(0 if any('$1' in x['path'] and x['code']=='$2' for x in d['diagnostics']) else 1)" ||
    fail "no '$2' diagnostic naming '$1': $(python3 -c "import json; print(json.load(open('$work/report.json'))['diagnostics'][:5])")"
}

# 100k empty files
mkdir -p "$work/empty" && canary "$work/empty"
python3 -c "
import os
for i in range(100000):
    d = os.path.join('$work/empty', 'd%03d' % (i // 1000))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, 'f%d.py' % i), 'w').close()"
scan "$work/empty"; has_canary "100k empty files"
python3 -c "import json; d=json.load(open('$work/report.json')); assert len(d['files']) == 100001, len(d['files'])"

# a 200 MB file (sparse, so the test stays cheap) beside the canary
mkdir -p "$work/big" && canary "$work/big"
truncate -s 200M "$work/big/huge.py"
scan "$work/big"; has_canary "200 MB file"; has_diagnostic huge.py file-too-large

# a minified 10 MB single-line Python file, and the parse-time limit
mkdir -p "$work/minified" && canary "$work/minified"
python3 -c "
import sys
line = ';'.join('x%d=torch.zeros(%d)' % (i, i) for i in range(600000))
open('$work/minified/min.py', 'w').write('import torch;' + line[:10_000_000] + '\n')"
scan "$work/minified" --max-file-size 20000000; has_canary "minified file"
scan "$work/minified" --max-file-size 20000000 --max-parse-time 1; has_canary "parse-time limit"
has_diagnostic min.py parse-timeout

# 10k nested brackets, NUL bytes, invalid UTF-8 and non-UTF-8 file names
mkdir -p "$work/odd" && canary "$work/odd"
python3 -c "open('$work/odd/nested.py','w').write('x = ' + '['*10000 + ']'*10000 + '\n')"
printf 'import torch\0\0torch.cuda.synchronize()\n' >"$work/odd/nul.py"
printf 'import torch\nname = "\xff\xfe"\ntorch.cuda.synchronize()\n' >"$work/odd/latin1.py"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/odd/caf$(printf '\xe9').py"
scan "$work/odd"; has_canary "odd files"
has_diagnostic nested.py nesting-limit; has_diagnostic nul.py binary-file; has_diagnostic latin1.py invalid-utf8
python3 -c "import json; d=json.load(open('$work/report.json')); assert any(f['path'].startswith('caf') and f['rule']=='MPS101' for f in d['findings']), 'non-UTF-8 file name lost'"

# permission-denied directories, dangling symlinks and symlink loops
mkdir -p "$work/links/locked" && canary "$work/links"
printf 'import torch\n' >"$work/links/locked/inner.py"
ln -s missing.py "$work/links/dangling.py"
ln -s loop.py "$work/links/loop.py"
ln -s . "$work/links/self"
chmod 000 "$work/links/locked"
if [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null; then
  chmod 755 "$work" "$work/links"; chmod 644 "$work/links/canary.py"
  status=0
  setpriv --reuid=65534 --regid=65534 --clear-groups "$binary" scan --no-git --format json "$work/links" \
    >"$work/report.json" 2>/dev/null || status=$?
  [[ $status -eq 3 ]] || fail "a permission-denied directory must exit 3, got $status"
  has_diagnostic locked unreadable-directory
else
  scan "$work/links"
  [[ $(id -u) -eq 0 ]] || has_diagnostic locked unreadable-directory
fi
has_canary "links"; has_diagnostic dangling.py broken-symlink; has_diagnostic loop.py broken-symlink
chmod 755 "$work/links/locked"

# a notebook with 10k cells
mkdir -p "$work/notebook" && canary "$work/notebook"
python3 -c "
import json
cells = [{'cell_type': 'code', 'metadata': {}, 'outputs': [], 'source': ['x = %d\n' % i]} for i in range(10000)]
cells.append({'cell_type': 'code', 'metadata': {}, 'outputs': [], 'source': ['import torch\n', 'torch.cuda.synchronize()\n']})
json.dump({'cells': cells, 'metadata': {}, 'nbformat': 4, 'nbformat_minor': 5}, open('$work/notebook/big.ipynb', 'w'))"
scan "$work/notebook"; has_canary "10k-cell notebook"
python3 -c "import json; d=json.load(open('$work/report.json')); assert any(f['path']=='big.ipynb' and f.get('cell')==10001 for f in d['findings']), 'last cell finding missing'"
echo "hostile trees: every case finished with its diagnostic and the canary's finding"
