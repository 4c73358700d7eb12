#!/bin/sh
# linkguard-link-v1 end to end, over a real socket, against linkctl and
# lg-link-probe, a raw client. events, linkctl-list and linkctl-watch run
# against the example compositor (linkguard-example, headless, with the
# simulated link); retry, misuse and security against lg-protocol-host (the
# headless backend, linkguard, the simulated link and the protocol server),
# which can sandbox a client (--sandboxed) and withdraw the protocol
# (SIGUSR1).
#
#   link-protocol.sh TEST HOST EXAMPLE PROBE LINKCTL SCENARIO_DIR NOTIFYD
#
# TEST is one of: events, versions, step-up, skipped, linkctl-list, linkctl-watch,
# linkctl-text, retry, misuse, security, reload, sink, waybar, notify-bus,
# notify. Each starts its own compositor in a private XDG_RUNTIME_DIR (and
# XDG_STATE_HOME). NOTIFYD is lg-notifyd, a notification daemon that
# records what it is asked.
set -u

test_name=${1:?usage: $0 TEST HOST EXAMPLE PROBE LINKCTL SCENARIO_DIR NOTIFYD}
host=$2 example=$3 probe=$4 linkctl=$5 scenarios=$6 notifyd=$7

LG_LOG_NAME=compositor LG_LOG_LINES=30
. "$(dirname "$0")/../lib.sh"

# use_host, use_example: which compositor start_host runs, and the line it
# logs when it exits cleanly.
use_host() {
	compositor=$host
	clean_exit='lg-protocol-host: exited cleanly'
}
use_example() {
	compositor=$example
	clean_exit='linkguard-example: [0-9]+ outputs created, 0 destroyed'
}

# start_host SCENARIO [OPTIONS...]
start_host() {
	scn=$scenarios/$1
	shift
	start_server "$compositor" --sim "$scn" "$@"
}

stop_host() {
	stop_server
	grep -Eq "$clean_exit" "$log" || fail "compositor did not exit cleanly"
	ok "compositor exited cleanly"
}

# watch_from_start NAME ARGS...: linkctl watch ARGS in the background
# ($watch_pid; its output in $dir/NAME.out), back once it has the
# compositor's first batch of events, read from its protocol trace
# ($dir/NAME.trace, WAYLAND_DEBUG). The test then gives the cue "watching":
# a scenario's first fault waits for it (every-class.scn, drop-to-hbr.scn),
# so that the watch sees every state from the first, however long it took
# to start.
watch_from_start() {
	name=$1
	shift
	WAYLAND_DEBUG=client "$linkctl" watch "$@" >"$dir/$name.out" 2>"$dir/$name.trace" &
	watch_pid=$!
	wait_for_line "$dir/$name.trace" 'zlg_link_manager_v1[@#][0-9]+\.done\(' 10
}

# probe_from_start OUT ARGS...: lg-link-probe ARGS events in the background
# ($probe_pid), back once OUT has its first batch; stop_probe PID ends it
# (SIGTERM: it takes every event sent until then). The cue "watching" as
# above.
probe_from_start() {
	out=$1
	shift
	"$probe" "$@" events 60 >"$out" &
	probe_pid=$!
	wait_for_line "$out" '^done$' 10
}

stop_probe() {
	kill -TERM "$1"
	reap "$1" 10 || fail "the probe failed or did not stop"
}

# watch_errors NAME: what the watch said on stderr, without its trace.
watch_errors() {
	grep -v '^\[' "$dir/$1.trace"
}

# A DP-1 at 4K30 after the drop, as linkctl --json sees it.
wait_degraded() {
	tries=100
	while :; do
		timeout 5 "$linkctl" --json >"$dir/list.json" 2>"$dir/list.err" ||
			fail "linkctl --json failed: $(cat "$dir/list.err")"
		python3 -c 'import json,sys; c=[c for c in json.load(open(sys.argv[1]))["connectors"] if c["name"]=="DP-1"]; sys.exit(0 if c and c[0]["state"]=="degraded" else 1)' "$dir/list.json" && break
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "DP-1 never degraded: $(cat "$dir/list.json")"
		sleep 0.1
	done
}

test_events() {
	start_host drop-to-hbr.scn
	probe_from_start "$dir/events.txt"
	cue watching
	wait_for_log 'DP-1: incident: ' 20
	stop_probe "$probe_pid"
	python3 - "$dir/events.txt" <<'PY' || fail "event stream wrong: $(cat "$dir/events.txt")"
import sys
lines = [l.split() for l in open(sys.argv[1])]
# Split into batches closed by done.
batches, cur = [], []
for l in lines:
    if l == ["done"]:
        batches.append(cur); cur = []
    else:
        cur.append(l)
assert cur == [], "events after the last done: %r" % cur
first = batches[0]
assert ["connector", "c0"] in first, "DP-1 not announced on bind"
assert first[1] == ["c0", "name", "DP-1"], "name is not the first event: %r" % first
for field in ("connection", "link_status", "state", "requested_mode",
              "current_mode", "allowed_modes_reset", "link_params"):
    assert any(e[1] == field for e in first if e[0] == "c0"), "initial batch lacks " + field
assert ["c0", "state", "0"] in first, "DP-1 not good on bind"
assert ["c0", "current_mode", "3840", "2160", "60000"] in first
# States as batches, in order, each closed by done.
states = [(i, e[2]) for i, b in enumerate(batches) for e in b if e[:2] == ["c0", "state"]]
seq = [s for _, s in states[1:]]
# i915 trains 4K60 at HBR2 x4, its lowest rate that carries it; the cable
# holds HBR: lowered to HBR x4, which prunes 4K60 -> 4K30.
assert seq == ["1", "2", "3"], "states after bind: %r (want bad retraining degraded)" % seq
pos = [i for i, _ in states[1:]]
assert pos == sorted(set(pos)), "states share a batch"
i_bad2, i_re2, i_deg = pos[0], pos[1], pos[2]
fb = [(i, e) for i, b in enumerate(batches) for e in b if e[:2] == ["c0", "fallback"]]
assert len(fb) == 1, "fallbacks: %r" % fb
i, e = fb[0]
assert e[2:9] == ["0", "3840", "2160", "60000", "3840", "2160", "30000"], e
assert i_re2 <= i < i_deg, "fallback not between retraining and degraded"
assert float(e[9]) > 0, "fallback without a time"
bad_status = [i for i, b in enumerate(batches) for e in b if e == ["c0", "link_status", "1"]]
assert bad_status and bad_status[0] <= pos[0], "link_status bad not before state bad"
cur = [i for i, b in enumerate(batches) for e in b if e == ["c0", "current_mode", "3840", "2160", "30000"]]
assert cur and i_bad2 <= cur[0] <= i_re2, "current mode 4K30 not with the recovery"
print("ok: bad -> retraining -> degraded, fallback 4K60 -> 4K30 mode_pruned, %d batches" % len(batches))
PY
	stop_host
}

