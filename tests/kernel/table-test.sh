#!/bin/sh
# table.sh's bounds on rows made here, as kms.sh records them: three runs of
# the rows the harness times (figures of the README's table: the example
# and sway 1.10.1 beside stock), one of them on a loaded machine (the
# uevent read 700 ms late, the frames twice as slow), pass; the same with
# linkguard slowed before its choice of mode, as a sleep in its recovery
# path would, fail where the bound says (the replug's; the other rows have
# the slack of stock's recreate); a row just inside and just outside the
# same-mode bound; a row of linkguard's without its trace fails.
set -u
table=$(dirname "$0")/table.sh
. "$(dirname "$0")/selftest.sh"

# row SCENARIO VARIANT MODE HEARD FRAME LESS: one run's row, its flip HEARD +
# FRAME + LESS ms after the failure, its modeset a vblank before ("-" in
# HEARD and FRAME: untraced).
row() {
	if [ "$4" = - ]; then
		flip=$5 heard=- frame=-
	else
		flip=$(echo "$4 $5 $6" | awk '{ printf "%.1f", $1 + $2 + $3 }') heard=$4 frame=$5
	fi
	printf '%s\t%s\t%s\tkept 1\tgood\t1\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" \
		"$(echo "$flip" | awk '{ printf "%.1f", $1 - 16.7 }')" "$flip" "$frame" "$heard"
}

# runs FILE SLOW [LOAD]: three runs of the timed rows into FILE, linkguard's
# choice SLOW ms later; the second run on a loaded machine when LOAD is set.
runs() {
	: >"$1"
	for run in 1 2 3; do
		late=0 slower=1
		if [ "$run" = 2 ] && [ -n "${3:-}" ]; then
			late=700 slower=2
		fi
		# A bit of scatter from run to run.
		jitter=$(echo "$run" | awk '{ print ($1 - 2) * 0.3 }')
		at() { echo "$1 $2 $3" | awk -v late=$late -v slower=$slower -v jitter="$jitter" \
			'{ printf "%.1f %.1f %.1f", $1 + late, $2 * slower, $3 + jitter }'; }
		{
			pruned="lowered to 300 MHz, mode pruned"
			row "$pruned" "example (wlroots 0.18) + linkguard" 2560x1600@59972 $(at 67.7 85.1 $((22 + $2)))
			row "$pruned" "example (wlroots 0.18), stock" 1024x768@60004 $(at 17.3 14.7 48.9)
			row "$pruned" "sway 1.10.1, stock" 1024x768@60004 $(at 13.9 61.0 75.5)
			row "$pruned" "sway 1.10.1 + preload" 2560x1600@59972 $(at 15.5 103.5 $((19 + $2)))
			row "$pruned" "sway 1.10.1, contrib patch" 2560x1600@59972 - 139.8
			unplugged="unplugged during recovery"
			printf '%s\t%s\toff\tremoved 50\tbad\t1\t86.9\t-\t-\t-\n' "$unplugged" "sway 1.10.1 + preload"
			printf '%s\t%s\toff\tremoved 52\tbad\t1\t125.2\t-\t-\t-\n' "$unplugged" "sway 1.10.1, stock"
			replug="replugged, cap lifted"
			row "$replug" "example (wlroots 0.18) + linkguard" 4096x2160@60000 $(at 65.4 112.0 $((17 + $2)))
			row "$replug" "example (wlroots 0.18), stock" 1024x768@60004 $(at 71.5 12.8 16.7)
			row "$replug" "sway 1.10.1, stock" 4096x2160@60000 $(at 74.0 126.3 16.7)
			row "$replug" "sway 1.10.1 + preload" 4096x2160@60000 $(at 75.9 116.5 $(echo "17.6 $2" | awk '{ print $1 + $2 }'))
			fits="link fails, the mode still fits"
			row "$fits" "sway 1.10.1, stock" 4096x2160@60000 $(at 53.0 113.9 68.5)
			row "$fits" "sway 1.10.1 + preload" 4096x2160@60000 $(at 56.5 2.3 $((17 + $2)))
		} >>"$1"
	done
}

# judge NAME WANT: table.sh on $dir/NAME; WANT: its exit status. Leaves its
# output in $out and its bound lines in $bounds.
judge() {
	out=$(sh "$table" "$dir/$1")
	got=$?
	bounds=$(echo "$out" | grep ': bound, ')
	[ -n "$bounds" ] || fail "$1: table.sh printed no bound: $out"
	[ "$got" = "$2" ] || fail "$1: exit $got, want $2; it said: $out"
}

runs "$dir/within" 0 loaded
judge within 0
[ "$(echo "$bounds" | grep -c '^     ok: bound, ')" = 5 ] ||
	fail "within: not 5 rows bounded and within: $bounds"
echo "$out" | grep -q 'contrib patch: .*bound' && fail "within: the untraced patch is bounded: $out"
echo "$bounds" | grep -qF 'ok: bound, replugged, cap lifted, sway 1.10.1 + preload: heard ->flip less its frame 17.6 ms <= 35.1 ms (4096x2160@60000, as stock' ||
	fail "within: the replug's same-mode bound is not 1.10 of stock's 16.7 ms and a frame: $bounds"
echo "$bounds" | grep -qF 'ok: bound, replugged, cap lifted, example (wlroots 0.18) + linkguard: heard ->flip less its frame 17.0 ms <= 29.8 ms (4096x2160@60000, larger than stock' ||
	fail "within: the example's replug is not bounded by stock's whole heard ->flip, 29.8 ms: $bounds"

# linkguard 20 ms slower to choose: both replugs fail, the rest stays within.
runs "$dir/slowed" 20
judge slowed 1
failing=$(echo "$bounds" | sed -n 's/^FAIL: bound, \([^:]*\):.*/\1/p' | tr '\n' ';')
[ "$failing" = "replugged, cap lifted, example (wlroots 0.18) + linkguard;replugged, cap lifted, sway 1.10.1 + preload;" ] ||
	fail "slowed by 20 ms: the failing bounds are '$failing', want both replugs: $bounds"

# The same-mode bound is 1.10 of stock and a frame: 35.0 ms passes, 35.2
# fails (stock's 16.7).
for case in "35.0 0" "35.2 1"; do
	set -- $case
	{
		row "replugged, cap lifted" "sway 1.12, stock" 4096x2160@60000 70.0 120.0 16.7
		row "replugged, cap lifted" "sway 1.12 + preload" 4096x2160@60000 70.0 120.0 "$1"
	} >"$dir/edge-$1"
	judge "edge-$1" "$2"
done

# A row of linkguard's without the trace the bound needs fails, saying so.
{
	row "link fails, the mode still fits" "sway 1.12, stock" 4096x2160@60000 53.0 113.9 68.5
	row "link fails, the mode still fits" "sway 1.12 + preload" 4096x2160@60000 - 75.8
} >"$dir/untraced"
out=$(sh "$table" "$dir/untraced")
got=$?
[ "$got" = 1 ] || fail "untraced: exit $got, want 1: $out"
echo "$out" | grep -qx 'FAIL: link fails, the mode still fits, sway 1.12 + preload: no time from when it heard to its flip less its frame, to bound' ||
	fail "untraced: the missing trace is not named: $out"

[ $status = 0 ] && echo "ok: table.sh bounds linkguard's timed rows; a slowed linkguard fails them"
exit $status
