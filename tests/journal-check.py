#!/usr/bin/env python3
"""Each incident linkctl history --json shows of one connector is one entry
in the systemd journal (journalctl -o json, one object a line, with
linkguard's MESSAGE_ID), logged by the compositor, in the same order, whose
fields say what the history says, field by field (linkguard(7), JOURNAL).

    journal-check.py HISTORY_JSON JOURNAL_JSONL PID CONNECTOR MONITOR [OUTCOMES]

MONITOR: the identity of the connector's monitor (from its EDID), which
every entry carries. OUTCOMES: the incidents' outcomes there must be, in
order, one word each (e.g. "degraded held step-up"); without it, at least
one incident of any outcome.
"""
import json
import sys

PRIORITY = {"failed": "4", "degraded": "5", "held": "5"}


def mode(m):
    return None if m is None else "%dx%d@%d.%03d" % (
        m["width"], m["height"], m["refresh_mhz"] // 1000, m["refresh_mhz"] % 1000)


def link(l):
    return None if l is None else "%d x %d Mbit/s" % (l["lanes"], l["rate_mbps"])


def main(argv):
    if len(argv) not in (6, 7):
        sys.exit(__doc__)
    history, journal, pid, connector, monitor = argv[1:6]
    assert monitor, "no monitor identity to look for"
    incidents = json.load(open(history))["connectors"][0]["incidents"]
    entries = [json.loads(line) for line in open(journal)]
    if len(argv) == 7:
        assert [i["outcome"] for i in incidents] == argv[6].split(), incidents
    assert incidents, "linkctl history shows no incident of %s" % connector
    assert len(entries) == len(incidents), "%d entries for %d incidents:\n%s" % (
        len(entries), len(incidents), "\n".join(map(repr, entries)))
    for incident, entry in zip(incidents, entries):
        want = {
            "_PID": pid,
            "PRIORITY": PRIORITY.get(incident["outcome"], "6"),
            "LINKGUARD_CONNECTOR": connector,
            "LINKGUARD_MONITOR": monitor,
            "LINKGUARD_OUTCOME": incident["outcome"],
            "LINKGUARD_REASON": incident["reason"],
            "LINKGUARD_MODE_BEFORE": mode(incident["mode_before"]),
            "LINKGUARD_MODE_AFTER": mode(incident["mode_after"]),
            "LINKGUARD_LINK_BEFORE": link(incident["link_before"]),
            "LINKGUARD_LINK_AFTER": link(incident["link_after"]),
            "LINKGUARD_DURATION_MS": str(incident["duration_ms"]),
        }
        got = {key: entry.get(key) for key in want}
        assert got == want, "entry:\n%r\nwant:\n%r" % (got, want)
        assert entry["MESSAGE"].startswith(
            "%s: incident: %s, " % (connector, incident["outcome"])), entry
    print("ok: %d journal entries, field by field as linkctl history --json: %s" % (
        len(entries), ", ".join("%s (%s)" % (e["LINKGUARD_OUTCOME"], e["LINKGUARD_REASON"])
            for e in entries)))


if __name__ == "__main__":
    main(sys.argv)
