#!/bin/sh
# Layers 3-5 of the real-kernel harness, in the guest: the example
# compositor on wlroots' DRM backend (pixman, a seat from seatd) drives
# vkms; lg_link_fault makes its link fail. With linkguard, then with
# --no-recover (stock wlroots), through the same failures (kms.sh): the
# link lowered so that the requested mode is pruned, a cascade, an unplug
# during recovery, a replug, a failure the mode still fits through; with
# linkguard also linkctl, the link it shows from the sink's DPCD (sink.sh),
# a bare HOTPLUG=1 while the sink's AUX fails, a run with the AUX device
# unreadable, and the incidents in the systemd journal, naming the monitor
# lg_link_fault gives the connector (its EDID, which a forced probe keeps
# and an unplug takes away).
#
#   compositor.sh STATUS EXAMPLE LINKCTL
#
# Where only the timed rows run again (kms.sh's timed_only), the failures
# without a stock row to bound against, the idle AUX figure and the
# journal are left to the first run.
set -u

status_tool=$1 example=$2 linkctl=$3
LG_LOG_NAME=compositor LG_LOG_LINES=60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kms.sh"
. "$(dirname "$0")/sink.sh"
export WLR_BACKENDS=drm LIBSEAT_BACKEND=seatd

seatd -g root >"$dir/seatd.log" 2>&1 &
seatd_pid=$!
trap 'kill $seatd_pid 2>/dev/null; lg_cleanup' EXIT
wlroots=$(ldd "$example" | sed -n 's/.*libwlroots-\([0-9.]*\)\.so.*/\1/p')
# The monitor of lg_link_fault's EDID (module/edid.c): its identity as
# linkguard derives it, its name and serial as wlroots describes it.
monitor=LGK-0001-LF0001 monitor_description="lg_link_fault LF0001"
edid=/sys/class/drm/card0-$name/edid

# The connector's EDID in sysfs, in bytes. Read through a pipe: the file's
# size says nothing, and cmp and wc would trust it.
edid_bytes() {
	cat "$edid" | wc -c
}

# expect_edid WHAT: the connector's EDID is the one it had at the start
# ("same") or there is none ("none").
expect_edid() {
	case $1 in
	same) cat "$edid" | cmp -s - "$dir/edid" ||
		fail "$name's EDID ($(edid_bytes) bytes) is not the one it had at the start" ;;
	none) [ "$(edid_bytes)" = 0 ] || fail "$name has an EDID of $(edid_bytes) bytes while unplugged" ;;
	esac
}

# LAUNCH: what the example runs under (the unreadable sink's run). -t:
# linkguard traces its recoveries (kms.sh's breakdown).
start_compositor() {
	: >"$log"
	# Each run learns known-bad modes for the monitor afresh.
	XDG_STATE_HOME=$(mktemp -d "$dir/state.XXXXXX") || fail "mktemp failed"
	export XDG_STATE_HOME
	${LAUNCH:-} "$example" -t "$@" >"$log" 2>&1 &
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
	failures_end
	kill "$pid"
	wait "$pid"
	pid=
	grep -E '\[linkguard\]|Bad link|disconnected|compositor\.c' "$log" |
		grep -v '(debug)' | sed 's/^/    log: /'
	rm -f "$dir"/wayland-*
}

# --- 3. with linkguard
start_compositor
[ "$(edid_bytes)" = 128 ] || fail "$name has an EDID of $(edid_bytes) bytes, not 128"
cat "$edid" >"$dir/edid"
wait_for_dpcd_link "4096x2160@60 set" 30
failures_begin "example (wlroots $wlroots) + linkguard" 1
fail_lowered "lowered to 300 MHz, mode pruned" 300000
grep -q "$name: fallback 4096x2160@60.000 -> .* (mode-pruned)" "$log" ||
	fail "no mode-pruned fallback in the log"
