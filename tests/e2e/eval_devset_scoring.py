#!/usr/bin/env python3
"""scripts/eval-devset scores what it is meant to (docs/accuracy.md), on a
made-up dev set built here; the real one stays outside the repository.

Part 1 drives the script with a stand-in for mpsaudit that prints a fixed report,
so that every scoring edge is exact: the +-3 and +-1 line windows, folder paths
and empty `lines`, files absent from the tree, suppressed findings, the
effort ratios (with and without the planned recommended_hours and
native_port_hours), port lines and categories, the hours read from a prose
port note, --check's exit codes and --split's halves.

Part 2 runs the real binary on a small tree, so that the script reads the real
report's members (findings' path, line and severity; the decision; the effort
range).

Usage: eval_devset_scoring.py MPSAUDIT SOURCE_DIR
"""
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

BINARY, SOURCE = sys.argv[1], Path(sys.argv[2])
SCRIPT = SOURCE / "scripts" / "eval-devset"
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def finding(path, line, severity="warning", rule="MPS201", suppressed=False):
    return {"rule": rule, "path": path, "line": line, "severity": severity, "name": "x.cuda",
            "suppressed": suppressed}


def fake_report(findings, outcome, effort):
    return {"findings": findings, "diagnostics": [],
            "assessment": {"decision": {"outcome": outcome}, "effort": effort}}


def run(devset, *options, binary=None):
    command = [sys.executable, str(SCRIPT), "--devset", str(devset), "--mpsaudit", binary or BINARY, "-j", "1"]
    return subprocess.run(command + list(options), capture_output=True, text=True, check=False)


def make_fake_binary(work):
    """Prints the tree's fake-report.json, as `mpsaudit scan --format json` would print its report."""
    fake = work / "fake-mpsaudit"
    write(fake, """
        #!/usr/bin/env bash
        if [[ $1 == version ]]; then echo "fake 0"; exit 0; fi
        cat fake-report.json
        exit 1
        """)
    fake.chmod(0o755)
    return str(fake)


