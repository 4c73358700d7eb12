#!/bin/sh
# Debian's labwc, unmodified, with liblinkguard-preload.so and the simulated
# link: a 4K60 monitor's cable drops to RBR. wlr-randr must list the same
# DP-1, under the same wl_output global, at 2560x1440 afterwards, and
# linkctl the fallback. labwc applies a request_state later than sway, so
# linkguard commits the fallback itself first.
#
#   labwc.sh PRELOAD LINKCTL SCENARIO
set -u

preload=${1:?usage: $0 PRELOAD LINKCTL SCENARIO}
linkctl=${2:?usage: $0 PRELOAD LINKCTL SCENARIO}
scenario=${3:?usage: $0 PRELOAD LINKCTL SCENARIO}

LG_LOG_NAME=labwc LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/expect.sh"

preload_fits "$preload" labwc
export WLR_HEADLESS_OUTPUTS=0 LINKGUARD_SIM="$scenario" ASAN_OPTIONS=detect_leaks=0
LD_PRELOAD="$(preload_runtimes) $preload" labwc >"$log" 2>&1 &
pid=$!
wait_for_log 'preload: attached' 10
wait_for_socket
wait_for_log 'DP-1: connected' 10
sleep 1

before=$(randr_output DP-1)
current_mode_is "$before" 3840x2160 0 || current_mode_is "$before" 3840x2160 60 ||
	printf '%s\n' "$before" | grep -q '^    3840x2160 px (current)' ||
	fail "DP-1 is not at 3840x2160 before the failure: $before"
globals_before=$(wl_output_globals)
cue before-read # the cable drops (4k60-rbr-on-cue.scn)
# labwc re-commits the fallback when it gets to the request: no settle line.
wait_for_log 'DP-1: fallback 3840x2160@30.000 -> 2560x1440@59.951' 15
sleep 1
after=$(randr_output DP-1)
globals_after=$(wl_output_globals)
linkctl_out=$("$linkctl")

current_mode_is "$after" 2560x1440 59 ||
	fail "DP-1 is not at 2560x1440 59.951 Hz after the fallback: $after"
ok "wlr-randr lists DP-1 at 2560x1440 59.951 Hz"
expect_same_global "$globals_before" "$globals_after"
expect_linkctl_fallback "$linkctl_out"