grep -q "$name: forced probe" "$log" || fail "linkguard did not probe $name"
expect_edid same
ok "the forced probe kept the monitor's EDID"
wait_for_dpcd_link "fallback to $(kernel 4)" 30
timed_only || aux_idle
listing=$("$linkctl")
echo "$listing" | sed 's/^/    linkctl: /'
echo "$listing" | grep -Eq "Last fallback: 4096x2160 px, 60.000 Hz -> .* \(mode-pruned\) at [0-9]+\.[0-9]+ s" ||
	fail "linkctl does not show the fallback with its reason and time"
echo "$listing" | grep -q "Requested mode: 4096x2160 px, 60.000 Hz" ||
	fail "linkctl does not show the requested mode"
ok "linkctl shows the requested mode, the fallback, its reason and time"

fail_lowered "lowered again to 150 MHz (cascade)" 150000
fail_unplugged "unplugged during recovery"
"$linkctl" | grep -q "Connected: no" || fail "linkctl does not show $name disconnected"
expect_edid none
ok "linkctl shows $name disconnected, its EDID gone"
fail_replugged "replugged, cap lifted"
expect_edid same
description=$("$linkctl" --json | jq -r '.connectors[0].description')
case $description in
*"$monitor_description"*) ;;
*) fail "linkctl describes $name as '$description', not the monitor $monitor_description" ;;
esac
ok "replugged: the monitor's EDID back, linkctl: $description"

# A failure the lowered link still carries the mode through (the kernel
# found a lower bpp): the same mode passes its atomic test and is retrained
# in one modeset (fail_lowered counts it); nothing is probed.
probes=$(grep -c "$name: forced probe" "$log")
fail_lowered "link fails, the mode still fits" 0
[ "$(grep -c "$name: forced probe" "$log")" = "$probes" ] ||
	fail "linkguard probed although the same mode passed its test"
ok "same mode still fits: retrained in place without a probe"

