#!/bin/sh
# End to end, problem 5: the known-bad store never hides a mode for good.
# The example compositor starts again and again with one state directory
# (XDG_STATE_HOME, absent at first):
#
#   1, 2  a cable that cannot carry 4K60: 4K60 is tried and falls back to
#         4K30 both times (one bad start is no verdict), the store counts
#         1, then 2 failed starts in a row;
#   3     the cable replaced: 4K60 is skipped, the output starts at 4K30 with
#         no fallback, and linkctl shows the skipped mode with when it last
#         failed and the command that tries it;
#   4...  4K60 is tried again (at the latest on the 4th start after its last
#         failure; the schedule says the 4th start), the link holds it, and
#         the store forgets it.
#
#   known-bad-across-starts.sh EXAMPLE LINKCTL BAD_SCENARIO GOOD_SCENARIO
set -u

example=${1:?usage: $0 EXAMPLE LINKCTL BAD_SCENARIO GOOD_SCENARIO}
linkctl=${2:?usage: $0 EXAMPLE LINKCTL BAD_SCENARIO GOOD_SCENARIO}
bad=${3:?usage: $0 EXAMPLE LINKCTL BAD_SCENARIO GOOD_SCENARIO}
good=${4:?usage: $0 EXAMPLE LINKCTL BAD_SCENARIO GOOD_SCENARIO}

LG_LOG_NAME=compositor LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

store=$XDG_STATE_HOME/linkguard/known-bad
# The compositor's own log lines (wlr_log tags them with the source file).
own='compositor\.c:[0-9]+\] '
# A start tries 4K60 when it asks for it first, in the output's first mode.
tried="${own}output DP-1 created, 3840x2160@60\\.000"

# start_compositor SCENARIO: one start, up to DP-1's first mode.
start_compositor() {
	start_server "$example" --sim "$1"
	wait_for_log "${own}output DP-1 created" 10
}

stop_compositor() {
	stop_server
	grep -q 'linkguard-example: 1 outputs created, 0 destroyed' "$log" ||
		fail "the compositor did not exit cleanly with DP-1 kept"
}

# What the store holds for DP-1's 4K60 monitor: "FAILED LAST SKIPPED", or
# nothing.
# What the store holds for 4K60 at HBR2 x4, the link it failed at.
entry() {
	sed -n 's|^DP-1 4k60 3840x2160@60000/533250 5400x4 ||p' "$store"
}

# linkctl_check PYTHON: runs linkctl --json until DP-1 satisfies the
# expression (c is DP-1's object), for up to 5 s.
linkctl_check() {
	tries=50
	while :; do
		timeout 5 "$linkctl" --json >"$dir/list.json" 2>"$dir/list.err" ||
			fail "linkctl --json failed: $(cat "$dir/list.err")"
		python3 -c 'import json, sys
c = [c for c in json.load(open(sys.argv[1]))["connectors"] if c["name"] == "DP-1"][0]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$dir/list.json" "$1" && return 0
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "linkctl never showed $1: $(cat "$dir/list.json")"
		sleep 0.1
	done
}

uhd60='{"width": 3840, "height": 2160, "refresh_mhz": 60000}'
uhd30='{"width": 3840, "height": 2160, "refresh_mhz": 30000}'

[ ! -e "$XDG_STATE_HOME" ] || fail "XDG_STATE_HOME exists before the first start"