# Version 1 clients see exactly what they saw before version 2, and
# version 2 clients what they saw before version 3: a version 1, 2 and 3
# client watch the same failure; the version 2 stream without its
# skipped-mode events (and the batches that held only those) is the
# version 1 stream, and the version 3 stream without its incident events
# (and the batches that held only those) the version 2 stream, event for
# event, batch for batch.
test_versions() {
	start_host drop-to-hbr.scn
	since=$(date +%s)
	probes=
	for v in 1 2 3; do
		probe_from_start "$dir/v$v.txt" --version "$v"
		probes="$probes $probe_pid"
	done
	cue watching
	wait_for_log 'DP-1: incident: ' 20
	for p in $probes; do
		stop_probe "$p"
	done
	until=$(date +%s)
	PYTHONPATH=$(dirname "$0") python3 - "$dir/v1.txt" "$dir/v2.txt" "$dir/v3.txt" "$since" "$until" <<'PY' ||
import sys
from probe_stream import batches, without
v1, v2, v3 = batches(sys.argv[1]), batches(sys.argv[2]), batches(sys.argv[3])
since, until = int(sys.argv[4]), int(sys.argv[5])
for v, b in ((1, v1), (2, v2), (3, v3)):
    assert ["c0", "state", "0"] in b[0], "version %d bound after the drop: %r" % (v, b[0])
assert len(v1) >= 5, "too few batches: %r" % v1
skipped = lambda e: len(e) > 1 and e[1].startswith("skipped_mode")
incident = lambda e: len(e) > 1 and e[1].startswith("incident")
setting = lambda e: len(e) > 1 and e[1] == "setting"
sink = lambda e: len(e) > 1 and e[1] == "sink_status"
assert not any(skipped(e) or incident(e) or setting(e) or sink(e) for b in v1 for e in b), \
    "version 1 got skipped modes, incidents, settings or the sink"
assert not any(incident(e) or setting(e) or sink(e) for b in v2 for e in b), \
    "version 2 got incidents, settings or the sink"
# Version 2: the initial batch says nothing is skipped; after the drop 4K60
# is, since it failed a moment ago.
assert ["c0", "skipped_modes_reset"] in v2[0], v2[0]
assert not any(e[1] == "skipped_mode" for e in v2[0] if len(e) > 1), v2[0]
lists = [[e for e in b if skipped(e)] for b in v2]
lists = [l for l in lists if l]
assert len(lists) == 2, "skipped lists sent: %r" % lists
last = lists[-1]
assert last[0] == ["c0", "skipped_modes_reset"] and len(last) == 2, last
mode = last[1]
assert mode[1:5] == ["skipped_mode", "3840", "2160", "60000"], mode
assert since <= int(mode[5]) <= until, "last failed %s not in [%d, %d]" % (mode[5], since, until)
assert without(v2, skipped) == v1, \
    "version 2 minus skipped modes differs from version 1:\n%r\n%r" % (without(v2, skipped), v1)
# Version 3: the initial batch's history is empty; the drop is one
# incident, in a batch of its own: degraded, mode_pruned, 4K60 at HBR2 x4
# to 4K30 at HBR x4 (i915 trains 4K60 at HBR2 x4, its lowest rate that
# carries it; the cable holds HBR), begun at the drop.
assert ["c0", "incidents_reset"] in v3[0], v3[0]
assert not any(e[1] == "incident" for e in v3[0] if len(e) > 1), v3[0]
got = [b for b in v3 if any(incident(e) for e in b)]
assert len(got) == 2 and len(got[1]) == 1, "incident batches: %r" % got
e = got[1][0]
assert e[1:14] == ["incident", "0", "2", "3840", "2160", "60000", "3840", "2160",
                   "30000", "4", "5400", "4", "2700"], e
assert since <= float(e[14]) <= until + 1, "began %s not in [%d, %d]" % (e[14], since, until)
# Recovery came to rest once the fallback held: after the settle time.
assert int(e[15]) >= 500, "took %s ms" % e[15]
# Version 3's initial batch carries every setting, all defaults here (the
# host reads no file); the drop changes none.
settings = [e for e in v3[0] if setting(e)]
assert [e[2] for e in settings] == ["policy", "min-refresh", "min-resolution",
    "flap-count", "flap-window", "recover", "allow-retry", "link-errors-per-min",
    "link-errors-step-down", "read-dpcd"], settings
assert all(e[0] == "c0" and e[4:] == ["0", "-"] for e in settings), settings
assert not any(setting(e) for b in v3[1:] for e in b), "settings after the first batch"
both = lambda e: incident(e) or setting(e) or sink(e)
assert without(v3, both) == v2, \
    "version 3 minus incidents, settings and the sink differs from version 2:\n%r\n%r" % (
        without(v3, both), v2)
print("ok: %d batches for version 1; version 2 the same plus the skipped modes "
      "(%d batches); version 3 the same plus the incidents and settings (%d batches)"
      % (len(v1), len(v2), len(v3)))
PY
		fail "versions differ: v1 $(cat "$dir/v1.txt") v2 $(cat "$dir/v2.txt") v3 $(cat "$dir/v3.txt")"
	stop_host
}

