#!/usr/bin/env python3
"""Checks what `linkctl watch --waybar` printed for DP-1.

    check-waybar.py LINES LIST_JSON every-class|steady

LINES is the watch's output, LIST_JSON what `linkctl --json` printed then
(the monitor's description as linkctl reads it: the oracle for the names in
the lines). Every line must be strict JSON in UTF-8 with exactly text,
tooltip, class and alt, the class must follow from alt, and text and tooltip
must be well-formed Pango markup (XML's rules, no elements) that says the
connector and its monitor. every-class: the lines went through good,
degraded, flapping, failed and good (tests/scenarios/every-class.scn), with
the sentences for each. steady: one line, good.
"""
import json
import sys
import xml.etree.ElementTree as ET

CLASS_OF_ALT = {
    "good": "good",
    "bad": "degraded",
    "retraining": "degraded",
    "degraded": "degraded",
    "flapping": "flapping",
    "failed": "failed",
}


def plain(markup):
    """The text of a Pango markup string without elements; fails otherwise."""
    root = ET.fromstring("<markup>" + markup + "</markup>")
    assert len(root) == 0, "markup with elements: %r" % markup
    return root.text or ""


def check_line(line, who):
    obj = json.loads(line)  # strict: no raw control characters
    assert isinstance(obj, dict) and set(obj) == {"text", "tooltip", "class", "alt"}, obj
    assert all(isinstance(v, str) for v in obj.values()), obj
    assert obj["alt"] in CLASS_OF_ALT, obj
    assert obj["class"] == CLASS_OF_ALT[obj["alt"]], obj
    text, tooltip = plain(obj["text"]), plain(obj["tooltip"])
    assert tooltip.startswith(who), "tooltip %r does not start with %r" % (tooltip, who)
    if obj["class"] == "good":
        assert text == "", obj
    else:
        assert text.startswith("DP-1 "), obj
    return obj["class"], obj["alt"], text, tooltip[len(who):]


def main():
    raw = open(sys.argv[1], "rb").read()
    lines = raw.decode("utf-8").splitlines()  # strict UTF-8
    listed = json.loads(open(sys.argv[2], "rb").read().decode("utf-8"))
    desc = listed["connectors"][0]["description"]
    who = "DP-1 (%s): " % desc
    assert lines, "no line"
    assert all(a != b for a, b in zip(lines, lines[1:])), "a line repeated"
    seen = [check_line(line, who) for line in lines]
    if sys.argv[3] == "steady":
        assert len(seen) == 1, seen
        assert seen[0] == ("good", "good", "", "3840x2160@60, the link holds."), seen
        print("ok: one good line for %s" % json.dumps(desc))
        return
    classes = [c for c, _, _, _ in seen]
    order = ["good", "degraded", "flapping", "failed", "good"]
    at = 0
    for c in classes:
        if at < len(order) and c == order[at]:
            at += 1
    assert at == len(order), "classes %r, want %r in turn" % (classes, order)
    said = {alt: (text, sentence) for _, alt, text, sentence in seen}
    assert said["degraded"] == ("DP-1 3840x2160@30",
        "the cable no longer carries 3840x2160@60; now 3840x2160@30. "
        "Try another cable or a lower refresh rate."), said["degraded"]
    assert said["flapping"][1].startswith(
        "the link keeps dropping; held at 1920x1080@60"), said["flapping"]
    assert said["failed"][1].startswith("no mode works on this link"), said["failed"]
    assert seen[-1][3] == "3840x2160@60, the link holds.", seen[-1]
    print("ok: %d lines, classes in turn: %s" % (len(lines), " ".join(
        c for i, c in enumerate(classes) if i == 0 or classes[i - 1] != c)))


main()
