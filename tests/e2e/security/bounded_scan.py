"""The scan of a bomb tree, for the C/C++/CUDA bound tests (cxx_*_bomb.sh):
within 60 s, peak RSS under 512 MiB (times `scale` under AddressSanitizer),
exit code 3 (an input past a bound). Returns the JSON report and how long
and how much memory it took; exits with a FAIL message otherwise."""
import json
import platform
import resource
import subprocess
import sys
import time


def bounded_scan(binary, tree, scale, extra=()):
    started = time.monotonic()
    try:
        run = subprocess.run([binary, "scan", "--no-git", "--no-cache", "--format", "json", *extra, tree],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=60)
    except subprocess.TimeoutExpired:
        sys.exit("FAIL: the scan did not finish within 60 s")
    seconds = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    peak_mib = peak / (1 << 20) if platform.system() == "Darwin" else peak / 1024  # bytes there, KiB here
    if peak_mib > 512 * scale:
        sys.exit(f"FAIL: peak RSS {peak_mib:.0f} MiB, over {512 * scale} MiB")
    if run.returncode != 3:
        sys.exit(f"FAIL: the scan exited {run.returncode}, not 3: {run.stderr.decode()[-2000:]}")
    return json.loads(run.stdout), seconds, peak_mib
