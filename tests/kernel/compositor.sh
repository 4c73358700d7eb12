#!/bin/sh
# Layers 2-4 of the real-kernel harness, in the guest: the example
# compositor on wlroots' DRM backend (pixman, a seat from seatd) drives
# vkms; lg_link_fault makes its link fail. With linkguard: fallback,
# cascade, unplug during recovery, replug, same-mode retrain, bare
# HOTPLUG=1. Then the same compositor with --no-recover (stock wlroots),
# side by side.
#
#   compositor.sh STATUS EXAMPLE LINKCTL
set -u

status_tool=$1 example=$2 linkctl=$3
LG_LOG_NAME=compositor LG_LOG_LINES=60
. "$(dirname "$0")/../lib.sh"
export WLR_BACKENDS=drm LIBSEAT_BACKEND=seatd

seatd -g root >"$dir/seatd.log" 2>&1 &
seatd_pid=$!
trap 'kill $seatd_pid 2>/dev/null; lg_cleanup' EXIT

name=Virtual-1
conn=$("$status_tool" | cut -d' ' -f1)
[ -n "$conn" ] || fail "lg-kernel-status found no connector"

trigger() {
	echo "$*" >/sys/module/lg_link_fault/parameters/trigger ||
		fail "lg_link_fault refused '$*'"
}

# field N of lg-kernel-status: 2 link-status, 3 connected, 4 the CRTC's mode
kernel() {
	"$status_tool" | cut -d' ' -f"$1"
}

# wait_for_kernel_mode ERE SECONDS: until the CRTC runs a matching mode.
wait_for_kernel_mode() {
	tries=$(($2 * 10))
	while ! kernel 4 | grep -Eq "^$1\$"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "the CRTC runs $(kernel 4), not /$1/, after $2 s"
		sleep 0.1
	done
}

# randr_mode: the current mode wlr-randr lists for the output, "WxH@Hz".
randr_mode() {
	randr_output "$name" |
		sed -n 's/^    \([0-9]*x[0-9]*\) px, \([0-9]*\)\.[0-9]* Hz.*current.*/\1@\2/p'
}

# hz MODE: "3840x2160@60000" -> "3840x2160@60" (wlr-randr's whole hertz).
hz() {
	echo "${1%@*}@$((${1#*@} / 1000))"
}

start_compositor() {
	: >"$log"
	"$example" "$@" >"$log" 2>&1 &
	pid=$!
	wait_for_socket
	wait_for_log 'running on WAYLAND_DISPLAY' 30
	wait_for_kernel_mode '[0-9]+x[0-9]+@[0-9]+' 20
	# What the user asked for: 4096x2160@60, more than the lowered link carries.
	timeout 10 wlr-randr --output "$name" --mode 4096x2160@60Hz ||
		fail "wlr-randr could not set 4096x2160@60"
	wait_for_kernel_mode '4096x2160@60[0-9]*' 20
}

# Stops the compositor and shows what linkguard, wlroots' link handling and
# the example's output handlers logged.
stop_compositor() {
	kill "$pid"
	wait "$pid"
	pid=
	grep -E '\[linkguard\]|Bad link|disconnected|compositor\.c' "$log" |
		sed 's/^/    log: /'
	rm -f "$dir"/wayland-*
}

# fail_link ACTION CAP_KHZ: the link now carries CAP_KHZ and fails.
fail_link() {
	held=$(grep -c "$name: link held at" "$log")
	trigger cap "$conn" "$2"
	trigger "$1" "$conn"
}

# expect_fallback N CAP_KHZ: after fail_link, the CRTC runs what the policy
# picks from the kernel's pruned list, link-status Good, the same
# wl_output, wlr-randr agrees.
expect_fallback() {
	wait_for_log "$name: link held at" 30 $((held + 1))
	predicted=$("$status_tool" predict 4096 2160 "${requested#*@}") ||
		fail "the policy has no fallback in the kernel's list"
	now=$(kernel 4)
	[ "$now" = "$predicted" ] ||
		fail "the CRTC runs $now; the policy picks $predicted from the pruned list"
	ok "fallback $1 (cap $2 kHz): the CRTC runs $now, the policy's pick from the pruned list"
	[ "$(kernel 2)" = good ] || fail "link-status is $(kernel 2) after the fallback"
	ok "link-status Good after the fallback"
	[ "$(wl_output_globals)" = "$globals" ] ||
		fail "wl_output globals went from '$globals' to '$(wl_output_globals)'"
	ok "the output was never destroyed: wl_output global $globals kept"
	[ "$(randr_mode)" = "$(hz "$now")" ] ||
		fail "wlr-randr lists $name at $(randr_mode), the kernel at $now"
	ok "wlr-randr lists $name at $(randr_mode)"
}

