#!/bin/sh
# verdict.sh on consoles made here: a guest that failed one check deep in a
# layer, one that stopped midway, one that skipped a variant, one that
# froze, one that passed. Every failure must be named again at the end,
# under its layer, and only a clean run passes.
set -u
verdict=$(dirname "$0")/verdict.sh
. "$(dirname "$0")/selftest.sh"

# judge NAME WANT [ABSENT]: runs verdict.sh on $dir/NAME.log; WANT: its exit
# status. Leaves its output in $out.
judge() {
	out=$(LINKGUARD_KERNEL_ABSENT=${3:-} "$verdict" "$dir/$1.log" "$dir/$1.frozen")
	got=$?
	[ -n "$out" ] || fail "$1: verdict.sh printed nothing"
	[ "$got" = "$2" ] || fail "$1: exit $got, want $2; it said: $out"
}

# A long run: a check failed in layer 6, then hundreds of lines passed.
{
	echo "kernel: 6.12"
	echo "== 3-5. the example compositor on wlroots' DRM backend"
	echo "ok: the link came back"
	echo "== 6. sway on wlroots' DRM backend: stock, with the preload, patched"
	echo "FAIL: sway 1.10.1 + preload lit 1024x768, want 4096x2160"
	echo "FAIL: run 1 of 1 failed"
	i=0
	while [ $i -lt 300 ]; do echo "ok: row $i"; i=$((i + 1)); done
	echo "== 7. Debian's compositors"
	echo "ok: no kernel warning, BUG or oops in dmesg"
	echo "LG-GUEST-EXIT 1"
} >"$dir/failed.log"
judge failed 1
last=$(echo "$out" | tail -n 4)
echo "$last" | grep -qx "  == 6. sway on wlroots' DRM backend: stock, with the preload, patched: FAIL: sway 1.10.1 + preload lit 1024x768, want 4096x2160" ||
	fail "failed: the check's failure is not in the verdict's last lines: $last"
echo "$out" | grep -q '7. Debian' && fail "failed: a layer that passed is named: $out"
echo "$out" | tail -n 1 | grep -qx "FAIL: the guest's tests exited 1" ||
	fail "failed: the last line is not the verdict: $out"

# Stopped midway (a kernel panic): what failed before it is still named.
printf '%s\n' "kernel: 6.12" "== 1. linkguard's libdrm layer on the kernel" \
	"FAIL: test commit refused" "Kernel panic - not syncing" >"$dir/stopped.log"
judge stopped 1
echo "$out" | grep -q "== 1. linkguard's libdrm layer on the kernel: FAIL: test commit refused" ||
	fail "stopped: the failure before the stop is not named: $out"
echo "$out" | tail -n 1 | grep -q "^FAIL: the guest did not finish" || fail "stopped: $out"

# Exited 1 without a FAIL line: said so, not silently.
printf '%s\n' "== 2. dpcd" "LG-GUEST-EXIT 1" >"$dir/quiet.log"
judge quiet 1
echo "$out" | grep -q "(none printed)" || fail "quiet: no word that no check said FAIL: $out"

# A variant skipped: fails unless the caller said it lacks it, and why.
printf '%s\n' "== 6. sway" "skip (patched): no patched sway in BUILD" "LG-GUEST-EXIT 0" >"$dir/skipped.log"
judge skipped 1
echo "$out" | grep -q "^FAIL: variants did not run: patched" || fail "skipped: $out"
judge skipped 0 "wlroots: no vendor tarball
patched: vendor: sway-1.10.1.tar.xz is missing"
echo "$out" | grep -qx "note: variant 'patched' did not run: vendor: sway-1.10.1.tar.xz is missing (LINKGUARD_KERNEL_ABSENT)" ||
	fail "skipped, absent: the reason is not said: $out"
echo "$out" | tail -n 1 | grep -qx "kernel harness: PASS" || fail "skipped, absent: $out"
# Named without a reason: fails, whether or not it ran.
for absent in patched "patched:" "patched: " "wlroots: gone
patched"; do
	judge skipped 1 "$absent"
	echo "$out" | grep -q "^FAIL: LINKGUARD_KERNEL_ABSENT names a variant without a reason" ||
		fail "skipped, absent '$absent' without a reason: $out"
done

# Frozen: the watchdog's file decides, whatever the console says.
printf '%s\n' "== 3-5. compositor" >"$dir/frozen.log"
: >"$dir/frozen.frozen"
judge frozen 1
echo "$out" | grep -q "^FAIL: the guest froze" || fail "frozen: $out"

printf '%s\n' "kernel: 6.12" "== 1. kms" "ok: all" "LG-GUEST-EXIT 0" >"$dir/passed.log"
judge passed 0
[ "$out" = "kernel harness: PASS" ] || fail "passed: $out"
judge passed 1 patched
echo "$out" | grep -q "^FAIL: LINKGUARD_KERNEL_ABSENT names a variant without a reason" ||
	fail "passed, absent 'patched' without a reason: $out"

[ $status = 0 ] && echo "ok: verdict.sh names every failure at the end, passes only a clean run"
exit $status