def build_fake_devset(devset):
    # Labelled tree one: every window edge, with the planned effort members present.
    tree = devset / "repos" / "acme__widget"
    write(tree / "train.py", "\n" * 20)
    write(tree / "pkg" / "ops.py", "\n" * 5)
    write(tree / "fake-report.json", json.dumps(fake_report(
        [finding("train.py", 10), finding("train.py", 15, suppressed=True),
         finding("pkg/ops.py", 5), finding("requirements.txt", 2, "error", "MPS703")],
        "DUAL",
        {"total": {"low": 100, "high": 400, "text": ""},
         "recommended_hours": {"low": 8, "high": 32, "text": ""},
         "native_port_hours": {"low": 400, "high": 1600, "text": ""}})))
    write(devset / "labels" / "acme__widget.toml", """
        repo = "acme/widget"
        verdict = "ADAPT"
        acceptable = ["ADAPT", "DUAL"]
        effort_days = [1.0, 4.0]
        port_effort_days = [10, 40]

        [[must_find]]  # finding at 10: +3 is inside the window
        path = "train.py"
        lines = [7]
        category = "cat-edge"
        problem = "three lines away"
        severity = "blocker"

        [[must_find]]  # four lines away: outside
        path = "train.py"
        lines = [14, 6]
        category = "cat-miss"
        problem = "four lines away"
        severity = "fix"

        [[must_find]]  # only a suppressed finding there
        path = "train.py"
        lines = [15]
        category = "cat-miss"
        problem = "suppressed"
        severity = "fix"

        [[must_find]]  # a folder: any finding inside
        path = "pkg/"
        lines = [99]
        category = "cat-folder"
        problem = "anywhere in the folder"
        severity = "perf"

        [[must_find]]  # empty lines: any finding in the file
        path = "pkg/ops.py"
        lines = []
        category = "cat-folder"
        problem = "anywhere in the file"
        severity = "perf"

        [[must_find]]  # the file is not in the tree
        path = "README.md"
        lines = [1]
        category = "cat-miss"
        problem = "absent"
        severity = "fix"

        [[must_not_block]]  # error at 2: +-1 hits
        path = "requirements.txt"
        lines = [3]
        why = "one line away"

        [[must_not_block]]  # two lines away: no hit
        path = "requirements.txt"
        lines = [4]
        why = "two lines away"

        [[must_not_block]]  # a warning is not an error
        path = "train.py"
        lines = [10]
        why = "warning only"

        [[must_not_block]]  # a folder without errors
        path = "pkg/"
        lines = []
        why = "no error inside"
        """)
    # Labelled tree two: a verdict outside `acceptable`, effort from today's total only.
    tree = devset / "repos" / "acme__gadget"
    write(tree / "main.py", "\n")
    write(tree / "fake-report.json", json.dumps(fake_report(
        [], "KEEP_LINUX_GPU", {"total": {"low": 2, "high": 8, "text": ""}})))
    write(devset / "labels" / "acme__gadget.toml", """
        repo = "acme/gadget"
        verdict = "ADAPT"
        acceptable = ["ADAPT"]
        effort_days = [1.0, 1.0]
        """)
    # One port: a parent tree, its changed lines and its note (hours in prose only).
    parent = devset / "ports" / "trees" / "acme__widget__abcdef1"
    write(parent / "train.py", "\n" * 20)
    write(parent / "fake-report.json", json.dumps(fake_report(
        [finding("train.py", 10), finding("lib/util.py", 3)], "ADAPT",
        {"total": {"low": 3, "high": 12, "text": ""}})))
    rows = ["repo\tparent\tport\tpath\tline\tcategory",
            "acme/widget\tabcdef1234\t1234567890\ttrain.py\t13\tdevice selection",
            "acme/widget\tabcdef1234\t1234567890\ttrain.py\t14\tdevice selection",
            "acme/widget\tabcdef1234\t1234567890\tlib/util.py\t3\thard-coded string",
            "acme/widget\tabcdef1234\t1234567890\ttrain.py\t7\thard-coded string"]
    write(devset / "ports" / "ports.tsv", "\n".join(rows) + "\n")
    write(devset / "ports" / "acme__widget__1234567.md", """
        # acme/widget: a made-up port

        | field | value |
        |---|---|
        | parent commit (the "before" tree) | `abcdef1234` |

        ## Effort estimate
        Two files. The first try took about 1.5 h; review added another hour. Estimate ~12 person-hours
        in all, of which 2 h were waiting for CI.

        ## Left behind
        Nothing that takes 40 hours.
        """)


