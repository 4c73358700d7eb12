#!/bin/sh
# End to end: a 4K60 DisplayPort monitor whose cable drops to HBR keeps its
# output. The example compositor runs headless with the simulated link; a
# client we did not write (wlr-randr, and wayland-info when installed) must see
# the same DP-1 before and after the failure, still enabled, now at 4K30, and
# the compositor's log must show a fallback with its reason and no destroy.
#
#   output-survives-fallback.sh EXAMPLE SCENARIO
#
# WLR_RANDR and WAYLAND_INFO name the clients (default: from PATH;
# WAYLAND_INFO may be empty to skip the global-identity check).
set -u

example=${1:?usage: $0 EXAMPLE SCENARIO}
scenario=${2:?usage: $0 EXAMPLE SCENARIO}
wlr_randr=${WLR_RANDR:-wlr-randr}
wayland_info=${WAYLAND_INFO-wayland-info}

LG_LOG_NAME=compositor LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

"$example" --sim "$scenario" >"$log" 2>&1 &
pid=$!

wait_for_log 'running on WAYLAND_DISPLAY=' 10
socket=$(sed -n 's/.*running on WAYLAND_DISPLAY=\([^ ]*\).*/\1/p' "$log" | head -n 1)
[ -S "$dir/$socket" ] || fail "no Wayland socket $dir/$socket"
export WAYLAND_DISPLAY="$socket"

# Before the failure: DP-1 at 3840x2160, 60 Hz.
wait_for_log 'output DP-1 created' 10
before=$(randr_output DP-1)
[ -n "$before" ] || fail "wlr-randr does not list DP-1: $(cat "$dir/randr.txt")"
current_mode_is "$before" 3840x2160 60 ||
	fail "DP-1 is not at 3840x2160 60 Hz before the failure:
$before"
echo "ok: wlr-randr lists DP-1 at 3840x2160 60 Hz before the failure"

globals_before=
if [ -n "$wayland_info" ] && command -v "$wayland_info" >/dev/null 2>&1; then
	globals_before=$(wl_output_globals)
	[ -n "$globals_before" ] || fail "wayland-info lists no wl_output"
fi
cue before-read # the cable drops

# The cable drops; linkguard falls back in place and tells the compositor,
# which logs it (wlr_log tags its lines with the source file).
own='compositor\.c:[0-9]+\] '
wait_for_log "${own}DP-1: fallback " 20
grep -Eq "${own}DP-1: fallback 3840x2160@60\.[0-9]+ -> 3840x2160@30\.[0-9]+ \([a-z-]+\)$" "$log" ||
	fail "fallback line lacks from/to/reason: $(grep -E "${own}DP-1: fallback" "$log")"
echo "ok: the compositor logged $(grep -Eo 'DP-1: fallback .*' "$log" | tail -n 1)"

tries=50
while :; do
	after=$(randr_output DP-1)
	current_mode_is "$after" 3840x2160 30 && break
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || fail "DP-1 is not at 3840x2160 30 Hz after the failure:
$after"
	sleep 0.1
done
printf '%s\n' "$after" | grep -q '^  Enabled: yes$' ||
	fail "DP-1 is not enabled after the failure:
$after"
echo "ok: wlr-randr lists DP-1 enabled at 3840x2160 30 Hz after the failure"

if timeout 5 "$wlr_randr" --json >"$dir/randr.json" 2>/dev/null; then
	python3 - "$dir/randr.json" <<'EOF' || fail "wlr-randr --json disagrees"
import json, sys
heads = [h for h in json.load(open(sys.argv[1])) if h["name"] == "DP-1"]
assert len(heads) == 1, "DP-1 listed %d times" % len(heads)
head = heads[0]
assert head["enabled"], "DP-1 disabled"
current = [m for m in head["modes"] if m.get("current")]
assert len(current) == 1, "no single current mode: %r" % head["modes"]
m = current[0]
assert (m["width"], m["height"]) == (3840, 2160), m
assert abs(m["refresh"] - 30) < 0.5, m
EOF
	echo "ok: wlr-randr --json agrees"
else
	echo "skip: this wlr-randr has no --json"
fi

if [ -n "$globals_before" ]; then
	globals_after=$(wl_output_globals)
	[ "$globals_after" = "$globals_before" ] ||
		fail "wl_output globals changed: '$globals_before' -> '$globals_after'"
	echo "ok: the wl_output global is the same one (name $globals_after)"
fi

if grep -Eq "${own}output DP-1 destroyed" "$log"; then
	fail "the compositor saw DP-1 destroyed"
fi

kill -TERM "$pid"
(sleep 5; kill -KILL "$pid") >/dev/null 2>&1 &
watchdog=$!
wait "$pid"
status=$?
pid=
kill "$watchdog" 2>/dev/null
[ "$status" -ne 137 ] || fail "compositor did not exit within 5 s of SIGTERM"
[ "$status" -eq 0 ] || fail "compositor exited with status $status"
grep -q 'linkguard-example: 1 outputs created, 0 destroyed' "$log" ||
	fail "summary is not '1 outputs created, 0 destroyed': $(grep 'outputs created' "$log")"
echo "ok: no output destroyed; compositor exited cleanly"
