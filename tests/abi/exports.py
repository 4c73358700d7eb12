#!/usr/bin/env python3
"""A shared library exports what it promises and nothing else: compares its
defined dynamic symbols (nm -D --defined-only) with the functions declared in
a directory of public headers, or with the names given, and fails on any
difference in either direction.

    exports.py NM LIBRARY --headers DIR
    exports.py NM LIBRARY --symbols NAME...
"""
import pathlib
import re
import subprocess
import sys

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# A preprocessor line with its continuations: the headers' macros are
# definitions, not declarations.
DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
ATTRIBUTE = re.compile(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")
# A name followed by its parameter list; "type (*name)(...)" is a function
# pointer, not a declaration of a function.
DECLARATION = re.compile(r"\b([A-Za-z_]\w*)\s*\((?!\s*\*)")


def exported(nm, library):
    out = subprocess.run([nm, "-D", "--defined-only", library],
        check=True, capture_output=True, text=True).stdout
    # "ADDRESS TYPE NAME[@@VERSION]"
    return {line.split()[2].split("@")[0] for line in out.splitlines() if line.strip()}


def declared(directory):
    names = set()
    for header in pathlib.Path(directory).glob("*.h"):
        text = COMMENT.sub(" ", header.read_text())
        text = DIRECTIVE.sub(" ", text)
        text = ATTRIBUTE.sub(" ", text)
        names |= set(DECLARATION.findall(text))
    return names


def main(argv):
    if len(argv) < 5 or argv[3] not in ("--headers", "--symbols") or \
            (argv[3] == "--headers" and len(argv) != 5):
        sys.exit(__doc__)
    nm, library, kind = argv[1:4]
    actual = exported(nm, library)
    if kind == "--headers":
        expected, what = declared(argv[4]), f"declared in {argv[4]}"
    else:
        expected, what = set(argv[4:]), "listed"
    print(f"{library}: {len(actual)} symbols exported, {len(expected)} functions {what}")
    extra, missing = sorted(actual - expected), sorted(expected - actual)
    for name in extra:
        print(f"exported but not {what}: {name}")
    for name in missing:
        print(f"{what} but not exported: {name}")
    return 1 if extra or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
