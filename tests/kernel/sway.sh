#!/bin/sh
# Layer 5 of the real-kernel harness, in the guest: Debian's sway on
# wlroots' DRM backend (pixman, a seat from seatd) through the failures the
# example compositor goes through (kms.sh): stock (linkguard only watching
# through the preload, to time it, where the preload's wlroots is sway's),
# with liblinkguard-preload.so, and built with contrib/sway's patch when
# that build is there (skipped, saying so, when it is not).
#
#   sway.sh STATUS PRELOAD LINKCTL BUILD
#
# The patched sway is where contrib/sway/test.sh leaves it in BUILD, the
# linkguard build directory (meson test --suite e2e contrib-sway builds it,
# before the kernel suite), and runs with BUILD's liblinkguard.so.
set -u

status_tool=$1 preload=$2 linkctl=$3 build=$4
patched=$build/contrib-sway/sway
config=$(dirname "$0")/../preload/sway.config
LG_LOG_NAME=sway LG_LOG_LINES=60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kms.sh"
. "$(dirname "$0")/sink.sh"
export WLR_BACKENDS=drm LIBSEAT_BACKEND=seatd

command -v sway >/dev/null 2>&1 || fail "sway is not installed in the build root"
seatd -g root >"$dir/seatd.log" 2>&1 &
seatd_pid=$!
trap 'kill $seatd_pid 2>/dev/null; lg_cleanup' EXIT
version=$(sway --version | sed -n 's/^sway version \([^ ]*\).*/\1/p')
wlroots_of() {
	ldd "$1" | sed -n 's/.*\(libwlroots[^ ]*\).*/\1/p'
}

# sway_state: sets $state to whether sway runs, or how it ended (the crash
# itself is in crashes.sh's report at the guest's end). Not in a command
# substitution: a subshell cannot wait for sway, this shell's child.
sway_state() {
	if alive; then
		state="sway still runs"
		return
	fi
	wait "$pid"
	code=$?
	pid=
	if [ "$code" -gt 128 ]; then
		state="sway died of signal $((code - 128))"
	else
		state="sway exited with status $code"
	fi
}

# start_sway stock|preload|patched: sway on the DRM backend, then the
# requested 4096x2160@60 from its IPC, as a user's output config would.
start_sway() {
	: >"$log"
	# Modes learned bad in one run must not start the next one degraded.
	export XDG_STATE_HOME="$dir/state-$1"
	case $1 in
	stock) sway -V -c "$config" >"$log" 2>&1 & ;;
	# Stock with linkguard only watching, as the example's --no-recover:
	# wlroots answers the link, and the trace times where its recreated
	# output begins (kms.sh's breakdown, its frame and when it heard).
	watched) LINKGUARD_RECOVER=off LINKGUARD_DEBUG=1 LD_PRELOAD="$preload" \
		sway -V -c "$config" >"$log" 2>&1 & ;;
	# The preload's steps traced (kms.sh's breakdown), at its debug level.
	preload) LINKGUARD_DEBUG=1 LD_PRELOAD="$preload" sway -V -c "$config" >"$log" 2>&1 & ;;
	patched) LD_LIBRARY_PATH=$build "$patched" -V -c "$config" >"$log" 2>&1 & ;;
	esac
	pid=$!
	echo "$pid" >"$dir/sway.pid"
	wait_for_log 'Running compositor on wayland display' 60
	wait_for_socket
	SWAYSOCK=$(ls "$dir"/sway-ipc.*.sock | head -n 1)
	export SWAYSOCK
	case $1 in
	watched|preload) wait_for_log 'preload: attached' 10 ;;
	patched) wait_for_log 'linkguard watching DisplayPort links' 10 ;;
	esac
	wait_for_kernel_mode '[0-9]+x[0-9]+@[0-9]+' 30
	# sway answers once it has committed the mode: a 4096x2160 modeset and
	# first frame in software, in a TCG guest beside CI's other legs, took
	# more than 10 s (a patched sway that still ran, its log at the
	# command). A sway that froze is caught here still, after a minute.
	answer=0
	timeout 60 swaymsg output "$name" mode 4096x2160@60Hz >"$dir/swaymsg.out" 2>&1 ||
		answer=$?
	if [ "$answer" -ne 0 ]; then
		sway_state
		why="swaymsg said: $(tr '\n' ' ' <"$dir/swaymsg.out")"
		[ "$answer" -ne 124 ] || why="no answer in 60 s"
		fail "swaymsg could not set 4096x2160@60 ($why): $state"
	fi
	wait_for_kernel_mode '4096x2160@60[0-9]*' 30
	current=$(timeout 5 swaymsg -t get_outputs -r |
		jq -r '.[] | "\(.current_mode.width)x\(.current_mode.height)"')
	[ "$current" = 4096x2160 ] || fail "swaymsg -t get_outputs lists $current"
}