# What only linkguard goes through: not timed beside stock.
if ! timed_only; then
	# The sink goes dark with link-status GOOD and no uevent (i915 out of
	# fallbacks, amdgpu retraining in silence): only its DPCD tells.
	fail_dark "the sink goes dark, link-status Good"
	fail_dark "dark, the sink holds HBR at most" 2700

	# A cable that counts symbol errors: degraded, clients told, no modeset.
	fail_errors "symbol errors, 6000 a minute a lane" 100
	echo "$listing" | sed 's/^/    linkctl: /'
	# Every incident of this run in the journal (guest.sh's journald), field by
	# field as linkctl history says it, each naming the monitor.
	journal_matches_history "$linkctl" "$name" "$monitor"

	# The AUX faults come last: two reads in a row that fail leave the AUX
	# device alone for as long as the compositor runs (linkguard(7)), and
	# the checks above need its reads.
	# A dock whose AUX answers late, 1.5 s a transaction: a read (three, six
	# with 6.12's probes) would hold the compositor 9 s. linkguard gives it 1 s
	# (kms/reader.h), says so once, and the compositor answers its clients
	# meanwhile: linkctl, asked over and over until that read gave up (one is
	# due at least every 30 s on a quiet link), at most 40 s, never waits for
	# the whole read. Then the AUX answers in time again, before a second
	# read fails.
	late_lines() {
		grep -v '(debug)' "$log" | grep -c "$name: DPCD read not answered in 1000 ms"
	}
	trigger aux-slow "$conn" 1500
	slowest=0
	end=$(($(date +%s) + 40))
	while [ "$(date +%s)" -lt "$end" ] && [ "$(late_lines)" = 0 ]; do
		start=$(date +%s%N)
		"$linkctl" >/dev/null || fail "linkctl failed while the AUX answered late"
		took=$((($(date +%s%N) - start) / 1000000))
		[ "$took" -le "$slowest" ] || slowest=$took
	done
	trigger aux-slow "$conn" 0
	late=$(late_lines)
	[ "$late" = 1 ] || fail "$late 'DPCD read not answered' lines while the AUX answered late (one expected)"
	[ "$slowest" -lt 4500 ] ||
		fail "the compositor answered linkctl after $slowest ms while a DPCD read hung"
	ok "AUX answering late: the read gave up after 1 s, said once; linkctl answered within $slowest ms"
	# The read after the one given up comes a failed read's wait (30 s)
	# later, at a time of its own: let it come before the next fault, not
	# inside the training that fault starts (failures_end counts AUX
	# transfers there). The hung read's last transfers end first.
	sleep 3
	before=$(aux_transfers)
	end=$(($(date +%s) + 45))
	while [ "$(aux_transfers)" = "$before" ] && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.5
	done
	sleep 1
	echo "note: linkguard read the sink again $(( $(date +%s) - end + 45 )) s after the AUX answered in time"

	# A bare HOTPLUG=1 (older kernels): every connector's link-status is read.
	# Meanwhile every AUX transfer fails: linkguard says so once and recovers
	# as without DPCD.
	# Left out of failures_end's count of AUX transfers while a link
	# trained: the modeset's settle read, which fails at once here, raced
	# the window the module keeps after a bare HOTPLUG=1 (inside it by
	# 119 ms in one run of two; to be understood).
	failed=$(sed -n "s/^$conn .* failed=\([0-9]*\)$/\1/p" "$aux_param")
	aux_while_training
	eio_before=$transfers
	trigger aux-eio "$conn"
	fail_lowered "bare HOTPLUG=1, lowered to 300 MHz" 300000 bad-dev
	trigger aux-ok "$conn"
	aux_while_training
	training_transfers=$((training_transfers + transfers - eio_before))
	reads=$((($(sed -n "s/^$conn .* failed=\([0-9]*\)$/\1/p" "$aux_param") - failed) / 32))
	[ "$reads" -ge 1 ] || fail "linkguard read no DPCD while the AUX failed"
	[ "$(grep -v '(debug)' "$log" | grep -c "$name: DPCD read failed: Input/output error")" = 1 ] ||
		fail "not one 'DPCD read failed' for $reads failed reads"
	ok "AUX failing: $reads failed DPCD read(s), one log line, recovered as without DPCD"

fi
stop_compositor


# --- 4. stock wlroots: the same failures, linkguard watching only
trigger cap "$conn" 0
start_compositor --no-recover
failures_begin "example (wlroots $wlroots), stock" 0
fail_lowered "lowered to 300 MHz, mode pruned" 300000
fail_lowered "lowered again to 150 MHz (cascade)" 150000
fail_unplugged "unplugged during recovery"
fail_replugged "replugged, cap lifted"
fail_lowered "link fails, the mode still fits" 0
timed_only || fail_dark "the sink goes dark, link-status Good"
stop_compositor
trigger cap "$conn" 0

# --- 5. linkguard with the sink's AUX device unreadable (mode 000, no
# CAP_DAC_OVERRIDE): it says so once and recovers as without DPCD.
aux_mode=$(stat -c %a "$aux_dev")
chmod 000 "$aux_dev"
LAUNCH="setpriv --bounding-set -dac_override,-dac_read_search"
start_compositor
LAUNCH=
failures_begin "example (wlroots $wlroots) + linkguard, no DPCD" 1
fail_lowered "lowered to 300 MHz, mode pruned" 300000
"$linkctl" | grep -q "^  Link: unknown$" || fail "linkctl shows a link without DPCD"
[ "$(grep -v '(debug)' "$log" | grep -c "DP AUX device not readable")" = 1 ] ||
	fail "not one 'DP AUX device not readable' in the log"
ok "AUX device unreadable: said once, recovered as without DPCD, linkctl: Link: unknown"
stop_compositor
chmod "$aux_mode" "$aux_dev"
trigger cap "$conn" 0
