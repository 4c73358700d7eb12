#!/bin/sh
# The sway on PATH, unmodified (Debian's; in the wlroots 0.19 leg sway
# 1.11 as released, built by scripts/wlroots-0.19), with
# liblinkguard-preload.so and the simulated link: a 4K60 monitor's cable
# drops to RBR. Run twice, side by side: without recovery (what sway does
# alone: it keeps committing 4K60 on a link that cannot carry it, a black
# screen on real hardware) and with linkguard (the same output, never
# removed, at the fallback mode, the workspace laid out at the new size,
# linkctl telling why).
#
#   sway.sh PRELOAD LINKCTL SCENARIO TOPLEVEL
#
# TOPLEVEL is a client that maps one window: sway tiles it over the whole
# workspace, so its size must follow the output's.
#
# With LG_SWAY_BUILTIN naming a sway built with contrib/sway's patch, the
# run with linkguard uses that binary, without the preload (the run without
# recovery stays the sway on PATH with the preload watching only); the caller
# puts liblinkguard on LD_LIBRARY_PATH.
#
# Skips (exit 77) when sway is not installed or uses another wlroots than
# the preload was built for.
set -u

usage="usage: $0 PRELOAD LINKCTL SCENARIO TOPLEVEL"
preload=${1:?$usage}
linkctl=${2:?$usage}
scenario=${3:?$usage}
toplevel=${4:?$usage}
config=$(dirname "$0")/sway.config

LG_LOG_NAME=sway LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/expect.sh"

preload_fits "$preload" sway

export WLR_HEADLESS_OUTPUTS=0 LINKGUARD_SIM="$scenario"

# Leaks at exit are sway's to answer for; linkguard's are checked in-process.
runtimes=$(preload_runtimes)
export ASAN_OPTIONS=detect_leaks=0

sway --version || fail "sway does not run"
if [ -n "${LG_SWAY_BUILTIN:-}" ]; then
	builtin=$(LD_PRELOAD="$runtimes" "$LG_SWAY_BUILTIN" --version) ||
		fail "$LG_SWAY_BUILTIN does not run"
	echo "built in: $builtin"
fi

# outputs: "name WxH@mHz active" per output.
outputs() {
	timeout 5 swaymsg -t get_outputs -r |
		jq -r '.[] | "\(.name) \(.current_mode.width)x\(.current_mode.height)@\(.current_mode.refresh) \(.active)"'
}

# The focused workspace's size: sway lays it out on the output.
workspace_size() {
	timeout 5 swaymsg -t get_workspaces -r |
		jq -r '.[] | select(.focused) | "\(.rect.width)x\(.rect.height)"'
}

# The mapped window's size, "WxH", once sway has it in its tree.
window_size() {
	timeout 5 swaymsg -t get_tree -r |
		jq -r '.. | objects | select(.app_id? == "lg-toplevel") | "\(.rect.width)x\(.rect.height)"'
}

# run_sway RECOVER: starts sway, gives it a second to lay its output out.
# The cable drops on the cue "before-read" (4k60-rbr-on-cue.scn).
run_sway() {
	uncue
	: >"$log"
	if [ "$1" = 1 ] && [ -n "${LG_SWAY_BUILTIN:-}" ]; then
		# -V: linkguard logs through sway's log.
		LD_PRELOAD="$runtimes" "$LG_SWAY_BUILTIN" -V -c "$config" >"$log" 2>&1 &
		attached='linkguard watching DisplayPort links'
	else
		LINKGUARD_RECOVER=$1 LD_PRELOAD="$runtimes $preload" sway -c "$config" >"$log" 2>&1 &
		attached='preload: attached'
	fi
	pid=$!
	wait_for_log "$attached" 10
	wait_for_log 'DP-1: connected' 10
	wait_for_socket
	# sway opens its IPC socket before the Wayland one.
	SWAYSOCK=$(ls "$dir"/sway-ipc.*.sock | head -n 1)
	export SWAYSOCK
	sleep 1
}

stop_sway() {
	sway_exit >/dev/null
	pid=
	rm -f "$dir"/sway-ipc.*.sock "$dir"/wayland-*
}