stop_sway() {
	sway_exit
	code=$?
	pid=
	rm -f "$dir/sway.pid"
	grep -E '\[linkguard\]|linkguard|Bad link|Configured mode' "$log" |
		grep -v '\[DEBUG\]' | sed 's/^/    log: /'
	if [ "$code" -ne 0 ]; then
		echo "note: sway exited with status $code on 'swaymsg exit'; its log ends:"
		tail -n 5 "$log" | sed 's/^/    log: /'
	fi
}

# run_sway HOW VARIANT RECOVERS: the failures on one sway.
run_sway() {
	trigger cap "$conn" 0
	start_sway "$1"
	failures_begin "$2" "$3"
	fail_lowered "lowered to 300 MHz, mode pruned" 300000
	fail_lowered "lowered again to 150 MHz (cascade)" 150000
	fail_unplugged "unplugged during recovery"
	fail_replugged "replugged, cap lifted"
	fail_lowered "link fails, the mode still fits" 0
	# The preload reads the sink as the example does (sink.sh).
	if [ "$1" = preload ] && ! timed_only; then
		fail_dark "dark, the sink holds HBR at most" 2700
	fi
	# What sway itself reports at the end matches the kernel.
	listed=$(timeout 5 swaymsg -t get_outputs -r |
		jq -r '.[] | "\(.current_mode.width)x\(.current_mode.height)@\(.current_mode.refresh)"')
	[ "$listed" = "$(kernel 4)" ] ||
		fail "$2: swaymsg -t get_outputs lists $listed, the kernel runs $(kernel 4)"
	ok "$2: swaymsg -t get_outputs agrees with the kernel: $listed"
	failures_end
	stop_sway
}

# run_variant HOW VARIANT RECOVERS: run_sway in a subshell, so that one
# variant's failure leaves the others to run; a sway it left is killed.
status=0
run_variant() {
	(run_sway "$@") || status=1
	if [ -s "$dir/sway.pid" ]; then
		kill -KILL "$(cat "$dir/sway.pid")" 2>/dev/null
		rm -f "$dir/sway.pid"
	fi
	rm -f "$dir"/sway-ipc.*.sock "$dir"/wayland-*
}

# Linkguard's fallbacks reach sway as request_state, which sway's
# handle_request_state (sway/desktop/output.c) stores as the output's
# config: the preload answers the replugged output with linkguard's
# recommendation before sway's first commit, the patched sway stores it
# in handle_new_output (fail_replugged checks the requested mode comes
# back in one modeset).
if [ "$(wlroots_of "$(command -v sway)")" != "$(wlroots_of "$preload")" ]; then
	run_variant stock "sway $version, stock" 0
	echo "skip (preload): sway + preload: sway uses $(wlroots_of "$(command -v sway)"), the preload $(wlroots_of "$preload")"
else
	run_variant watched "sway $version, stock" 0
	run_variant preload "sway $version + preload" 1
fi
if timed_only; then
	echo "note: the patched sway's rows are not timed: its first run only"
elif [ ! -x "$patched" ]; then
	echo "skip (patched): sway with contrib/sway's patch: not built at $patched (meson test --suite e2e contrib-sway builds it)"
else
	run_variant patched "sway $(LD_LIBRARY_PATH=$build "$patched" --version | sed -n 's/^sway version \([^ ]*\).*/\1/p'), contrib patch" 1
fi
trigger cap "$conn" 0
exit $status
