#!/bin/sh
# Layer 7 of the real-kernel harness, in the guest: Debian's compositors as
# packaged, sway, labwc and cage, on wlroots with contrib/wlroots' series
# (the library the test contrib-wlroots built, through LD_LIBRARY_PATH), on
# wlroots' DRM backend (pixman, a seat from seatd), through the failures
# the other compositors go through (kms.sh), without linkguard. Then the
# example compositor, linkguard only watching, on the same library,
# ignoring request_state: the backend's own fallback. Last, where the root
# built wlroots' main with the merge request's series (contrib-wlroots-
# main, Debian testing), main's tinywl on it.
#
#   wlroots.sh STATUS BUILD EXAMPLE
#
# The library is where contrib/wlroots/test.sh leaves it in BUILD, the
# linkguard build directory (meson test contrib-wlroots builds it, before
# the kernel suite); without it the layer is skipped, saying so.
set -u

# labwc needs what the guest's read-only root lacks: a writable /tmp for
# Xwayland's sockets and a /dev/shm for its keymap. The layer mounts them in
# a mount namespace of its own. The guest's mounts are private already (no
# systemd makes them shared), and a chroot's / is no mount to change.
if [ -z "${LG_WLROOTS_NS:-}" ]; then
	LG_WLROOTS_NS=1 exec unshare --mount --propagation unchanged sh "$0" "$@"
fi

status_tool=$1 build=$2 example=$3
lib=$build/contrib-wlroots/lib
LG_LOG_NAME=compositor LG_LOG_LINES=60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kms.sh"
export WLR_BACKENDS=drm LIBSEAT_BACKEND=seatd

if [ ! -d "$lib" ]; then
	echo "skip (wlroots): Debian's compositors on the patched wlroots: not built at $lib (meson test contrib-wlroots builds it)"
	exit 0
fi
lib=$(realpath "$lib")
config=$(dirname "$0")/../preload/sway.config
# What the layer reads from under /tmp (a checkout there, the library's
# build), bound back onto the tmpfs from where the guest had it: held
# outside $dir, which the layer removes at its end, with what is mounted
# under it (the other root's checkout, guest.sh).
kept= held=${TMPDIR:?}/wlroots-tmp
for path in "$(realpath "$(dirname "$0")/../..")" "$lib"; do
	case $path in
	/tmp/*) kept="$kept $path" ;;
	esac
done
if [ -n "$kept" ]; then
	mkdir -p "$held" && mount --rbind /tmp "$held" || fail "cannot hold /tmp at $held"
fi
mount -t tmpfs -o mode=1777 tmpfs /tmp || fail "cannot mount a tmpfs on /tmp"
for path in $kept; do
	mkdir -p "$path" && mount --bind "$held${path#/tmp}" "$path" ||
		fail "cannot bind $path back on the tmpfs of /tmp"
done
mkdir -p /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || fail "cannot mount a tmpfs on /dev/shm"
seatd -g root >"$dir/seatd.log" 2>&1 &
seatd_pid=$!
trap 'kill $seatd_pid 2>/dev/null; lg_cleanup' EXIT

# The series keeps the output and recovers as linkguard does (kms.sh's
# RECOVERS=1: one modeset, link-status Good, the same wl_output, the
# policy's pick from the pruned list); that the compositor heard the
# failure shows in the kernel, where its modeset sets link-status Good
# again (cage logs nothing of wlroots').
reactions() {
	echo 0
}

wait_for_reaction() {
	tries=300
	while [ "$(kernel 2)" != good ]; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "$variant: link-status still Bad 30 s after the failure"
		sleep 0.1
	done
}

# start NAME: the compositor on the patched wlroots, then the requested
# 4096x2160@60 through wlr-output-management, as a user's tool would.
start() {
	: >"$log"
	case $1 in
	sway) LD_LIBRARY_PATH=$lib sway -V -c "$config" >"$log" 2>&1 & ;;
	labwc) LD_LIBRARY_PATH=$lib labwc -V >"$log" 2>&1 & ;;
	cage) LD_LIBRARY_PATH=$lib cage -- sleep 3600 >"$log" 2>&1 & ;;
	example) LD_LIBRARY_PATH=$lib "$example" --no-recover \
		--ignore-request-state >"$log" 2>&1 & ;;
	tinywl) "$lib/tinywl/tinywl" >"$log" 2>&1 & ;;
	esac
	pid=$!
	echo "$pid" >"$dir/compositor.pid"
	wait_for_socket
	wait_for_kernel_mode '[0-9]+x[0-9]+@[0-9]+' 60
	loaded=$(sed -n 's/.* \(\/.*libwlroots-[0-9.]*\.so\)$/\1/p' "/proc/$pid/maps" | sort -u)
	[ "$loaded" = "$lib/$(basename "$loaded")" ] ||
		fail "$1 runs $loaded, not the patched wlroots of $lib"
	# tinywl runs the preferred mode: it has no output management.
	[ "$1" != tinywl ] || return 0
	timeout 10 wlr-randr --output "$name" --mode 4096x2160@60Hz ||
		fail "wlr-randr could not set 4096x2160@60 in $1"
	wait_for_kernel_mode '4096x2160@60[0-9]*' 30
}

# cage exits with its application, and waits for it when told to exit: its
# children go first.
stop() {
	for status_file in /proc/[0-9]*/status; do
		if grep -q "^PPid:[[:space:]]*$pid\$" "$status_file" 2>/dev/null; then
			child=${status_file#/proc/}
			kill "${child%/status}" 2>/dev/null
		fi
	done
	kill "$pid" 2>/dev/null
	wait "$pid"
	pid=
	rm -f "$dir/compositor.pid"
	grep -E 'Bad link|Retraining|no longer available|fallback mode' "$log" |
		sed 's/^/    log: /'
	rm -f "$dir"/wayland-*
}

