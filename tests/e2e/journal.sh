#!/bin/sh
# End to end: incidents in the systemd journal. The example compositor runs
# a scenario (history.scn: a fallback, a failure, a fallback after it, a
# restore on a replug; step-up.scn: a fallback, a step down while the link
# flaps, the step back up) beside a systemd-journald of the test's own;
# each incident must be one journal entry of the compositor with
# linkguard's MESSAGE_ID, whose fields say what linkctl history --json says
# of it, field by field, in the same order, with the outcomes OUTCOMES.
#
#   journal.sh EXAMPLE LINKCTL SCENARIO OUTCOMES [OPTION...]
#
# OUTCOMES: the incidents' outcomes in order, e.g. "degraded held step-up";
# the options go to the example compositor.
#
# The journald runs in a private mount and PID namespace: its /run and
# /var/log are the test's (nothing of a system journal, or of another
# test's, is seen or written), and it dies with the test. Skips (exit 77)
# without root, which that namespace needs, or without systemd-journald.
set -u

usage="usage: $0 EXAMPLE LINKCTL SCENARIO OUTCOMES [OPTION...]"
example=${1:?$usage}
linkctl=${2:?$usage}
scenario=${3:?$usage}
outcomes=${4:?$usage}
journald=/usr/lib/systemd/systemd-journald
message_id=5c548605d3584d7ca4d0bf7a8cd169f1 # linkguard(7), JOURNAL

[ -x "$journald" ] || { echo "SKIP: no $journald"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: a journald of the test's own needs root (mount namespace)"; exit 77; }
if [ -z "${LG_JOURNAL_NAMESPACE:-}" ]; then
	exec env LG_JOURNAL_NAMESPACE=1 unshare --mount --pid --fork --mount-proc \
		--propagation private "$0" "$@"
fi
shift 4 # the compositor's options are left
mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/log ||
	{ echo "FAIL: cannot mount the namespace's /run and /var/log"; exit 1; }

LG_LOG_NAME=compositor LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

"$journald" >"$dir/journald.log" 2>&1 &
lg_pids="$lg_pids $!"
tries=50
until [ -S /run/systemd/journal/socket ]; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || fail "journald did not open its socket in 5 s: $(cat "$dir/journald.log")"
	sleep 0.1
done
ok "systemd-journald listens in the test's namespace"

count=$(echo $outcomes | wc -w)
start_server "$example" --sim "$scenario" "$@"
wait_for_log 'DP-1: incident: ' 30 "$count"
ok "the compositor recorded $count incidents"
run_status st timeout 5 "$linkctl" history DP-1 --json >"$dir/history.json" 2>"$dir/history.err"
[ "$st" -eq 0 ] || fail "linkctl history DP-1 --json: exit $st: $(cat "$dir/history.err")"

# journald writes each entry as it comes; the reader may still be a moment
# behind the last.
tries=50
while :; do
	journalctl -D /run/log/journal --no-pager -o json "MESSAGE_ID=$message_id" \
		>"$dir/journal.jsonl" 2>"$dir/journal.err" ||
		fail "journalctl failed: $(cat "$dir/journal.err")"
	[ "$(wc -l <"$dir/journal.jsonl")" -lt "$count" ] || break
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || fail "not $count entries with MESSAGE_ID=$message_id after 5 s: $(cat "$dir/journal.jsonl")"
	sleep 0.1
done
echo "== journalctl MESSAGE_ID=$message_id -o json, the first entry"
head -n 1 "$dir/journal.jsonl"

python3 - "$dir/history.json" "$dir/journal.jsonl" "$pid" "$outcomes" <<'PY' ||
import json, sys
incidents = json.load(open(sys.argv[1]))["connectors"][0]["incidents"]
entries = [json.loads(line) for line in open(sys.argv[2])]
pid = sys.argv[3]
assert [i["outcome"] for i in incidents] == sys.argv[4].split(), incidents
assert len(entries) == len(incidents), "%d entries for %d incidents:\n%s" % (
    len(entries), len(incidents), "\n".join(map(repr, entries)))

def mode(m):
    return None if m is None else "%dx%d@%d.%03d" % (
        m["width"], m["height"], m["refresh_mhz"] // 1000, m["refresh_mhz"] % 1000)
def link(l):
    return None if l is None else "%d x %d Mbit/s" % (l["lanes"], l["rate_mbps"])
PRIORITY = {"failed": "4", "degraded": "5", "held": "5"}

for incident, entry in zip(incidents, entries):
    want = {
        "_PID": pid,
        "PRIORITY": PRIORITY.get(incident["outcome"], "6"),
        "LINKGUARD_CONNECTOR": "DP-1",
        "LINKGUARD_MONITOR": "4k60", # the simulated monitor's identity
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
    assert entry["MESSAGE"].startswith("DP-1: incident: %s, " % incident["outcome"]), entry
print("ok: %d journal entries, field by field as linkctl history --json: %s" % (len(entries), ", ".join(
    "%s (%s)" % (e["LINKGUARD_OUTCOME"], e["LINKGUARD_REASON"]) for e in entries)))
PY
	fail "the journal does not say what the history says"