# --- 2. with linkguard
start_compositor
requested=$(kernel 4)
globals=$(wl_output_globals)
[ -n "$globals" ] || fail "no wl_output global"
echo "requested: $requested on connector $conn, wl_output global $globals"

first_failure=$(date +%s)
fail_link bad 300000
expect_fallback 1 300000
with_linkguard="$(kernel 4), output kept (global $globals)"
grep -q "$name: fallback 4096x2160@60.000 -> .* (mode-pruned)" "$log" ||
	fail "no mode-pruned fallback in the log"
listing=$("$linkctl")
echo "$listing" | sed 's/^/    linkctl: /'
echo "$listing" | grep -Eq "Last fallback: 4096x2160 px, 60.000 Hz -> .* \(mode-pruned\) at [0-9]+\.[0-9]+ s" ||
	fail "linkctl does not show the fallback with its reason and time"
echo "$listing" | grep -q "Requested mode: 4096x2160 px, 60.000 Hz" ||
	fail "linkctl does not show the requested mode"
ok "linkctl shows the requested mode, the fallback, its reason and time"

# Cascade: the lowered link fails again, lower.
fail_link bad 150000
expect_fallback 2 150000

# Unplugged while linkguard recovers (its same-mode test and forced probe
# are under way): wlroots destroys the output, nothing else breaks. A third
# BAD within linkguard's flap window (10 s) would be held, not recovered:
# wait it out.
while [ $(($(date +%s) - first_failure)) -le 10 ]; do
	sleep 0.5
done
fail_link bad 120000
trigger off "$conn"
wait_for_log "$name: disconnected" 20
sleep 1
alive || fail "the compositor died on an unplug during recovery"
[ -z "$(wl_output_globals)" ] || fail "an unplugged output still has a wl_output"
echo "$("$linkctl")" | grep -q "Connected: no" ||
	fail "linkctl does not show $name disconnected"
ok "unplugged during recovery: the compositor runs, the output is gone, linkctl shows it disconnected"

# Replugged with a link that carries 4096x2160@60 again: the requested mode comes back.
trigger cap "$conn" 0
trigger auto "$conn"
wait_for_kernel_mode "$requested" 30
[ "$(kernel 2)" = good ] || fail "link-status is $(kernel 2) after the replug"
ok "replugged, cap lifted: back at the requested $requested, link-status Good"
globals=$(wl_output_globals)

# A failure the lowered link still carries the mode through (the kernel
# found a lower bpp): the same mode passes its atomic test and is retrained
# with link-status Good; nothing is probed.
probes=$(grep -c "$name: forced probe" "$log")
fail_link bad 0
wait_for_log "$name: link held at" 30 $((held + 1))
grep -q "$name: retraining at .*: same mode passed its test" "$log" ||
	fail "linkguard did not retrain the same mode"
[ "$(grep -c "$name: forced probe" "$log")" = "$probes" ] ||
	fail "linkguard probed although the same mode passed its test"
[ "$(kernel 4)" = "$requested" ] && [ "$(kernel 2)" = good ] ||
	fail "after the retrain the kernel has $(kernel 4), link-status $(kernel 2)"
[ "$(wl_output_globals)" = "$globals" ] || fail "the retrain recreated the output"
ok "same mode still fits: $requested retrained in place, link-status Good, no probe"

# A bare HOTPLUG=1 (older kernels): every connector's link-status is read.
fail_link bad-dev 300000
expect_fallback 3 300000
stop_compositor
outputs=$(sed -n 's/.*linkguard-example: \(.*\)/\1/p' "$log")
echo "with linkguard: $outputs"

# --- 3. stock wlroots: the same trigger, linkguard watching only
trigger cap "$conn" 0
start_compositor --no-recover
globals=$(wl_output_globals)
trigger cap "$conn" 300000
trigger bad "$conn"
wait_for_log "$name: link-status BAD" 20
wait_for_log 'Bad link detected' 20
tries=100
while [ "$(wl_output_globals)" = "$globals" ] && [ $tries -gt 0 ]; do
	sleep 0.1
	tries=$((tries - 1))
done
wait_for_kernel_mode '[0-9]+x[0-9]+@[0-9]+' 20
stock_globals=$(wl_output_globals)
stock="$(kernel 4) (the compositor's pick), output recreated (global $globals -> $stock_globals)"
[ "$stock_globals" != "$globals" ] ||
	fail "stock wlroots kept global $globals: expected a recreated output"
stop_compositor
echo "== side by side, 4096x2160@60 requested, the link lowered to 300 MHz"
echo "   stock wlroots:  $stock"
echo "   with linkguard: $with_linkguard"
echo "   stock: $(sed -n 's/.*linkguard-example: \(.*\)/\1/p' "$log")"
trigger cap "$conn" 0