def check_fake_devset(work):
    devset = work / "devset"
    build_fake_devset(devset)
    fake = make_fake_binary(work)
    figures = work / "figures.json"
    completed = run(devset, "--json", str(figures), "--markdown", str(work / "table.md"), "--verbose",
                    binary=fake)
    check(completed.returncode == 0, f"fake dev set: exit {completed.returncode}: {completed.stderr}")
    results = json.loads(figures.read_text())
    widget, gadget = sorted(results["repositories"], key=lambda repo: repo["repo"], reverse=True)

    found = [item["found"] for item in widget["must_find"]]
    check(found == [True, False, False, True, True, False], f"must-find found flags: {found}")
    check([item["in_tree"] for item in widget["must_find"]][-1] is False, "README.md should be absent")
    check(widget["must_find_not_in_tree"] == 1, "one must-find item outside the tree")
    errors = [item["error"] for item in widget["must_not_block"]]
    check(errors == [True, False, False, False], f"must-not-block error flags: {errors}")
    check([hit["rule"] for hit in widget["must_not_block"][0]["hits"]] == ["MPS703"], "the hit names its rule")

    check(widget["verdict_agreed"] and not gadget["verdict_agreed"], "verdict agreement")
    # recommended_hours (8-32 h, geometric mean 16) against 1-4 days (8-32 h): x1.
    check(widget["effort"]["report_member"] == "recommended_hours", "recommended_hours preferred")
    check(math.isclose(widget["effort"]["ratio"], 1.0), f"effort ratio {widget['effort']['ratio']}")
    # native_port_hours (400-1600, 800) against 10-40 days (80-320 h, 160): x5, outside x2.
    native = widget["native_port_effort"]
    check(math.isclose(native["ratio"], 5.0) and native["within"] is False, f"native port ratio {native}")
    # total (2-8 h, 4) against 1 day (8 h): x0.5, just within x2.
    check(gadget["effort"]["report_member"] == "total", "falls back to the total")
    check(math.isclose(gadget["effort"]["ratio"], 0.5) and gadget["effort"]["within"], "x0.5 is within x2")

    totals = results["totals"]
    check((totals["verdicts_agreed"], totals["must_find_found"], totals["must_find_total"],
           totals["must_not_block_errors"], totals["effort_within"]) == (1, 3, 6, 1, 2), f"totals {totals}")
    check(totals["must_find_by_category"]["cat-miss"] == {"found": 0, "missed": 3}, "misses by category")
    check(list(totals["must_find_by_category"])[0] == "cat-miss", "most misses first")

    flagged = [line["flagged"] for line in results["port_trees"][0]["lines"]]
    check(flagged == [True, False, True, True], f"port lines flagged: {flagged}")
    check(totals["ports_flagged"] == 3 and totals["ports_changed"] == 4, "port totals")
    check(totals["ports_by_category"]["device selection"] == {"flagged": 1, "total": 2, "share": 0.5},
          f"port categories {totals['ports_by_category']}")
    note = results["port_notes"][0]
    check(note["tree"] == "acme__widget__abcdef1", f"note's tree {note['tree']}")
    check(note["hours"] == 12.0 and note["hours_source"].startswith("prose"), f"note's hours {note}")
    # report 3-12 h (6) against 12 h: x0.5, within x2.5.
    check(math.isclose(note["ratio"], 0.5) and note["within"], f"port effort ratio {note['ratio']}")

    check("four lines away" in completed.stdout and "hit by MPS703 x1 (first requirements.txt:2" in completed.stdout,
          "--verbose lists the misses")
    check("| acme/widget |" in (work / "table.md").read_text(), "--markdown writes the table")

    floors = work / "floors.toml"
    at_today = ("verdicts_agreed = 1\nmust_find_found = 3\nmust_not_block_errors_max = 1\n"
                "effort_within_2x = 2\nports_flagged_share = 0.75\nport_effort_within_2_5x = 1\n")
    floors.write_text(at_today)
    completed = run(devset, "--check", "--floors", str(floors), binary=fake)
    check(completed.returncode == 0, f"--check at today's figures: exit {completed.returncode}")
    floors.write_text(at_today.replace("must_find_found = 3", "must_find_found = 4"))
    completed = run(devset, "--check", "--floors", str(floors), binary=fake)
    check(completed.returncode == 1 and "must_find_found: 3 (at least 4) BELOW FLOOR" in completed.stdout,
          f"--check below a floor: exit {completed.returncode}\n{completed.stdout}")
    floors.write_text(at_today.replace("must_not_block_errors_max = 1", "must_not_block_errors_max = 0"))
    completed = run(devset, "--check", "--floors", str(floors), binary=fake)
    check(completed.returncode == 1, "--check above a maximum")
    floors.write_text("must_find_fund = 1\n")
    completed = run(devset, "--check", "--floors", str(floors), binary=fake)
    check(completed.returncode == 2 and "must_find_fund" in completed.stderr, "an unknown floor is an error")

    check_split(devset, fake, work)

    (devset / "repos" / "acme__gadget" / "fake-report.json").unlink()  # the stand-in now prints nothing
    completed = run(devset, binary=fake)
    check(completed.returncode == 2 and "SCAN FAILED, scored as an empty report: acme__gadget" in completed.stdout
          and "acme/widget" in completed.stdout, f"a failed scan: exit {completed.returncode}\n{completed.stdout}")


