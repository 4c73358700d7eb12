#!/bin/sh
# Runs inside the real-kernel guest (tests/kernel/init starts it in the
# build root shared over 9p): udevd and journald, the DRM modules with vkms
# and lg_link_fault, then the tests. Prints each phase's time since boot.
#
#   guest.sh MODULES_DIR TEST_KMS TEST_DPCD STATUS EXAMPLE LINKCTL PRELOAD BUILD [USERLAND]
#
# USERLAND: the tests run chrooted in that other build root (Debian
# testing's, with wlroots 0.20 and sway 1.12; the programs built there), on
# this kernel, its modules and this root's udevd.
# LG_KERNEL_LAYERS (from run.sh): the layers to run, of "vblank kms dpcd
# compositor sway wlroots" (all when unset), or "hang": every CPU spins with
# interrupts off, for the host's watchdog to explain (hang.sh).
# LG_KERNEL_REPEAT (from run.sh): the timed rows run that many times, for
# the medians table.sh bounds, stopping at the first failure: the
# compositor and sway layers' first run is whole, the later ones run only
# the rows the table bounds (LG_KERNEL_TIMED_ONLY=1: compositor.sh,
# sway.sh).
# LG_KERNEL_VBLANK (from run.sh): the vblank layer's seconds, 30 by default.
set -u
modules=$1 userland=${9:-}
# The only writable place: the root, /tmp included, is read-only.
export TMPDIR=/run/tmp
mkdir -p "$TMPDIR"
# The side-by-side table's rows (kms.sh).
export LG_KERNEL_RESULTS=$TMPDIR/results
: >"$LG_KERNEL_RESULTS"
here=$(dirname "$0")

phase() {
	echo "phase: $1 done at $(cut -d' ' -f1 /proc/uptime) s since boot"
}

echo "kernel: $(uname -r)"
phase boot

# The host's watchdog (watchdog.py) reads this share when the guest stops
# running user space: a heartbeat every 2 s, the tails of the tests' logs,
# and the kernel's text symbols to name what the frozen CPUs run.
share=/run/lg-host
mkdir -p "$share"
mount -t 9p -o trans=virtio,version=9p2000.L host "$share" ||
	{ echo "FAIL: cannot mount the host's share"; exit 1; }