# A step back up (version 4): the way back to 4K30, short of the pruned 4K60,
# is no fallback for any client; its incident is step_up for a version 4
# client and degraded, as it meant there, for a version 3 one, whose stream
# is otherwise the same. linkctl says step-up in its history, table and
# JSON, and its notification says the link stepped up.
test_step_up() {
	start_session_bus
	"$notifyd" >"$dir/notifyd.txt" 2>"$dir/notifyd.err" &
	lg_pids="$lg_pids $!"
	wait_for_line "$dir/notifyd.err" 'serving' 5
	start_host step-up.scn --flap-window 3s
	wait_for_log 'sim: DP-1: link trained' 20
	"$linkctl" watch --notify >"$dir/notify.out" 2>"$dir/notify.err" &
	watch_pid=$!
	# The probes listen from the first training until the step up, however
	# long a loaded machine takes (a fixed window missed it beside CI's
	# guests).
	probe_from_start "$dir/v3.txt" --version 3
	v3_pid=$probe_pid
	probe_from_start "$dir/v4.txt" --version 4
	cue trained
	wait_for_log 'DP-1: incident: step-up, 1920x1080@60\.000 -> 3840x2160@30\.000' 60
	stop_probe "$v3_pid"
	stop_probe "$probe_pid"
	PYTHONPATH=$(dirname "$0") python3 - "$dir/v3.txt" "$dir/v4.txt" <<'PY' ||
import sys
from probe_stream import batches, without
v3, v4 = batches(sys.argv[1]), batches(sys.argv[2])
for v, b in ((3, v3), (4, v4)):
    assert ["c0", "state", "0"] in b[0], "version %d bound after the drop: %r" % (v, b[0])
# Two fallbacks, both down: 4K60 -> 4K30 (mode_pruned), 4K30 -> 1080p
# (flapping); the way back up to 4K30 is none.
for v, b in ((3, v3), (4, v4)):
    fb = [e[2:9] for x in b for e in x if e[1:2] == ["fallback"]]
    assert fb == [["0", "3840", "2160", "60000", "3840", "2160", "30000"],
                  ["3", "3840", "2160", "30000", "1920", "1080", "60000"]], \
        "version %d fallbacks: %r" % (v, fb)
incidents = lambda b: [e[1:10] for x in b for e in x if e[1:2] == ["incident"]]
want = [["incident", "0", "2", "3840", "2160", "60000", "3840", "2160", "30000"],
        ["incident", "3", "3", "3840", "2160", "30000", "1920", "1080", "60000"],
        ["incident", "0", "6", "1920", "1080", "60000", "3840", "2160", "30000"]]
assert incidents(v4) == want, "version 4 incidents: %r" % incidents(v4)
want[2][2] = "2"
assert incidents(v3) == want, "version 3 incidents: %r" % incidents(v3)
# Otherwise the same stream, event for event, as far as both recorded it.
# The sink's reads are left out: they run off the event loop, and a probe
# that binds before the first one answers sees it in a batch of its own.
def strip(b):
    b = without(b, lambda e: e[1:2] == ["sink_status"])
    return [[e[:3] + e[4:] if e[1:2] == ["incident"] else e for e in x] for x in b]
s3, s4 = strip(v3), strip(v4)
n = min(len(s3), len(s4))
assert n >= 8 and s3[:n] == s4[:n], \
    "version 3 and 4 differ beyond the outcome:\n%r\n%r" % (v3, v4)
print("ok: no fallback for the step up; its incident step_up (version 4), "
      "degraded (version 3); %d batches alike" % len(v4))
PY
		fail "step up streams wrong: v3 $(cat "$dir/v3.txt") v4 $(cat "$dir/v4.txt")"

	timeout 5 "$linkctl" history DP-1 --json >"$dir/history.json" ||
		fail "linkctl history --json failed"
	timeout 5 "$linkctl" history DP-1 >"$dir/history.txt" ||
		fail "linkctl history failed"
	python3 - "$dir/history.json" "$dir/history.txt" <<'PY' ||
import json, sys
incidents = json.load(open(sys.argv[1]))["connectors"][0]["incidents"]
got = [(i["outcome"], i["reason"]) for i in incidents]
assert got == [("degraded", "mode-pruned"), ("held", "flapping"),
               ("step-up", "mode-pruned")], got
rows = [l.split() for l in open(sys.argv[2]).read().splitlines()[2:]]
assert [r[2:4] + r[4:7] for r in rows][-1] == ["step-up", "mode-pruned",
    "1920x1080@60.000", "->", "3840x2160@30.000"], rows
print("ok: linkctl history: %s" % ", ".join("%s (%s)" % g for g in got))
PY
		fail "linkctl history wrong: $(cat "$dir/history.txt" "$dir/history.json")"

	wait_for_line "$dir/notifyd.txt" 'summary=DP-1: link stepped up' 10
	kill -INT "$watch_pid"
	reap "$watch_pid" 10 || fail "watch --notify did not exit 0: $(cat "$dir/notify.err")"
	grep -qF 'summary=DP-1: link stepped up|body=DP-1 (Simulated 4K60 monitor (DP, HBR3 x4)): back up from 1920x1080@60, the link holds again; the cable no longer carries 3840x2160@60; now 3840x2160@30. Try another cable or a lower refresh rate.' \
		"$dir/notifyd.txt" || fail "the step up notification: $(cat "$dir/notifyd.txt")"
	! grep -F 'summary=DP-1: link degraded' "$dir/notifyd.txt" | grep -qF 'back up' ||
		fail "a step up told as degraded: $(cat "$dir/notifyd.txt")"
	ok "linkctl watch --notify: DP-1: link stepped up, and why 4K60 does not run yet"
	stop_host
}

# A monitor whose 4K60 failed at 2 starts in a row (the store says so) is
# started at 4K30; linkctl shows the skipped mode with when it last failed
# and how to try it; a retry does, the link holds, and the store forgets it.
test_skipped() {
	mkdir -p "$XDG_STATE_HOME/linkguard"
	printf '%s\n' '# linkguard known-bad modes v2' \
		'DP-1 4k60 3840x2160@60000/533250 2 1700000000 0' \
		>"$XDG_STATE_HOME/linkguard/known-bad"
	start_host steady.scn --allow-retry
	wait_for_log 'DP-1: skipping 3840x2160@60\.000: it failed at 2 start' 10
	wait_degraded
	python3 - "$dir/list.json" <<'PY' || fail "linkctl --json wrong: $(cat "$dir/list.json")"
import json, sys
c = json.load(open(sys.argv[1]))["connectors"][0]
assert c["current_mode"] == {"width": 3840, "height": 2160, "refresh_mhz": 30000}, c
assert c["requested_mode"] == {"width": 3840, "height": 2160, "refresh_mhz": 60000}, c
assert c["skipped_modes"] == [{"width": 3840, "height": 2160, "refresh_mhz": 60000,
    "last_failed": 1700000000, "requested": True}], c["skipped_modes"]
PY
	ok "linkctl --json: 4K60 skipped, last failed at 1700000000, the requested mode"
	timeout 5 "$linkctl" >"$dir/list.txt" || fail "linkctl failed"
	when=$(date -d @1700000000 '+%Y-%m-%d %H:%M:%S')
	grep -qxF '  Skipped modes:' "$dir/list.txt" ||
		fail "no skipped modes: $(cat "$dir/list.txt")"
	grep -qxF "    3840x2160 px, 60.000 Hz, last failed $when; try it now: linkctl retry DP-1" \
		"$dir/list.txt" || fail "skipped mode line wrong: $(cat "$dir/list.txt")"
	ok "linkctl: the skipped mode, when it last failed, and the command that tries it"
	cat "$dir/list.txt"

	timeout 5 "$probe" --version 1 events 0.3 >"$dir/v1.txt" || fail "v1 probe failed"
	! grep -q skipped "$dir/v1.txt" || fail "a version 1 client was told skipped modes"
	ok "a version 1 client is not told"

	run_status st timeout 10 "$linkctl" retry DP-1
	[ "$st" -eq 0 ] || fail "retry of the skipped mode: exit $st, want 0"
	timeout 5 "$linkctl" --json >"$dir/list.json" || fail "linkctl --json failed"
	python3 - "$dir/list.json" <<'PY' || fail "after the retry: $(cat "$dir/list.json")"
import json, sys
c = json.load(open(sys.argv[1]))["connectors"][0]
assert c["state"] == "good", c["state"]
assert c["current_mode"] == {"width": 3840, "height": 2160, "refresh_mhz": 60000}, c
assert c["skipped_modes"] == [], c["skipped_modes"]
PY
	ok "linkctl retry tried the skipped mode; it held and is no longer skipped"
	stop_host
	[ "$(cat "$XDG_STATE_HOME/linkguard/known-bad")" = '# linkguard known-bad modes v3' ] ||
		fail "the store still lists: $(cat "$XDG_STATE_HOME/linkguard/known-bad")"
	ok "the store forgot it"
}

