#!/usr/bin/env python3
"""Every interface, request, event, enum, entry and argument of a protocol
XML carries documentation: a <description> with a summary (and text for
interfaces, requests and events), or a summary attribute (entries, args);
and every interface a client can misuse (one with a request besides its
destructor) has an error enum."""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
problems = []
if root.find("description") is None:
    problems.append("protocol has no description")
for iface in root.iter("interface"):
    iname = iface.get("name")
    if not iface.get("version"):
        problems.append(f"{iname}: no version")
    for el in [iface] + list(iface):
        if el.tag not in ("interface", "request", "event", "enum"):
            continue
        name = f"{iname}.{el.get('name')}" if el is not iface else iname
        desc = el.find("description")
        if desc is None or not desc.get("summary"):
            problems.append(f"{name}: no description summary")
        elif el.tag != "enum" and not (desc.text or "").strip():
            problems.append(f"{name}: empty description")
        for child in el:
            if child.tag in ("arg", "entry") and not child.get("summary"):
                problems.append(f"{name}.{child.get('name')}: no summary")
    misusable = any(r.get("type") != "destructor" for r in iface.findall("request"))
    if misusable and iface.find("enum[@name='error']") is None:
        problems.append(f"{iname}: no error enum")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