def check_split(devset, fake, work):
    """--split: each repository's half is the parity of the first byte of the SHA-256 of its name,
    and the two halves' figures add up to the whole set's (here both fall in half b, so half a
    is empty and must print without dividing by zero)."""
    figures = work / "split.json"
    completed = run(devset, "--split", "--json", str(figures), binary=fake)
    check(completed.returncode == 0, f"--split: exit {completed.returncode}: {completed.stderr}")
    results = json.loads(figures.read_text())
    for repo in results["repositories"]:
        expected = "ab"[hashlib.sha256(repo["repo"].encode()).digest()[0] % 2]
        check(repo["half"] == expected, f"{repo['repo']} is in half {repo['half']}, want {expected}")
    halves, totals = results["halves"], results["totals"]
    for figure in ("repositories", "verdicts_agreed", "must_find_found", "must_find_total",
                   "must_not_block_errors", "effort_within", "ports_flagged", "ports_changed"):
        check(halves["a"][figure] + halves["b"][figure] == totals[figure], f"--split: halves of {figure}")
    check(halves["a"]["repositories"] == 0 and halves["b"]["repositories"] == 2, f"halves {halves}")
    check("The two halves (--split)" in completed.stdout and "half a: (none)\nhalf b: acme/gadget, acme/widget" in completed.stdout,
          f"--split prints the halves:\n{completed.stdout}")


def check_absent_devset(work):
    completed = run(work / "absent", "--skip-missing")
    check(completed.returncode == 77, f"absent dev set with --skip-missing: exit {completed.returncode}")
    completed = run(work / "absent")
    check(completed.returncode == 2 and "no dev set" in completed.stderr, "absent dev set: exit 2")


def check_real_binary(work):
    devset = work / "real"
    tree = devset / "repos" / "acme__real"
    write(tree / "train.py", """
        import torch


        def main():
            model = torch.nn.Linear(2, 2)
            return model.cuda()
        """)
    write(tree / "requirements.txt", "torch\ncupy-cuda12x\n")
    write(devset / "labels" / "acme__real.toml", """
        repo = "acme/real"
        verdict = "ADAPT"
        acceptable = ["ADAPT", "DUAL", "KEEP_LINUX_GPU"]
        effort_days = [1.0, 2.0]

        [[must_find]]
        path = "train.py"
        lines = [7]
        category = "cuda-call"
        problem = "x.cuda()"
        severity = "blocker"

        [[must_not_block]]
        path = "requirements.txt"
        lines = [2]
        why = "a CUDA-only wheel is reported at error severity"
        """)
    figures = work / "real.json"
    completed = run(devset, "--json", str(figures))
    check(completed.returncode == 0, f"real binary: exit {completed.returncode}: {completed.stderr}")
    if completed.returncode != 0:
        return
    repo = json.loads(figures.read_text())["repositories"][0]
    check(repo["verdict"] in ("ADAPT", "DUAL", "KEEP_LINUX_GPU") and repo["verdict_agreed"], f"verdict {repo}")
    check(repo["must_find_found"] == 1, "the real report's .cuda() finding is matched")
    check(repo["must_not_block_errors"] == 1, "the real report's error severity is read")
    low, high = repo["effort"]["report_hours"]
    check(repo["effort"]["report_member"] == "recommended_hours" and 0 < low <= high, f"effort {repo['effort']}")


def main():
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        check_fake_devset(work)
        check_absent_devset(work)
        check_real_binary(work)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    os.environ.pop("PYTHONPATH", None)
    sys.exit(main())
