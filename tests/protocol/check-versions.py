#!/usr/bin/env python3
"""A protocol XML grows compatibly: messages are numbered by their order, so
within each interface the requests, and the events, of a version come after
all those of earlier versions (what a version 1 client decodes keeps its
opcode); no message is newer than its interface; and an interface created
through another's new_id is at least that interface's version (the child
object inherits the parent's version)."""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
problems = []
versions = {i.get("name"): int(i.get("version")) for i in root.iter("interface")}
for iface in root.iter("interface"):
    iname, iversion = iface.get("name"), versions[iface.get("name")]
    for kind in ("request", "event"):
        last = 1
        for msg in iface.findall(kind):
            since = int(msg.get("since", "1"))
            name = f"{iname}.{msg.get('name')}"
            if since < last:
                problems.append(f"{name}: since {since} after a {kind} of version {last}")
            if since > iversion:
                problems.append(f"{name}: since {since} > interface version {iversion}")
            last = max(last, since)
            for arg in msg.findall("arg"):
                child = arg.get("interface")
                if arg.get("type") == "new_id" and child in versions and \
                        versions[child] < iversion:
                    problems.append(f"{name}: creates {child} version {versions[child]} "
                                    f"from version {iversion}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
