#!/usr/bin/env python3
"""HushKit's public surface, one line per symbol, from its symbol graph.

    api-surface.py SYMBOLS.json --check docs/HushKit-API.txt   (make docs)
    api-surface.py SYMBOLS.json --write docs/HushKit-API.txt   (after a deliberate change)

The file is the promise to apps (semantic versioning): a check that finds a
line gone or changed is a breaking change, which needs a new major version in
the file's first line; a line added is a new feature (a minor version). Either
way the file is rewritten on purpose, in the same commit as the change."""
import json
import re
import sys


def surface(path):
    graph = json.load(open(path))
    lines = set()
    for symbol in graph["symbols"]:
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"] or not symbol.get("location"):
            continue
        declaration = "".join(fragment["spelling"] for fragment in symbol["declarationFragments"])
        declaration = re.sub(r"\s+", " ", declaration).strip()
        lines.add(f"{'.'.join(symbol['pathComponents'])}: {declaration}")
    return sorted(lines)


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ("--check", "--write"):
        sys.exit(__doc__)
    current = surface(sys.argv[1])
    target = sys.argv[3]
    if sys.argv[2] == "--write":
        try:
            version = open(target).readline().strip()
        except FileNotFoundError:
            version = "HushKit 0.1.0"
        with open(target, "w") as out:
            out.write(version + "\n" + "\n".join(current) + "\n")
        print(f"{target}: {len(current)} public symbols ({version})")
        return
    recorded = open(target).read().splitlines()
    version, promised = recorded[0], set(recorded[1:])
    removed = sorted(promised - set(current))
    added = sorted(set(current) - promised)
    for line in removed:
        print(f"gone or changed (a breaking change: a new major version): {line}")
    for line in added:
        print(f"new (a new minor version): {line}")
    if removed or added:
        print(f"HushKit's public API differs from {target} ({version}): if that is meant, bump the version in "
              f"its first line and run scripts/api-surface.py SYMBOLS --write {target}")
        sys.exit(1)
    print(f"HushKit's public API matches {target} ({version}, {len(current)} symbols)")


if __name__ == "__main__":
    main()