mkdir -p "$share/logs"
mirror_logs() {
	for file in "$TMPDIR"/*/*.log; do
		[ -f "$file" ] || continue
		name=$(echo "${file#"$TMPDIR"/}" | tr / %)
		tail -n 40 "$file" >"$share/logs/$name"
	done
	for mirror in "$share"/logs/*; do
		[ -f "$mirror" ] || continue
		[ -e "$TMPDIR/$(basename "$mirror" | tr % /)" ] || rm -f "$mirror"
	done
}
while :; do
	cut -d' ' -f1 /proc/uptime >"$share/heartbeat"
	mirror_logs
	sleep 2
done &
/usr/lib/systemd/systemd-udevd --daemon >/dev/null 2>&1 ||
	{ echo "FAIL: systemd-udevd did not start"; exit 1; }
# The journal linkguard sends each incident to (compositor.sh reads them
# back): a runtime journal in /run, the root being read-only. journald
# exits without the cgroup hierarchy, which only init would have mounted.
mount -t cgroup2 cgroup2 /sys/fs/cgroup ||
	{ echo "FAIL: cannot mount the cgroup hierarchy for journald"; exit 1; }
/usr/lib/systemd/systemd-journald >"$TMPDIR/journald.log" 2>&1 &
tries=100
until [ -S /run/systemd/journal/socket ]; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] ||
		{ echo "FAIL: systemd-journald did not start: $(cat "$TMPDIR/journald.log")"; exit 1; }
	sleep 0.1
done
for ko in $(cat "$modules/drm.order"); do
	insmod "$modules/$ko" || { echo "FAIL: insmod $ko"; exit 1; }
done
udevadm settle
[ -c /dev/dri/card0 ] || { echo "FAIL: vkms made no /dev/dri/card0"; exit 1; }
phase "modules (drm, vkms, lg_link_fault)"
# The kernel's functions; all of the modules' symbols, whose data bounds
# their last function.
grep -E ' [tT] |\[' /proc/kallsyms >"$share/kallsyms"

# $IN_USERLAND CMD ARGS: in this root or, chrooted, in USERLAND, which then
# shares this guest's /dev, /proc, /sys, /run (udev's database, seatd's
# socket, TMPDIR) and the checkout. dpcd.sh, which runs here, runs only its
# program there. (A prefix, not a function: setsid runs it.) USERLAND's
# /tmp is a tmpfs of its own, as scripts/in-root gives it: the checkout,
# bound after it, may live there.
export IN_USERLAND=
if [ -n "$userland" ]; then
	checkout=$(cd "$here/../.." && pwd)
	mount -t tmpfs -o mode=1777 tmpfs "$userland/tmp" ||
		{ echo "FAIL: cannot mount a tmpfs on $userland/tmp"; exit 1; }
	mkdir -p "$userland$checkout" ||
		{ echo "FAIL: $userland has no $checkout to bind the checkout on"; exit 1; }
	for path in /dev /proc /sys /run "$checkout"; do
		mount --bind "$path" "$userland$path" ||
			{ echo "FAIL: cannot bind $path into $userland"; exit 1; }
	done
	IN_USERLAND="chroot $userland"
	echo "userland: $(. "$userland/etc/os-release" && echo "$PRETTY_NAME"), $userland"
fi

layers=${LG_KERNEL_LAYERS:-vblank kms dpcd compositor sway wlroots}
runs() {
	case " $layers " in
	*" $1 "*) return 0 ;;
	esac
	echo "== (layer $1 not selected: LG_KERNEL_LAYERS='$layers')"
	return 1
}

# layer SECONDS CMD ARGS: runs a layer in its own session; one still
# running after SECONDS hangs (a task blocked in the kernel, a client
# waiting on a compositor that no longer answers): the watchdog shows where
# each of its processes waits and what the compositor logged, then kills
# it, and the layer fails instead of qemu's timeout ending the guest.
layer() {
	limit=$1
	shift
	setsid "$@" &
	layer_pid=$!
	(
		sleep "$limit"
		echo "FAIL: the layer still runs after $limit s; where its processes wait:"
		for stat in /proc/[0-9]*/stat; do
			proc=${stat%/stat}
			[ "$(cut -d' ' -f6 "$stat" 2>/dev/null)" = "$layer_pid" ] || continue
			echo "  ${proc#/proc/} $(sed 's/.*) \(.\).*/\1/' "$stat") $(tr '\0' ' ' <"$proc/cmdline")"
			sed 's/^/      /' "$proc/stack" 2>/dev/null
		done
		for file in "$TMPDIR"/*/*.log; do
			[ -f "$file" ] || continue
			echo "--- $file (last 40 lines) ---"
			tail -n 40 "$file"
		done
		echo w >/proc/sysrq-trigger # the tasks blocked in the kernel
		sleep 1
		dmesg | sed -n '/sysrq: Show Blocked State/,$p' | tail -n +2
		: >"$TMPDIR/layer-hung"
		kill -TERM "-$layer_pid"
		sleep 5
		kill -KILL "-$layer_pid" 2>/dev/null
	) &
	watchdog=$!
	wait "$layer_pid"
	layer_status=$?
	# Killed (or ending by itself between the dump and the kill): the
	# watchdog finishes, its KILL taking what outlived the shell's TERM.
	if [ -e "$TMPDIR/layer-hung" ]; then
		wait "$watchdog"
		rm "$TMPDIR/layer-hung"
		return 1
	fi
	kill "$watchdog" 2>/dev/null
	return $layer_status
}

# repeat CMD ARGS: CMD LG_KERNEL_REPEAT times, until one fails, the runs
# after the first with only the timed rows. The table keeps every run's
# rows (table.sh bounds their medians).
repeat() {
	times=${LG_KERNEL_REPEAT:-1} run=1 result=0
	while [ "$run" -le "$times" ]; do
		started=$(cut -d' ' -f1 /proc/uptime)
		if ! "$@"; then
			echo "FAIL: run $run of $times failed"
			result=1
			break
		fi
		[ "$times" = 1 ] || echo "repeat: run $run of $times passed in $(awk -v s="$started" \
			'{ printf "%.0f", $1 - s }' /proc/uptime) s${LG_KERNEL_TIMED_ONLY:+ (the timed rows)}"
		run=$((run + 1))
		export LG_KERNEL_TIMED_ONLY=1
	done
	unset LG_KERNEL_TIMED_ONLY
	return $result
}

if [ "$layers" = hang ]; then
	conn=$($IN_USERLAND "$4" | cut -d' ' -f1)
	sleep 3 # a heartbeat or two first
	# The line reaches the host as the serial port's interrupts drain it,
	# which the hang stops: it is said a second ahead (a cold run lost it).
	echo "hang: every CPU spins with interrupts off from $(awk '{ print $1 + 1 }' /proc/uptime) s"
	sleep 1
	echo "hang $conn" >/sys/module/lg_link_fault/parameters/trigger
	echo "FAIL: the guest still runs after the hang trigger"
	exit 1
fi

# A program that crashes leaves its core here, named after its executable
# (%E: its path, "!" for "/"), which crashes.sh reads at the end. /run is
# the same in USERLAND (bound).
mkdir -p "$TMPDIR/cores"
echo "$TMPDIR/cores/core.%E.%p" >/proc/sys/kernel/core_pattern
ulimit -c unlimited

status=0
if runs vblank; then
	echo "== 0. vkms' vblank timer: the CRTC turned off at every phase of it"
	$IN_USERLAND "$(dirname "$2")/lg-kernel-vblank" "${LG_KERNEL_VBLANK:-30}" || status=1
	phase "vblank layer"
fi
if runs kms; then
	echo "== 1. linkguard's libdrm layer on the kernel"
	$IN_USERLAND "$2" || status=1
	phase "libdrm layer"
fi
if runs dpcd; then
	echo "== 2. the sink's DPCD through the kernel's AUX device"
	sh "$here/dpcd.sh" "$modules" "$3" || status=1
	phase "DPCD layer"
fi
if runs compositor; then
	echo "== 3-5. the example compositor on wlroots' DRM backend"
	# Its whole first run took more than 600 s beside a loaded gate.
	repeat layer 900 $IN_USERLAND sh "$here/compositor.sh" "$4" "$5" "$6" || status=1
	phase compositor
fi
if runs sway; then
	echo "== 6. sway on wlroots' DRM backend: stock, with the preload, patched"
	repeat layer 700 $IN_USERLAND sh "$here/sway.sh" "$4" "$7" "$6" "$8" || status=1
	phase sway
fi
if runs wlroots; then
	echo "== 7. Debian's compositors on wlroots with contrib/wlroots' series"
	layer 600 $IN_USERLAND sh "$here/wlroots.sh" "$4" "$8" "$5" || status=1
	phase wlroots
fi
case " $layers " in
*" compositor "* | *" sway "* | *" wlroots "*) sh "$here/table.sh" "$LG_KERNEL_RESULTS" || status=1 ;;
esac
sh "$here/crashes.sh" "${userland:-/}" "$TMPDIR/cores" "$(cd "$here/../.." && pwd)" || status=1
# The console is quiet: warnings only reach the kernel's log.
if dmesg | grep -E -A20 '(WARNING|BUG|Oops):|INFO: task .* blocked'; then
	echo "FAIL: the kernel warned (above)"
	status=1
else
	echo "ok: no kernel warning, BUG or oops in dmesg"
fi
exit $status