test_linkctl_list() {
	start_host drop-to-hbr.scn
	cue watching # nobody to wait for
	wait_degraded
	python3 - "$dir/list.json" <<'PY' || fail "linkctl --json wrong: $(cat "$dir/list.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["version"] == 1
assert [c["name"] for c in doc["connectors"]] == ["DP-1"], doc
c = doc["connectors"][0]
assert c["connected"] is True
assert c["link_status"] == "good", c["link_status"]
assert c["state"] == "degraded"
assert c["requested_mode"] == {"width": 3840, "height": 2160, "refresh_mhz": 60000}, c["requested_mode"]
assert c["current_mode"] == {"width": 3840, "height": 2160, "refresh_mhz": 30000}, c["current_mode"]
modes = [(m["width"], m["height"], m["refresh_mhz"]) for m in c["allowed_modes"]]
assert (3840, 2160, 30000) in modes, modes
assert (3840, 2160, 60000) not in modes, "4K60 still allowed: %r" % modes
assert all(isinstance(m["preferred"], bool) for m in c["allowed_modes"])
assert c["link"] is None or (c["link"]["lanes"] in (1, 2, 4) and c["link"]["rate_mbps"] > 0), c["link"]
f = c["last_fallback"]
assert f["reason"] == "mode-pruned", f
assert f["from"] == {"width": 3840, "height": 2160, "refresh_mhz": 60000}, f
assert f["to"] == {"width": 3840, "height": 2160, "refresh_mhz": 30000}, f
assert f["time"] > 0
assert isinstance(c["description"], (str, type(None)))
s = c["skipped_modes"]
assert [(m["width"], m["height"], m["refresh_mhz"], m["requested"]) for m in s] == [(3840, 2160, 60000, True)], s
assert s[0]["last_failed"] > 1600000000, s
PY
	ok "linkctl --json: DP-1 degraded at 4K30, requested 4K60, fallback mode-pruned"

	timeout 5 "$linkctl" >"$dir/list.txt" || fail "linkctl failed"
	grep -q '^DP-1' "$dir/list.txt" || fail "no DP-1 block: $(cat "$dir/list.txt")"
	for line in '  Connected: yes' '  Link status: good' '  State: degraded' \
			'  Current mode: 3840x2160 px, 30.000 Hz' \
			'  Requested mode: 3840x2160 px, 60.000 Hz' '  Allowed modes:' \
			'    3840x2160 px, 30.000 Hz'; do
		grep -qxF -- "$line" "$dir/list.txt" && continue
		grep -qF -- "$line" "$dir/list.txt" ||
			fail "no '$line' in: $(cat "$dir/list.txt")"
	done
	grep -Eq '^  Last fallback: 3840x2160 px, 60.000 Hz -> 3840x2160 px, 30.000 Hz \(mode-pruned\) at [0-9]+\.[0-9]{3} s$' "$dir/list.txt" ||
		fail "fallback line wrong: $(cat "$dir/list.txt")"
	grep -Eq '^  Link: ([124] lanes at [0-9]+ Mbit/s|unknown)$' "$dir/list.txt" ||
		fail "link line wrong"
	ok "linkctl: human listing field by field"
	cat "$dir/list.txt"
	stop_host
}

# Both watchers bind before the drop, which waits for them.
test_linkctl_watch() {
	start_host drop-to-hbr.scn
	watch_from_start human
	watch_human=$watch_pid
	watch_from_start json --json
	cue watching
	wait_for_log 'DP-1: incident: ' 20
	wait_degraded
	mv "$dir/json.out" "$dir/watch.jsonl"
	mv "$dir/human.out" "$dir/watch.txt"
	kill -INT "$watch_pid" "$watch_human"
	reap "$watch_pid" 10 || fail "watch --json did not exit 0 on SIGINT"
	reap "$watch_human" 10 || fail "watch did not exit 0 on SIGINT"
	python3 - "$dir/watch.jsonl" <<'PY' || fail "watch --json wrong: $(cat "$dir/watch.jsonl")"
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
assert events[0]["event"] == "added" and events[0]["connector"] == "DP-1", events[0]
assert events[0]["state"]["name"] == "DP-1"
times = [e["time"] for e in events]
assert times == sorted(times), "timestamps go back"
seq = [e["value"] for e in events if e["event"] == "state"]
assert seq == ["bad", "retraining", "degraded"], seq
order = [(e["event"], e.get("value")) for e in events]
first_bad = order.index(("state", "bad"))
i_bad = len(order) - 1 - order[::-1].index(("state", "bad"))
i_re = len(order) - 1 - order[::-1].index(("state", "retraining"))
i_deg = order.index(("state", "degraded"))
fb = [i for i, e in enumerate(events) if e["event"] == "fallback"]
assert len(fb) == 1 and i_re < fb[0] < i_deg, fb
f = events[fb[0]]["value"]
assert f["reason"] == "mode-pruned" and f["from"]["refresh_mhz"] == 60000 and f["to"]["refresh_mhz"] == 30000, f
assert ("link_status", "bad") in order[:first_bad + 1], "link_status bad not before state bad"
cm = [i for i, e in enumerate(events) if e["event"] == "current_mode" and e["value"] and e["value"]["refresh_mhz"] == 30000]
assert cm and i_bad < cm[0] < i_re, "current_mode 4K30 not between bad and retraining"
assert events[0]["state"]["skipped_modes"] == [], events[0]
sk = [i for i, e in enumerate(events) if e["event"] == "skipped_modes"]
assert len(sk) == 1 and i_re < sk[0] < i_deg, (sk, i_re, i_deg)
v = events[sk[0]]["value"]
assert [(m["width"], m["height"], m["refresh_mhz"]) for m in v] == [(3840, 2160, 60000)], v
# Version 3: the recovery, once at rest, is one incident, after degraded.
inc = [i for i, e in enumerate(events) if e["event"] == "incident"]
assert len(inc) == 1 and inc[0] > i_deg, (inc, i_deg)
v = events[inc[0]]["value"]
assert (v["outcome"], v["reason"]) == ("degraded", "mode-pruned"), v
assert (v["mode_before"]["refresh_mhz"], v["mode_after"]["refresh_mhz"]) == (60000, 30000), v
assert (v["link_before"], v["link_after"]) == ({"lanes": 4, "rate_mbps": 5400},
    {"lanes": 4, "rate_mbps": 2700}), v
print("ok: watch --json: %d events in order" % len(events))
PY
	grep -Eq '^[0-9]+\.[0-9]{6} DP-1 state bad$' "$dir/watch.txt" || fail "human watch: $(cat "$dir/watch.txt")"
	grep -Eq '^[0-9]+\.[0-9]{6} DP-1 fallback 3840x2160 px, 60.000 Hz -> 3840x2160 px, 30.000 Hz \(mode-pruned\)' "$dir/watch.txt" ||
		fail "human watch lacks the fallback: $(cat "$dir/watch.txt")"
	grep -Eq '^[0-9]+\.[0-9]{6} DP-1 incident [0-9-]{10} [0-9:]{8}  degraded +mode-pruned +3840x2160@60\.000 -> 3840x2160@30\.000 +HBR2 x4 +-> HBR x4 +[0-9]+ ms$' "$dir/watch.txt" ||
		fail "human watch lacks the incident: $(cat "$dir/watch.txt")"
	ok "watch (human): one line per event with a timestamp"
	cat "$dir/watch.txt"
	stop_host
}

