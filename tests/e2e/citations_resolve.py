#!/usr/bin/env python3
"""Every citation a user sees resolves: each rule's and each package's
`sources` in rules/*.toml, and each `source` of rules/effort.toml, starts with
an https URL or a file under docs/ that exists, and when it names an anchor
(`docs/knowledge/build.md#bld01-...`), the file has a heading with that
GitHub anchor or an explicit <a id="...">. Nothing cites the research notes
users do not have (`shared/...`), and no GitHub short form (owner/repo#123)
is left unexpanded."""
import glob
import os
import re
import sys
import tomllib

SHORT_FORM = re.compile(r"(?<![\w/])[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+ ?#\d+|\b(?:PR|issue) #\d+")


def github_anchor(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        anchors = set()
        in_code = False
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            heading = re.match(r"#{1,6} (.*)", line)
            if heading:
                anchors.add(github_anchor(heading.group(1)))
            anchors.update(re.findall(r'<a id="([^"]+)"', line))
        cache[path] = anchors
    return cache[path]


def problem_with(source, root):
    """None when `source` resolves, else why not."""
    if "shared/" in source:
        return "cites shared/, which users do not have"
    if SHORT_FORM.search(source):
        return "a GitHub short form; write the https URL"
    target = re.split(r"[\s,;]", source, maxsplit=1)[0].rstrip(":")
    if target.startswith("https://"):
        return None
    if not target.startswith("docs/"):
        return "neither a docs/ file nor an https URL"
    path, _, anchor = target.partition("#")
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        return f"{path} does not exist"
    if anchor and anchor not in anchors_of(full):
        return f"{path} has no heading or <a id> for #{anchor}"
    return None


def sources_of(document):
    """(where, source) for every citation in one parsed rules file."""
    for table in document.values():
        entries = table if isinstance(table, list) else [table]
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            name = entry.get("id") or entry.get("name") or "?"
            for source in entry.get("sources", []):
                yield name, source
            if isinstance(entry.get("source"), str):
                yield name, entry["source"]
            for value in entry.values():
                if isinstance(value, dict) and isinstance(value.get("source"), str):
                    yield name, value["source"]


def main():
    root = sys.argv[1]
    failures, count = [], 0
    for path in sorted(glob.glob(os.path.join(root, "rules", "*.toml"))):
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
        for name, source in sources_of(document):
            count += 1
            problem = problem_with(source, root)
            if problem:
                failures.append(f"{os.path.basename(path)} {name}: {source!r}: {problem}")
    if count < 300:
        failures.append(f"only {count} citations found: the walk over rules/*.toml missed some")
    for failure in failures:
        print("FAIL:", failure, file=sys.stderr)
    if failures:
        return 1
    print(f"{count} citations resolve: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