# Without recovery: what sway does alone.
run_sway 0
stock_before=$(outputs)
cue before-read
wait_for_log 'recovery disabled: left to the compositor' 10
sleep 1
stock_after=$(outputs)
stock_link=$(WAYLAND_DISPLAY=$WAYLAND_DISPLAY "$linkctl" | sed -n 's/^  Link status: //p')
stop_sway

# With linkguard, and a window mapped before the failure.
run_sway 1
"$toplevel" >"$dir/toplevel.log" 2>&1 &
toplevel_pid=$!
tries=30
while [ -z "$(window_size)" ] && [ $tries -gt 0 ]; do
	sleep 0.1
	tries=$((tries - 1))
done
window_before=$(window_size)
before=$(outputs)
globals_before=$(wl_output_globals)
[ "$(echo "$before" | wc -l)" = 1 ] || fail "want one output, sway has: $before"
name=${before%% *}
case $before in
"$name 3840x2160@"*" true") ;;
*) fail "the output is not enabled at 3840x2160 before the failure: $before" ;;
esac
cue before-read
wait_for_log 'DP-1: link held at 2560x1440@59.951' 15
after=$(outputs)
globals_after=$(wl_output_globals)
ws=$(workspace_size)
window_after=$(window_size)
kill "$toplevel_pid" 2>/dev/null
linkctl_out=$("$linkctl")
cue after-read # the replug test's healed cable and replug

echo "== swaymsg -t get_outputs, side by side (name mode active)"
echo "   sway alone, before:     $stock_before"
echo "   sway alone, after:      $stock_after (link-status $stock_link)"
how=${LG_SWAY_BUILTIN:+" (built in)"}
echo "   with linkguard$how, before: $before"
echo "   with linkguard$how, after:  $after"

[ "$stock_link" = bad ] || fail "without recovery the link should stay bad, is '$stock_link'"
[ "$after" = "$name 2560x1440@59951 true" ] ||
	fail "want $name at 2560x1440@59951 after the fallback, sway has: $after"
ok "the same output $name runs 2560x1440@59.951 Hz, still active"
expect_same_global "$globals_before" "$globals_after"
[ "$ws" = 2560x1440 ] || fail "the workspace is $ws, not laid out at 2560x1440"
ok "sway laid the workspace out at 2560x1440"
window_fits() {
	w=${1%x*} h=${1#*x}
	[ -n "$1" ] && [ "$w" -gt "$2" ] && [ "$w" -le "$3" ] && [ "$h" -le "$4" ]
}
window_fits "$window_before" 2560 3840 2160 ||
	fail "the window is '$window_before' before the failure, not 4K-wide: $(cat "$dir/toplevel.log")"
window_fits "$window_after" 0 2560 1440 ||
	fail "the window is '$window_after' after the fallback: it did not follow 2560x1440"
ok "the mapped window went from $window_before to $window_after"
expect_linkctl_fallback "$linkctl_out"
grep -q 'did not apply the requested mode' "$log" &&
	fail "sway did not apply linkguard's request_state"
ok "sway applied the fallback from request_state"

# LG_SWAY_REPLUG (4k60-rbr-healed-replugged.scn): sway stored the fallback
# as the output's configuration (handle_request_state); linkguard's
# recommendation reaches sway before its first commit of the replugged
# output: one modeset, at the requested mode, and no step up after it.
[ -n "${LG_SWAY_REPLUG:-}" ] || exit 0
wait_for_log 'sim: DP-1: plug' 20 2
tries=50
until outputs | grep -q ' 3840x2160@60000 true$' || [ $tries = 0 ]; do
	sleep 0.1
	tries=$((tries - 1))
done
sleep 2 # a step up would come 500 ms after sway's modeset
replugged=$(outputs)
echo "$replugged" | grep -q ' 3840x2160@60000 true$' ||
	fail "after the replug sway runs $replugged, not 3840x2160@60000"
# The sim's link trains at each modeset, from the replug on.
trained=$(sed -n '/sim: DP-1: plug/h; //!H; ${x;p}' "$log" | grep -c 'sim: DP-1: link trained')
[ "$trained" = 1 ] || fail "$trained modesets after the replug, want 1: $(grep 'sim: DP-1' "$log")"
grep -q 'DP-1: recommending 3840x2160@60.000' "$log" ||
	fail "linkguard recommended no mode for the replugged output"
ok "replugged: sway lit 3840x2160@60 from linkguard's recommendation, 1 modeset"