# A monitor description that is not all UTF-8 (an EDID's bytes, relayed):
# linkctl --json must still print valid JSON, with every byte that is not
# UTF-8 and every control character as U+FFFD and the rest (quotes,
# backslashes, slashes, non-ASCII) as sent; the text listing and watch must
# not pass control characters (ESC) to the terminal.
test_linkctl_text() {
	weird=$(printf 'Caf\303\251 "27\\" \377\376 x/y\tz\033[31m \342\202\254 \355\240\200 \300\257 end')
	start_host steady.scn --description "$weird"
	"$linkctl" watch --json >"$dir/watch.jsonl" 2>"$dir/watch.err" &
	watch_pid=$!
	sleep 0.5
	timeout 5 "$linkctl" --json >"$dir/list.json" 2>"$dir/list.err" ||
		fail "linkctl --json failed: $(cat "$dir/list.err")"
	timeout 5 "$linkctl" >"$dir/list.txt" || fail "linkctl failed"
	kill -INT "$watch_pid"
	reap "$watch_pid" 10 || fail "watch --json did not exit 0"
	python3 - "$dir/list.json" "$dir/watch.jsonl" <<'PY' || fail "linkctl --json: $(od -c "$dir/list.json" | head -20)"
import json, sys
# Strict: the bytes must be UTF-8, the text JSON.
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
want = 'Caf\u00e9 "27\\" \ufffd\ufffd x/y\ufffdz\ufffd[31m \u20ac \ufffd\ufffd\ufffd \ufffd\ufffd end'
got = doc["connectors"][0]["description"]
assert got == want, "description %r, want %r" % (got, want)
last = None
for line in open(sys.argv[2], "rb").read().decode("utf-8").splitlines():
    e = json.loads(line)
    if e["event"] == "added":
        last = e["state"]["description"]
    elif e["event"] == "description":
        last = e["value"]
assert last == want, "watch --json: description %r" % last
print("ok: description %s" % json.dumps(got))
PY
	! grep -q "$(printf '\033')" "$dir/list.txt" || fail "linkctl printed an ESC"
	grep -qF "DP-1 \"Café \"27\\\" " "$dir/list.txt" ||
		fail "the text listing lacks the description: $(cat "$dir/list.txt")"
	ok "linkctl: a description that is not all UTF-8 makes valid JSON and a safe listing"
	stop_host
}

test_retry() {
	# Unprivileged (the default): denied.
	start_host steady.scn
	wait_for_log 'DP-1' 10
	sleep 0.5
	run_status st timeout 10 "$linkctl" retry DP-1
	[ "$st" -eq 3 ] || fail "unprivileged retry: exit $st, want 3 (denied)"
	ok "unprivileged retry denied (exit 3)"
	run_status st timeout 10 "$linkctl" retry HDMI-A-9
	[ "$st" -eq 4 ] || fail "retry of an unknown connector: exit $st, want 4"
	ok "unknown connector (exit 4)"
	stop_host

	# Privileged on a steady link: succeeded.
	start_host steady.scn --allow-retry
	sleep 0.5
	run_status st timeout 10 "$linkctl" retry DP-1
	[ "$st" -eq 0 ] || fail "retry on a steady link: exit $st, want 0"
	ok "privileged retry on a link that holds succeeded (exit 0)"
	stop_host

	# Privileged after the drop: the kernel no longer takes 4K60.
	start_host drop-to-hbr.scn --allow-retry
	cue watching # nobody to wait for
	wait_degraded
	run_status st timeout 10 "$linkctl" retry DP-1
	[ "$st" -eq 1 ] || fail "retry after the drop: exit $st, want 1 (failed)"
	timeout 10 "$probe" retry-wait DP-1 | grep -qx 'answer failed rejected' ||
		fail "raw retry after the drop is not 'failed rejected'"
	ok "retry after the drop failed: rejected (exit 1)"
	stop_host

	# The protocol goes away while a retry waits for the link: cancelled.
	start_host steady.scn --allow-retry --settle-ms 3000
	sleep 0.5
	"$linkctl" retry DP-1 >"$dir/retry.txt" 2>&1 &
	retry_pid=$!
	wait_for_log 'retry requested' 5 || fail "linkctl retry: $(cat "$dir/retry.txt")"
	kill -USR1 "$pid"
	reap "$retry_pid" 10
	st=$?
	[ "$st" -eq 6 ] || fail "withdrawn during a retry: exit $st, want 6 (cancelled)"
	ok "retry pending when the protocol is withdrawn: cancelled (exit 6)"
	run_status st timeout 5 "$linkctl"
	[ "$st" -eq 5 ] || fail "linkctl after the withdrawal: exit $st, want 5"
	ok "no global after the withdrawal (exit 5)"
	stop_host
}

test_misuse() {
	start_host steady.scn --allow-retry --settle-ms 3000
	sleep 0.5
	timeout 10 "$probe" stop-twice || fail "stop twice: not error already_stopped"
	ok "stop twice -> zlg_link_manager_v1.already_stopped"
	timeout 10 "$probe" retry-twice DP-1 || fail "two retries: not error retry_pending"
	ok "a second pending retry -> zlg_link_connector_v1.retry_pending"
	timeout 10 "$probe" retry-inert DP-1 || fail "retry on an inert connector: not cancelled"
	ok "retry through a destroyed manager's connector -> cancelled"
	i=0
	while [ $i -lt 20 ]; do
		timeout 5 "$probe" bind-and-leave || fail "bind-and-leave failed"
		i=$((i + 1))
	done
	ok "20 clients bound and left at once"
	sleep 3.2 # the pending retries settle
	timeout 10 "$probe" retry-and-leave DP-1 || fail "retry-and-leave failed"
	ok "a client left with a retry pending"
	timeout 5 "$linkctl" --json >"$dir/list.json" || fail "linkctl fails after misuse"
	grep -q '"DP-1"' "$dir/list.json" || fail "DP-1 gone after misuse"
	ok "the host still serves other clients"
	sleep 3.2
	stop_host
}

