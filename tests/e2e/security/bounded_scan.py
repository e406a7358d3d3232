"""The scan of a bomb tree, for the C/C++/CUDA bound tests (cxx_*_bomb.sh):
within 60 s, peak RSS under 512 MiB (times `scale` under AddressSanitizer),
exit code 3 (an input past a bound). Returns the JSON report and how long
and how much memory it took; exits with a FAIL message otherwise.

Run (by bomb_scan in lib.bash) as

    bounded_scan.py BINARY TREE SCALE FILES [OPTION...] <CHECKS

it scans TREE with the options, runs CHECKS, the test's own Python that
reads `report` and `scale` and exits with a FAIL message, and then fails
unless each of FILES (a space-separated list) keeps a finding."""
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import time


def bounded_scan(binary, tree, scale, extra=()):
    started = time.monotonic()
    # Its own process group, so that a timeout ends the scan and every
    # process it started, and nothing is left holding this test's pipes.
    scan = subprocess.Popen([binary, "scan", "--no-git", "--no-cache", "--format", "json", *extra, tree],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        stdout, stderr = scan.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(scan.pid, signal.SIGKILL)
        sys.exit("FAIL: the scan did not finish within 60 s")
    run = subprocess.CompletedProcess(scan.args, scan.returncode, stdout, stderr)
    seconds = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    peak_mib = peak / (1 << 20) if platform.system() == "Darwin" else peak / 1024  # bytes there, KiB here
    if peak_mib > 512 * scale:
        sys.exit(f"FAIL: peak RSS {peak_mib:.0f} MiB, over {512 * scale} MiB")
    if run.returncode != 3:
        sys.exit(f"FAIL: the scan exited {run.returncode}, not 3: {run.stderr.decode()[-2000:]}")
    return json.loads(run.stdout), seconds, peak_mib


def main():
    binary, tree, scale, files, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(), sys.argv[5:]
    checks = sys.stdin.read()
    report, seconds, peak_mib = bounded_scan(binary, tree, scale, extra)
    exec(compile(checks, "<the test's checks>", "exec"), {"report": report, "scale": scale, "sys": sys})
    found = {(f["path"], f["rule"]) for f in report["findings"]}
    for path in files:
        if not any(p == path for p, _ in found):
            sys.exit(f"FAIL: no finding in {path}: {sorted(found)}")
    print(f"scan: {seconds:.1f} s, peak RSS {peak_mib:.0f} MiB")


if __name__ == "__main__":
    main()