# run_compositor NAME VARIANT: the failures on one compositor. The replug
# is a new output, whose mode the compositor picks as for any monitor
# (kms.sh asserts the requested mode back only of linkguard, RECOVERS=1):
# sway picks the fallback it stored from the series' request_state, which
# the cover letter says.
run_compositor() {
	trigger cap "$conn" 0
	start "$1"
	failures_begin "$2" 1
	fail_lowered "lowered to 300 MHz, mode pruned" 300000
	fail_lowered "lowered again to 150 MHz (cascade)" 150000
	fail_unplugged "unplugged during recovery"
	recovers=0
	fail_replugged "replugged, cap lifted"
	recovers=1
	fail_lowered "link fails, the mode still fits" 0
	failures_end
	stop
}

# run_example VARIANT: a compositor that leaves the backend's request_state
# unanswered (linkguard only watching). A second later the backend commits
# the mode it requested: the same output at the patch's pick, one modeset.
run_example() {
	trigger cap "$conn" 0
	start example
	failures_begin "$1" 1
	fail_lowered "lowered to 300 MHz, mode pruned, request_state ignored" 300000
	failures_end
	mode=$(kernel 4)
	stop
	grep -q 'linkguard-example: 1 outputs created, 0 destroyed' "$log" ||
		fail "$1: the example did not exit with its one output kept"
	grep -q "$name: ignoring a request_state" "$log" ||
		fail "$1: the example was not requested a state"
	# "applying 2560x1600 @ 59.972 Hz" -> 2560x1600@59972, as the kernel's
	applied=$(sed -n 's/.*Compositor did not apply the fallback mode, applying \([0-9]*x[0-9]*\) @ \([0-9]*\)\.\([0-9]*\) Hz$/\1@\2\3/p' "$log")
	[ "$applied" = "$mode" ] ||
		fail "$1: the backend applied '$applied', the CRTC ran $mode"
	ok "$1: request_state ignored, the backend applied $applied itself"
}

# run_tinywl VARIANT: wlroots main's own compositor on main with the merge
# request's series. It answers request_state as the series asks: the link
# lowered below the mode it runs (vkms' preferred 1024x768@60, 65 MHz),
# the backend requests its pick from the pruned list and tinywl commits
# it: one modeset, link-status Good, the same wl_output.
run_tinywl() {
	lib=$main_lib
	trigger cap "$conn" 0
	start tinywl
	failures_begin "$1" 1
	case $requested in
	1024x768@60*) ;;
	*) fail "$1: tinywl runs $requested; the row expects vkms' preferred 1024x768@60" ;;
	esac
	before=$(wl_output_globals)
	trigger mark "$conn"
	trigger cap "$conn" 50000
	trigger bad "$conn"
	wait_for_log 'Current mode no longer available on the link, requesting' 30 1
	wait_for_reaction
	settle
	after=$(wl_output_globals)
	record "lowered to 50 MHz, mode pruned"
	now=$(kernel 4)
	asked=$(sed -n 's/.*no longer available on the link, requesting \([0-9]*x[0-9]*\) @ \([0-9]*\)\.\([0-9]*\) Hz$/\1@\2\3/p' "$log" | tail -n 1)
	[ "$now" = "$asked" ] || fail "$1: the backend requested '$asked', the CRTC runs $now"
	expect_in_place
	failures_end
	stop
	! grep -q 'Compositor did not apply the fallback' "$log" ||
		fail "$1: tinywl did not apply the requested state; the backend did"
	ok "$1: lowered to 50 MHz: requested and committed $now, link-status Good, wl_output $after kept, 1 modeset"
}

# run FUNCTION ARGS...: one compositor's run. Its failure leaves the others
# to run; a compositor it left is killed.
run() {
	("$@") || status=1
	if [ -s "$dir/compositor.pid" ]; then
		kill -KILL "$(cat "$dir/compositor.pid")" 2>/dev/null
		rm -f "$dir/compositor.pid"
	fi
	rm -f "$dir"/wayland-* "$dir"/sway-ipc.*.sock
}

status=0
series=$(basename "$(ls "$lib"/libwlroots-*.so)" .so | sed 's/^lib//')
for compositor in sway labwc cage; do
	if ! command -v "$compositor" >/dev/null 2>&1; then
		echo "note: $compositor is not installed in this root"
		continue
	fi
	case $compositor in
	cage) flag=-v ;;
	*) flag=--version ;;
	esac
	version=$("$compositor" $flag 2>&1 |
		sed -n 's/.*[Vv]ersion \([0-9.]*\).*/\1/p; s/^labwc \([0-9.]*\).*/\1/p')
	run run_compositor "$compositor" "$compositor $version + $series patch"
done
run run_example "example + $series patch"
# wlroots' main with the merge request's series, where this root built it
# (contrib-wlroots-main: Debian testing's).
main_lib=$build/contrib-wlroots-main/lib
if [ -x "$main_lib/tinywl/tinywl" ]; then
	main_lib=$(realpath "$main_lib")
	run run_tinywl "tinywl + main-329a88e7 patch"
else
	echo "note: wlroots main with the series is not built at $main_lib (contrib-wlroots-main builds it where the root has what main needs)"
fi
trigger cap "$conn" 0
exit $status