# The monitor's view (version 3): a dark link with link-status GOOD, found
# through the sink's DPCD and stepped down (reason sink_unlocked, sent to
# version 1 and 2 clients as known_bad), then symbol errors above the
# threshold (link_errors); linkctl shows the trained link and the sink.
# The sink holds HBR only: 4K60 goes dark at HBR2 x4, is retrained once,
# dark again; the step goes below HBR2 x4, past 4K30 (which i915 trains
# at HBR2 x4 too, at 30 bpp), to 2560x1440@60 at HBR x4: one fallback.
test_sink() {
	start_host dark-link.scn --settle-ms 100 --sink-ms 200
	wait_for_log 'sim: DP-1: link trained' 20
	# The three versions bind before the faults, on the same state (a
	# sanitized probe that bound after the dark spell began saw another
	# first batch), and listen until the errors' verdict ends the
	# scenario, about 6.3 s in on an idle machine.
	for v in 1 2 3; do
		probe_from_start "$dir/v$v.txt" --version "$v"
		eval "probe_$v=\$probe_pid"
	done
	cue trained
	wait_for_log 'DP-1: symbol errors per minute' 45
	for v in 1 2 3; do
		eval "stop_probe \$probe_$v"
	done
	timeout 5 "$linkctl" --json >"$dir/list.json" 2>"$dir/list.err" ||
		fail "linkctl --json failed: $(cat "$dir/list.err")"
	timeout 5 "$linkctl" >"$dir/list.txt" || fail "linkctl failed"
	grep -Eq 'DP-1: the sink has lost the link for [0-9]+ ms with link-status GOOD' "$log" ||
		fail "the dark link was not seen"
	python3 - "$dir" <<'PY' || fail "sink events wrong: $(cat "$dir/v3.txt")"
import json, sys
d = sys.argv[1]
def batches(v):
    out, cur = [], []
    for line in open("%s/v%d.txt" % (d, v)):
        e = line.split()
        if e == ["done"]:
            out.append(cur); cur = []
        else:
            cur.append(e)
    return out
b = {v: batches(v) for v in (1, 2, 3)}
fallbacks = {v: [e for x in b[v] for e in x if e[1:2] == ["fallback"]] for v in b}
for v in (1, 2, 3):
    assert len(fallbacks[v]) == 1, "version %d fallbacks: %r" % (v, fallbacks[v])
    assert [e[3:5] for e in fallbacks[v]] == [["3840", "2160"]], fallbacks[v]
    assert [e[6:8] for e in fallbacks[v]] == [["2560", "1440"]], fallbacks[v]
# sink_unlocked (4) for version 3; known_bad (2) before.
assert [e[2] for e in fallbacks[3]] == ["4"], fallbacks[3]
assert [e[2] for e in fallbacks[1]] == ["2"] == [e[2] for e in fallbacks[2]]
sink = lambda e: e[1:2] == ["sink_status"]
incident = lambda e: len(e) > 1 and e[1].startswith("incident")
assert not any(sink(e) for v in (1, 2) for x in b[v] for e in x), "sink_status below version 3"
statuses = [e for x in b[3] for e in x if sink(e)]
READABLE, ALIGNED, IN_SYNC, ERRORS = 1, 2, 4, 16
# Locked (the dark spells may come before a slow client binds: the log
# says they were seen), and the errors at the end: 4 lanes counted, above
# HBR's 162 a minute.
assert any(int(e[2]) & READABLE and e[3] == "15" for e in statuses), statuses
last = statuses[-1]
assert int(last[2]) == READABLE | ALIGNED | IN_SYNC | ERRORS, last
assert len(last) == 8 and all(int(r) > 162 for r in last[4:]), last
# The incidents: the step down for a dark link, sink-unlocked (9).
incidents = [e for x in b[3] for e in x if e[1:2] == ["incident"]]
assert incidents and all(e[2] == "9" for e in incidents), incidents
# Version 3 without its sink_status events (and its incidents and
# settings) and with the old reasons is version 2; version 2 without
# skipped modes is version 1.
others = lambda e: e[1:2] == ["setting"] or e[1].startswith("incident")
v3 = [[e if e[1:2] != ["fallback"] else e[:2] + ["2"] + e[3:] for e in x
       if not sink(e) and not others(e)] for x in b[3]]
v2 = [[e for e in x if not e[1].startswith("skipped_mode")] for x in b[2]]
strip = lambda bs: [x for x in bs if x]
assert strip(v3) == strip(b[2]), "version 3 minus the sink differs from version 2"
assert strip(v2) == strip(b[1]), "version 2 minus skipped modes differs from version 1"
doc = json.load(open(d + "/list.json"))
c = doc["connectors"][0]
assert c["link"] == {"lanes": 4, "rate_mbps": 2700}, c["link"]
assert c["last_fallback"]["reason"] == "sink-unlocked", c["last_fallback"]
s = c["sink"]
assert s["readable"] and s["decoded"] and s["aligned"] and s["in_sync"], s
assert s["lanes_locked"] == [True] * 4 and s["link_errors"], s
assert len(s["error_rates"]) == 4 and all(r > 162 for r in s["error_rates"]), s
print("ok: versions 1-3 side by side; sink %s" % json.dumps(s))
PY
	grep -q '^  Link: 4 lanes at 2700 Mbit/s$' "$dir/list.txt" ||
		fail "no trained link in the listing: $(cat "$dir/list.txt")"
	grep -Eq '^  Sink: 4 of 4 lanes locked, aligned, in sync; symbol errors a minute per lane:( [0-9]+){4} \(above the threshold: link-errors\)$' \
		"$dir/list.txt" || fail "no sink in the listing: $(cat "$dir/list.txt")"
	grep -q 'Last fallback: 3840x2160 px, 60.000 Hz -> 2560x1440 px, 59.951 Hz (sink-unlocked)' \
		"$dir/list.txt" || fail "no sink-unlocked fallback: $(cat "$dir/list.txt")"
	ok "linkctl: the trained link, the sink's lock and errors"
	stop_host
}

test_security() {
	start_host steady.scn --allow-retry \
		--sandboxed "$linkctl >$dir/sandboxed.out 2>&1; echo \$? >$dir/sandboxed.status"
	tries=50
	while [ ! -s "$dir/sandboxed.status" ]; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "the sandboxed linkctl did not finish"
		sleep 0.1
	done
	[ "$(cat "$dir/sandboxed.status")" = 5 ] ||
		fail "sandboxed linkctl: exit $(cat "$dir/sandboxed.status"), want 5: $(cat "$dir/sandboxed.out")"
	ok "a sandboxed client does not see zlg_link_manager_v1"
	timeout 5 "$linkctl" >/dev/null || fail "an ordinary client does not see it"
	ok "an ordinary client sees it"
	stop_host
}

