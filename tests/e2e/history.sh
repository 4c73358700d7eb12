#!/bin/sh
# End to end: the incident history. The example compositor runs a link
# through a fallback, a failure, a fallback after it and a restore on a
# replug (history.scn); linkctl history must list the four incidents, the
# same in its table and in its JSON, as the DisplayPort link budget says
# they went. Then the exit statuses: a connector that does not exist, and
# compositors that speak version 1 or 2 of the protocol only (lg-old-server).
#
#   history.sh EXAMPLE LINKCTL OLD_SERVER SCENARIO
set -u

example=${1:?usage: $0 EXAMPLE LINKCTL OLD_SERVER SCENARIO}
linkctl=${2:?usage: $0 EXAMPLE LINKCTL OLD_SERVER SCENARIO}
old_server=${3:?usage: $0 EXAMPLE LINKCTL OLD_SERVER SCENARIO}
scenario=${4:?usage: $0 EXAMPLE LINKCTL OLD_SERVER SCENARIO}

LG_LOG_NAME=compositor LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

since=$(date +%s)
start_server "$example" --sim "$scenario"
follow_incidents 4 30
until=$(date +%s)
ok "the compositor recorded 4 incidents"

run_status st timeout 5 "$linkctl" history >"$dir/history.txt" 2>"$dir/history.err"
[ "$st" -eq 0 ] || fail "linkctl history: exit $st: $(cat "$dir/history.err")"
run_status st timeout 5 "$linkctl" history DP-1 --json >"$dir/history.json" 2>"$dir/history.err"
[ "$st" -eq 0 ] || fail "linkctl history DP-1 --json: exit $st: $(cat "$dir/history.err")"
python3 - "$dir/history.json" "$dir/history.txt" "$since" "$until" <<'PY' ||
import json, sys, time
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
since, until = int(sys.argv[3]), int(sys.argv[4])
assert doc["version"] == 1, doc
assert [c["name"] for c in doc["connectors"]] == ["DP-1"], doc
incidents = doc["connectors"][0]["incidents"]

def mode(w, h, r):
    return {"width": w, "height": h, "refresh_mhz": r}
def link(lanes, rate):
    return {"lanes": lanes, "rate_mbps": rate}
UHD60, UHD30, QHD60 = mode(3840, 2160, 60000), mode(3840, 2160, 30000), mode(2560, 1440, 59951)
# i915 trains a mode at the lowest rate that carries it: 4K60 (533.25 MHz)
# at 30 bpp needs 16 Gbit/s, HBR2 x4 carries 17.28. A cable that holds HBR
# (8.64 Gbit/s) prunes 4K60 even at 18 bpp (9.6): 4K30 runs at HBR x4. At
# RBR x4 (5.18 Gbit/s) 4K30 (297 MHz, 5.35 at 18 bpp) is pruned too and
# the refused commits fail; once the kernel takes modes again the next
# try lands on 2560x1440@60 (241.5 MHz, 4.35). The replug trains the healed
# cable from the top, and the requested 4K60 is back at HBR2 x4.
want = [
    ("degraded", "mode-pruned", UHD60, UHD30, link(4, 5400), link(4, 2700)),
    ("failed", "all-rejected", UHD30, UHD30, link(4, 2700), link(4, 2700)),
    ("degraded", "mode-pruned", UHD30, QHD60, link(4, 2700), link(4, 1620)),
    ("restored", "mode-pruned", QHD60, UHD60, link(4, 1620), link(4, 5400)),
]
got = [(i["outcome"], i["reason"], i["mode_before"], i["mode_after"],
        i["link_before"], i["link_after"]) for i in incidents]
assert got == want, "incidents:\n%s\nwant:\n%s" % (
    "\n".join(map(repr, got)), "\n".join(map(repr, want)))
times = [float(i["time"]) for i in incidents]
assert times == sorted(times), "times go back: %r" % times
assert since <= times[0] and times[-1] <= until + 1, (since, times, until)
# A fallback is an incident until the link held it for the settle time.
for i in (incidents[0], incidents[2]):
    assert i["duration_ms"] >= 500, i