# Starts 1 and 2: 4K60 tried, and it fails.
for n in 1 2; do
	since=$(date +%s)
	start_compositor "$bad"
	grep -Eq "$tried" "$log" || fail "start $n did not try 4K60"
	if [ "$n" = 2 ]; then
		grep -q 'DP-1: trying again 3840x2160@60\.000: it failed at 1 start(s) in a row' "$log" ||
			fail "start 2 does not say it tries 4K60 again"
	fi
	wait_for_log "${own}DP-1: fallback 3840x2160@60\\.000 -> 3840x2160@30\\.000" 10
	linkctl_check "c[\"current_mode\"] == $uhd30 and [(m[\"width\"], m[\"refresh_mhz\"], m[\"requested\"]) for m in c[\"skipped_modes\"]] == [(3840, 60000, True)] and $since <= c[\"skipped_modes\"][0][\"last_failed\"] <= $(date +%s)"
	stop_compositor
	set -- $(entry)
	[ "${1:-}" = "$n" ] && [ "${3:-}" = 0 ] ||
		fail "after start $n the store holds '$*' for 4K60, want $n failed starts, 0 skipped: $(cat "$store")"
	[ "$2" -ge "$since" ] && [ "$2" -le "$(date +%s)" ] ||
		fail "last failure $2 is not within start $n"
	last_failed=$2
	ok "start $n: 4K60 tried, fell back to 4K30; the store counts $n failed start(s) in a row"
done
[ "$(stat -c %a "$XDG_STATE_HOME")" = 700 ] && [ "$(stat -c %a "$XDG_STATE_HOME/linkguard")" = 700 ] ||
	fail "the state directories were not created 0700"
ok "XDG_STATE_HOME and its linkguard directory were created, 0700"

# Start 3, the cable replaced: 4K60 skipped, started at 4K30 at once.
start_compositor "$good"
grep -q 'DP-1: skipping 3840x2160@60\.000: it failed at 2 start(s) in a row' "$log" ||
	fail "start 3 does not skip 4K60"
grep -Eq "${own}output DP-1 created, 3840x2160@30\\.000" "$log" ||
	fail "start 3 did not start DP-1 at 4K30"
linkctl_check "c[\"state\"] == \"degraded\" and c[\"current_mode\"] == $uhd30 and c[\"requested_mode\"] == $uhd60 and c[\"skipped_modes\"] == [dict($uhd60, last_failed=$last_failed, requested=True)]"
timeout 5 "$linkctl" >"$dir/list.txt" || fail "linkctl failed"
when=$(date -d "@$last_failed" '+%Y-%m-%d %H:%M:%S')
grep -qxF "    3840x2160 px, 60.000 Hz, last failed $when; try it now: linkctl retry DP-1" "$dir/list.txt" ||
	fail "linkctl does not show the skipped mode: $(cat "$dir/list.txt")"
sleep 1 # past the settle time: 4K30 holding clears nothing
stop_compositor
! grep -Eq "${own}DP-1: fallback" "$log" || fail "start 3 fell back: it tried 4K60"
[ "$(entry)" = "2 $last_failed 1" ] ||
	fail "after start 3 the store holds '$(entry)', want '2 $last_failed 1'"
ok "start 3: 4K60 skipped, DP-1 started at 4K30; linkctl showed it:"
grep -A1 -F 'Skipped modes:' "$dir/list.txt"

# Starts 4 on: 4K60 tried again by the 4th start after its last failure
# (start 2); the link holds it and the store forgets it.
n=4
while :; do
	start_compositor "$good"
	if grep -Eq "$tried" "$log"; then
		break
	fi
	stop_compositor
	n=$((n + 1))
	[ "$n" -le 6 ] || fail "4K60 not tried by start 6, the 4th after its last failure"
done
[ "$n" = 4 ] || fail "4K60 tried at start $n, the schedule says start 4"
grep -q 'DP-1: trying again 3840x2160@60\.000: it failed at 2 start(s) in a row' "$log" ||
	fail "start $n does not say it tries 4K60 again"
linkctl_check "c[\"state\"] == \"good\" and c[\"current_mode\"] == $uhd60 and c[\"skipped_modes\"] == []"
wait_for_log 'DP-1: the link held 3840x2160@60\.000: no longer skipped' 10
stop_compositor
[ -z "$(entry)" ] || fail "the store still holds 4K60 after it held: $(cat "$store")"
[ "$(cat "$store")" = '# linkguard known-bad modes v3' ] ||
	fail "the store holds more than its header: $(cat "$store")"
ok "start $n: 4K60 tried again, the link held it, the store forgot it"
