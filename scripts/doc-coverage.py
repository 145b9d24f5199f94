#!/usr/bin/env python3
"""Lists the public symbols of a module's symbol graph that have no doc
comment, and fails when there is one: `make docs` runs it on HushKit.

Symbols the compiler made (memberwise initialisers, synthesized conformances)
and those a protocol's extension in another module provides are not the
module's to document and are skipped."""
import json
import sys


def undocumented(path):
    graph = json.load(open(path))
    module = graph["module"]["name"]
    missing = []
    own = 0
    for symbol in graph["symbols"]:
        identifier = symbol["identifier"]["precise"]
        if "::SYNTHESIZED::" in identifier or symbol.get("accessLevel") not in ("public", "open"):
            continue
        # A default implementation from another module's protocol extension.
        location = symbol.get("location", {}).get("uri", "")
        if not location:
            continue
        own += 1
        if symbol.get("docComment", {}).get("lines"):
            continue
        missing.append((location.split("/")[-1], symbol["location"]["position"]["line"] + 1, ".".join(symbol["pathComponents"])))
    return module, own, missing


def main():
    failed = False
    for path in sys.argv[1:]:
        module, total, missing = undocumented(path)
        for file, line, name in sorted(missing):
            print(f"{file}:{line}: public symbol {name} has no doc comment")
        print(f"{module}: {total} public symbols declared in it, {len(missing)} without a doc comment")
        failed = failed or bool(missing)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
