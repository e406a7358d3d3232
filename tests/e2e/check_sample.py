#!/usr/bin/env python3
"""End-to-end check of one sample repository.

Runs `mpsaudit scan` on samples/<name> and compares its findings two ways:

1. With the expectations written inline, next to the code they describe:
   a trailing `# expect: MPS201, MPS205` (or `// expect: ...`) comment says
   which findings that exact line must produce. Every finding must be
   announced and every announcement must be found (as multisets per line),
   so an expectation cannot drift away from its line.
2. With the checked-in golden file samples/<name>/expected-findings.txt,
   exactly: path, line, column, rule, severity and guard of every finding.

Usage: check_sample.py MPSAUDIT SAMPLE_DIR [--update]
  --update rewrites expected-findings.txt from the current output (review
  the diff before committing it).
"""
import collections
import json
import os
import re
import subprocess
import sys

EXPECT = re.compile(r"(?:#|//)\s*expect:\s*([A-Z0-9][A-Z0-9, ]*)")
GOLDEN = "expected-findings.txt"
BINARY_SUFFIXES = (".pt", ".pth", ".ckpt", ".bin", ".safetensors")


def scan(binary, sample):
    completed = subprocess.run(
        [binary, "scan", ".", "--format", "json", "--fail-on", "never"],
        cwd=sample, capture_output=True, text=True, check=False)
    if completed.returncode not in (0, 1, 3):
        sys.exit(f"mpsaudit failed with {completed.returncode}:\n{completed.stderr}")
    return json.loads(completed.stdout)


def inline_expectations(sample):
    expected = collections.Counter()
    for directory, _, names in os.walk(sample):
        for name in names:
            if name == GOLDEN or name.endswith(BINARY_SUFFIXES):
                continue
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, sample).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as handle:
                for number, line in enumerate(handle, start=1):
                    match = EXPECT.search(line)
                    if match:
                        for rule in match.group(1).replace(" ", "").split(","):
                            if rule:
                                expected[(relative, number, rule)] += 1
    return expected


def golden_lines(report):
    lines = []
    for finding in report["findings"]:
        state = "suppressed" if finding.get("suppressed") else finding["severity"]
        lines.append(f'{finding["path"]}:{finding["line"]}:{finding["column"]} {finding["rule"]} '
                     f'{state} guard={finding["guard"]}')
    return lines


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, sample = os.path.abspath(sys.argv[1]), sys.argv[2]
    report = scan(binary, sample)
    failures = []

    actual = collections.Counter()
    for finding in report["findings"]:
        if finding["path"].endswith(BINARY_SUFFIXES) or finding.get("suppressed"):
            continue
        actual[(finding["path"], finding["line"], finding["rule"])] += 1
    expected = inline_expectations(sample)
    for key in sorted((actual - expected).keys()):
        failures.append("unannounced finding (add `expect: %s` to %s:%d)" % (key[2], key[0], key[1]))
    for key in sorted((expected - actual).keys()):
        failures.append("announced but not found: %s at %s:%d" % (key[2], key[0], key[1]))

    lines = golden_lines(report)
    golden_path = os.path.join(sample, GOLDEN)
    if "--update" in sys.argv:
        with open(golden_path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + ("\n" if lines else ""))
    elif not os.path.exists(golden_path):
        failures.append(f"missing {golden_path}; run with --update and review it")
    else:
        with open(golden_path, encoding="utf-8") as handle:
            wanted = handle.read().splitlines()
        if wanted != lines:
            missing = [line for line in wanted if line not in lines]
            extra = [line for line in lines if line not in wanted]
            failures.append("golden file differs from the scan:\n  missing: %s\n  extra: %s"
                            % ("\n    ".join(missing) or "-", "\n    ".join(extra) or "-"))

    crashes = [d for d in report["diagnostics"] if d["code"] == "internal-error"]
    for diagnostic in crashes:
        failures.append(f'front end failed on {diagnostic["path"]}: {diagnostic["message"]}')

    if failures:
        print(f"{sample}: {len(failures)} problem(s)")
        for failure in failures:
            print("  " + failure)
        return 1
    print(f"{sample}: {len(report['findings'])} findings match the inline expectations and {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
