#!/usr/bin/env python3
"""Files call down, never back up: in a static library, each object's
undefined symbols resolved to the object that defines them make a graph of
which file calls which; a circle in it (a.c calls b.c, which calls back
into a.c, directly or through others) fails, named file by file.

    layers.py NM ARCHIVE...

Reads `nm -A` of each archive: "ARCHIVE:OBJECT:[ADDRESS] TYPE NAME".
"""
import subprocess
import sys


def graph(nm, archive):
    out = subprocess.run([nm, "-A", archive], check=True, capture_output=True,
        text=True).stdout
    defined, used = {}, {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2 or ":" not in fields[0]:
            continue # the archive's index, an object's empty line
        # "ARCHIVE:OBJECT:" or "ARCHIVE:OBJECT:ADDRESS"
        # "DIR/src_sink.c.o" (meson's name for src/sink.c) as "src_sink.c"
        obj = fields[0].rsplit(":", 2)[1].rsplit("/", 1)[-1].removesuffix(".o")
        kind, name = fields[-2], fields[-1]
        used.setdefault(obj, set())
        if kind == "U":
            used[obj].add(name)
        elif kind.isupper():
            defined[name] = obj
    return {obj: sorted({defined[name] for name in names if name in defined} - {obj})
        for obj, names in used.items()}


def circles(edges):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in edges.get(node, ()):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def cycle_in(edges, component):
    """One circle through the component's first file, as a path."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}

    def walk(node):
        for succ in edges.get(node, ()):
            if succ == start:
                return True
            if succ in members and succ not in seen:
                seen.add(succ)
                path.append(succ)
                if walk(succ):
                    return True
                path.pop()
        return False

    walk(start)
    return path + [start]


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    sys.setrecursionlimit(10000)
    status = 0
    for archive in argv[2:]:
        edges = graph(argv[1], archive)
        calls = sum(len(succ) for succ in edges.values())
        print(f"{archive}: {len(edges)} files, {calls} calls between them")
        if not edges:
            print(f"FAIL: {archive} has no object files")
            status = 1
        for component in circles(edges):
            status = 1
            print(f"FAIL: a circle of {len(component)} files: "
                + " -> ".join(cycle_in(edges, component)))
            for obj in component:
                inside = [succ for succ in edges[obj] if succ in component]
                print(f"  {obj} calls {', '.join(inside)}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