# linkctl reload against the host: denied unless the host lets clients
# reload (exit 3, nothing read); allowed, the edited file's settings reach
# linkctl; a sandboxed client does not even see the global (exit 5).
test_reload() {
	config=$XDG_CONFIG_HOME/linkguard/config
	mkdir -p "$(dirname "$config")"
	printf '[output DP-1]\nmin-refresh = 120\n' >"$config"
	start_host steady.scn
	printf '[output DP-1]\nmin-refresh = 90\n' >"$config"
	run_status status timeout 5 "$linkctl" reload
	[ "$status" -eq 3 ] || fail "unprivileged reload: exit $status, want 3"
	grep -q 'config: reload denied: client not privileged' "$log" ||
		fail "the denial is not in the log"
	timeout 5 "$linkctl" >"$dir/denied.txt" || fail "linkctl failed"
	grep -Fq "min-refresh 120 (file $config:2)" "$dir/denied.txt" ||
		fail "a denied reload changed the settings: $(cat "$dir/denied.txt")"
	ok "an unprivileged client's reload is denied (exit 3) and nothing is read"
	stop_host

	printf '[output DP-1]\nmin-refresh = 120\n' >"$config"
	: >"$dir/sandboxed.status"
	start_host steady.scn --allow-reload \
		--sandboxed "$linkctl reload >$dir/sandboxed.out 2>&1; echo \$? >$dir/sandboxed.status"
	wait_for_line "$dir/sandboxed.status" . 5
	[ "$(cat "$dir/sandboxed.status")" = 5 ] ||
		fail "sandboxed reload: exit $(cat "$dir/sandboxed.status"), want 5: $(cat "$dir/sandboxed.out")"
	ok "a sandboxed client cannot reach reload (no global: exit 5)"
	printf '[output DP-1]\nmin-refresh = 90\n' >"$config"
	run_status status timeout 5 "$linkctl" reload >"$dir/reload.txt"
	[ "$status" -eq 0 ] || fail "privileged reload: exit $status: $(cat "$dir/reload.txt")"
	grep -Fq "DP-1: min-refresh 90 (file $config:2)" "$dir/reload.txt" ||
		fail "linkctl reload does not show the new value: $(cat "$dir/reload.txt")"
	ok "a privileged client's reload applies the edited file"
	stop_host
}

# waybar_lines FILE CLASS_RE: until FILE's last line has "class":CLASS_RE
# (linkctl watch --waybar writing it).
waybar_lines() {
	tries=300
	until tail -n 1 "$1" 2>/dev/null | grep -Eq "\"class\":\"$2\""; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "no $2 line from watch --waybar: $(cat "$1")"
		sleep 0.1
	done
}

# linkctl watch --waybar through every class (every-class.scn); then, for a
# monitor named in markup, quotes, a control character and bytes that are not
# UTF-8, and for generated names, one line each. check-waybar.py reads the
# lines with a strict JSON parser and their markup with an XML one.
test_waybar() {
	start_host every-class.scn
	timeout 5 "$linkctl" --json >"$dir/list.json" || fail "linkctl --json failed"
	watch_from_start waybar --waybar
	cue watching
	follow_incidents 3 60 # the failure; then the replug
	wait_for_log 'DP-1: state failed -> good' 30
	waybar_lines "$dir/waybar.out" good
	kill -INT "$watch_pid"
	reap "$watch_pid" 10 || fail "watch --waybar did not exit 0: $(watch_errors waybar)"
	python3 "$(dirname "$0")/check-waybar.py" "$dir/waybar.out" "$dir/list.json" \
		every-class || fail "watch --waybar: $(cat "$dir/waybar.out")"
	stop_host

	printf 'Dell <U2720Q> & "Co" it'"'"'s\033[31m \377 caf\303\251' >"$dir/name.0"
	# Names 1-3 from the fixed seed, 4-6 from the run's fresh one
	# (tests/fresh-seed.sh): each run tries new names too.
	seed=${LINKGUARD_SEED:-$(date +%s)}
	fresh=${LINKGUARD_FRESH_SEED:-$(date +%s)}
	repeat="LINKGUARD_SEED=$seed LINKGUARD_FRESH_SEED=$fresh meson test link-waybar"
	echo "generated names: seeds $seed (names 1-3) and $fresh (4-6); $repeat repeats them"
	for i in 1 2 3 4 5 6; do
		name_seed=$seed
		[ "$i" -le 3 ] || name_seed=$fresh
		python3 -c '
import random, sys
r = random.Random(int(sys.argv[1]))
pieces = [b"<", b">", b"&", b"&amp;", b"\x27", b"\"", b"\\", b"\x1b[1m", b"\x07",
	b"\x7f", b"\xff", b"\xc3", b"\xc3\xa9", b"\xe2\x82", b"\xe2\x82\xac",
	b"\xed\xa0\x80", b"\xc2\x85", b"<b>", b"</i>", b"Dell", b" ", b"\t"]
name = b"".join(r.choice(pieces) for _ in range(r.randrange(1, 16)))
sys.stdout.buffer.write(b"x" + name + b"x")  # $(cat) would drop a last newline
' "$name_seed$i" >"$dir/name.$i"
	done
	for i in 0 1 2 3 4 5 6; do
		start_host steady.scn --description "$(cat "$dir/name.$i")"
		# The child truncates the file only once it runs: the last run's
		# good line must not pass for this one's, nor its SIGINT come
		# before this one's handler (a background job ignores SIGINT until
		# then).
		rm -f "$dir/waybar.jsonl"
		"$linkctl" watch --waybar >"$dir/waybar.jsonl" 2>"$dir/waybar.err" &
		watch_pid=$!
		waybar_lines "$dir/waybar.jsonl" good
		timeout 5 "$linkctl" --json >"$dir/list.json" || fail "linkctl --json failed"
		kill -INT "$watch_pid"
		reap "$watch_pid" 10 || fail "watch --waybar did not exit 0: $(cat "$dir/waybar.err")"
		python3 "$(dirname "$0")/check-waybar.py" "$dir/waybar.jsonl" "$dir/list.json" \
			steady || fail "watch --waybar for $(od -c "$dir/name.$i"): $(cat "$dir/waybar.jsonl") ($repeat)"
		stop_host
	done
}