print("ok: linkctl history --json: %s" % ", ".join(
    "%s (%s)" % (i["outcome"], i["reason"]) for i in incidents))

# The table says the same: one row per incident, oldest first.
assert text[0] == "DP-1: 4 incidents, oldest first", text
assert text[1].split() == ["BEGAN", "OUTCOME", "REASON", "MODE", "BEFORE", "AFTER",
                           "LINK", "BEFORE", "AFTER", "TOOK"], text[1]
rows = [l.split() for l in text[2:]]
assert len(rows) == len(incidents), text
RATES = {1620: "RBR", 2700: "HBR", 5400: "HBR2", 8100: "HBR3"}
def mode_text(m):
    return "%dx%d@%.3f" % (m["width"], m["height"], m["refresh_mhz"] / 1000)
def link_text(l):
    return [RATES[l["rate_mbps"]], "x%d" % l["lanes"]]
for row, i in zip(rows, incidents):
    began = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(float(i["time"]))))
    want_row = (began.split() + [i["outcome"], i["reason"], mode_text(i["mode_before"]),
                "->", mode_text(i["mode_after"])] + link_text(i["link_before"]) +
                ["->"] + link_text(i["link_after"]) + [str(i["duration_ms"]), "ms"])
    assert row == want_row, "row %r, want %r" % (row, want_row)
print("ok: linkctl history: the same %d incidents in its table" % len(rows))
PY
	fail "linkctl history wrong: $(cat "$dir/history.txt") $(cat "$dir/history.json")"
cat "$dir/history.txt"

run_status st timeout 5 "$linkctl" history --json >"$dir/all.json" 2>"$dir/history.err"
[ "$st" -eq 0 ] || fail "linkctl history --json: exit $st"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a != b)' \
	"$dir/all.json" "$dir/history.json" ||
	fail "every connector's history differs from DP-1's alone: $(cat "$dir/all.json")"
ok "linkctl history --json without a name: every connector (DP-1)"

run_status st timeout 5 "$linkctl" history DP-9 >"$dir/out.txt" 2>"$dir/history.err"
[ "$st" -eq 4 ] || fail "linkctl history DP-9: exit $st, want 4"
grep -qxF 'linkctl: no connector named DP-9' "$dir/history.err" ||
	fail "linkctl history DP-9 said: $(cat "$dir/history.err")"
[ ! -s "$dir/out.txt" ] || fail "linkctl history DP-9 printed: $(cat "$dir/out.txt")"
ok "linkctl history DP-9: exit 4, no connector named DP-9"
stop_server
grep -Eq 'linkguard-example: 2 outputs created, 1 destroyed' "$log" ||
	fail "the compositor did not exit cleanly after the replug"

for version in 1 2; do
	start_server "$old_server" "$version"
	run_status st timeout 5 "$linkctl" history >"$dir/out.txt" 2>"$dir/history.err"
	[ "$st" -eq 9 ] || fail "history from a version $version compositor: exit $st, want 9"
	grep -qF "version $version, which keeps no history" "$dir/history.err" ||
		fail "history from a version $version compositor said: $(cat "$dir/history.err")"
	run_status st timeout 5 "$linkctl" history DP-1 --json >"$dir/out.txt" 2>"$dir/history.err"
	[ "$st" -eq 9 ] || fail "history --json from a version $version compositor: exit $st, want 9"
	[ ! -s "$dir/out.txt" ] || fail "linkctl history printed: $(cat "$dir/out.txt")"
	run_status st timeout 5 "$linkctl" --json >"$dir/out.txt" 2>"$dir/history.err"
	[ "$st" -eq 0 ] || fail "linkctl --json from a version $version compositor: exit $st"
	stop_server
	ok "a version $version compositor: linkctl history exits 9, saying why; linkctl lists as before"
done