# linkctl watch --notify's bus: usage, no session bus (exit 8), a bus
# without a notification daemon (said, and watch goes on), a bus that goes
# away (exit 8).
test_notify_bus() {
	run_status st "$linkctl" --notify
	[ "$st" -eq 2 ] || fail "linkctl --notify: exit $st, want 2 (only watch notifies)"
	run_status st "$linkctl" watch --waybar --json
	[ "$st" -eq 2 ] || fail "watch --waybar --json: exit $st, want 2"
	ok "--notify and --waybar only with watch, --waybar not with --json (exit 2)"

	start_host steady.scn
	run_status st env DBUS_SESSION_BUS_ADDRESS="unix:path=$dir/no-bus" \
		timeout 10 "$linkctl" watch --notify 2>"$dir/notify.err"
	[ "$st" -eq 8 ] || fail "watch --notify without a bus: exit $st, want 8"
	grep -qF "no session bus for notifications (DBUS_SESSION_BUS_ADDRESS=unix:path=$dir/no-bus)" \
		"$dir/notify.err" || fail "watch --notify without a bus said: $(cat "$dir/notify.err")"
	run_status st timeout 10 "$linkctl" watch --notify 2>"$dir/notify.err"
	[ "$st" -eq 8 ] && grep -qF 'no session bus for notifications ($XDG_RUNTIME_DIR/bus)' \
		"$dir/notify.err" ||
		fail "watch --notify, no variable, no \$XDG_RUNTIME_DIR/bus: exit $st: $(cat "$dir/notify.err")"
	ok "watch --notify without a session bus: exit 8, saying which bus"
	stop_host

	# A bus where nobody serves org.freedesktop.Notifications: the watch
	# says so at the fallback and goes on; then the bus goes away: the
	# next notification (flapping, failed) ends the watch with exit 8.
	start_session_bus
	bus_pid=${lg_pids##* }
	start_host every-class.scn
	watch_from_start notify --notify --json
	cue watching
	# The flap waits for the cue incident-1, given once the bus is gone.
	wait_for_log 'DP-1: incident: ' 20
	wait_for_line "$dir/notify.trace" \
		'^linkctl: cannot notify DP-1: .*org\.freedesktop\.Notifications' 20
	kill -0 "$watch_pid" 2>/dev/null || fail "watch --notify exited without a daemon"
	grep -q '"event": "fallback"' "$dir/notify.out" ||
		fail "watch --notify --json lost the lines: $(cat "$dir/notify.out")"
	ok "no notification daemon: said ($(watch_errors notify | head -n 1)), the watch goes on"
	kill "$bus_pid"
	follow_incidents 2 20
	run_status st timeout 30 sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 0.1; done' sh "$watch_pid"
	[ "$st" -eq 0 ] || fail "watch --notify still runs 30 s after the bus went away"
	reap "$watch_pid" 10
	st=$?
	[ "$st" -eq 8 ] && watch_errors notify | grep -q 'linkctl: lost the session bus' ||
		fail "the bus went away: exit $st, want 8: $(watch_errors notify)"
	ok "the bus went away: exit 8 at the next notification"
	stop_host
}

# linkctl watch --notify through every kind (every-class.scn) with
# lg-notifyd as the daemon: a fallback, flapping, the failure and the
# restore in turn, all one notification replaced in place, with the urgency
# and category of each, sent again only when the words change; the body
# escaped as markup, since the daemon renders it. Nothing for the states in
# between (bad, retraining), and nothing at start while the link is good.
test_notify() {
	start_session_bus
	"$notifyd" >"$dir/notifyd.txt" 2>"$dir/notifyd.err" &
	lg_pids="$lg_pids $!"
	wait_for_line "$dir/notifyd.err" 'serving' 5
	start_host every-class.scn --description 'Dell <U2720Q> & Co'
	watch_from_start notify --notify
	cue watching
	follow_incidents 3 60 # the failure; then the replug
	wait_for_log 'DP-1: state failed -> good' 30
	wait_for_line "$dir/notifyd.txt" 'summary=DP-1: link restored' 10
	kill -INT "$watch_pid"
	reap "$watch_pid" 10 || fail "watch --notify did not exit 0: $(watch_errors notify)"
	[ ! -s "$dir/notify.out" ] && [ -z "$(watch_errors notify)" ] ||
		fail "watch --notify printed: $(cat "$dir/notify.out"; watch_errors notify)"
	cat "$dir/notifyd.txt"
	python3 - "$dir/notifyd.txt" <<'PY' || fail "the notifications: $(cat "$dir/notifyd.txt")"
import re, sys
calls = [re.match(r"notify id=(\d+) replaces=(\d+) app=(\S*) urgency=(\d) "
                  r"category=(\S*) summary=(.*)\|body=(.*)$", l).groups()
         for l in open(sys.argv[1]).read().splitlines()]
assert calls, "no notification"
first = calls[0][0]
assert calls[0][1] == "0", "the first one replaces %s" % calls[0][1]
for c in calls:
    assert c[0] == first, "not one notification: %r" % (c,)
for c in calls[1:]:
    assert c[1] == first, "does not replace %s: %r" % (first, c)
assert all(c[2] == "linkguard" for c in calls), calls
kinds = []
for c in calls:
    if not kinds or kinds[-1][0] != c[5]:
        kinds.append((c[5], c[3], c[4]))
want = [("DP-1: link degraded", "1", "device.error"),
        ("DP-1: link flapping", "1", "device.error"),
        ("DP-1: link failed", "2", "device.error"),
        ("DP-1: link restored", "0", "device")]
assert kinds == want, "kinds %r, want %r" % (kinds, want)
who = "DP-1 (Dell &lt;U2720Q&gt; &amp; Co): "
bodies = {c[5]: c[6] for c in calls}
assert bodies["DP-1: link degraded"] == who + "the cable no longer carries " \
    "3840x2160@60; now 3840x2160@30. Try another cable or a lower refresh rate.", bodies
assert bodies["DP-1: link restored"] == who + "3840x2160@60, the link holds.", bodies
# Only a change of words is sent (the fixture names the monitor anew after
# the replug, in two steps: that is a change).
for a, b in zip(calls, calls[1:]):
    assert (a[5], a[6]) != (b[5], b[6]), "sent twice: %r" % (b,)
print("ok: %d notifications, one id (%s), in turn: %s" % (
    len(calls), first, ", ".join("%s (urgency %s)" % (k[0], k[1]) for k in kinds)))
PY
	stop_host
}

case $test_name in
events) use_example; test_events ;;
versions) use_example; test_versions ;;
step-up) use_example; test_step_up ;;
skipped) use_example; test_skipped ;;
linkctl-list) use_example; test_linkctl_list ;;
linkctl-watch) use_example; test_linkctl_watch ;;
linkctl-text) use_host; test_linkctl_text ;;
retry) use_host; test_retry ;;
misuse) use_host; test_misuse ;;
security) use_host; test_security ;;
reload) use_host; test_reload ;;
sink) use_host; test_sink ;;
waybar) use_host; test_waybar ;;
notify-bus) use_host; test_notify_bus ;;
notify) use_host; test_notify ;;
*) fail "unknown test $test_name" ;;
esac
