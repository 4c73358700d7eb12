# What the guest's compositor tests share (compositor.sh, sway.sh): the
# connector, lg_link_fault's trigger and figures, the failures every
# compositor goes through and the rows of the side-by-side table (table.sh
# prints them). Sourced after tests/lib.sh, with $status_tool set to
# lg-kernel-status and LG_KERNEL_RESULTS naming the table's file.
#
#   trigger CMD ARGS    one command to lg_link_fault
#   kernel N            field N of lg-kernel-status: 2 link-status,
#                       3 connected, 4 the CRTC's mode ("WxH@mHz" or off)
#   wait_for_kernel_mode ERE SECONDS
#   randr_mode          the current mode wlr-randr lists, "WxH@Hz"
#   failures_begin VARIANT RECOVERS
#                       the compositor under test runs with 4096x2160@60
#                       requested; RECOVERS=1: linkguard recovers in it
#   fail_lowered SCENARIO KHZ [bad|bad-dev]
#                       the link now carries KHZ (0: anything) and fails
#   fail_unplugged SCENARIO, fail_replugged SCENARIO
#                       a failure, then an unplug while it is recovered;
#                       the replug with the cap lifted
#   figure KEY          modesets, modeset_us, flip_us or mode from the
#                       figures lg_link_fault measured for the last failure
#   failures_end        asserts that no AUX transfer came while the link
#                       trained, since failures_begin: linkguard reads the
#                       sink only once a link settled, whether it recovers
#                       or only watches the compositor recover (stock)
#   timed_only          true in the runs after a layer's first
#                       (LG_KERNEL_TIMED_ONLY, guest.sh's repeat): only the
#                       rows table.sh bounds run again
#
# Each fail_* waits for the compositor to settle, checks what must hold
# and appends a row to the table.

name=Virtual-1
stats_param=/sys/module/lg_link_fault/parameters/stats
results=${LG_KERNEL_RESULTS:?set LG_KERNEL_RESULTS to the file of the table rows}
conn=$("$status_tool" | cut -d' ' -f1)
[ -n "$conn" ] || fail "lg-kernel-status found no connector"

timed_only() {
	[ -n "${LG_KERNEL_TIMED_ONLY:-}" ]
}

trigger() {
	echo "$*" >/sys/module/lg_link_fault/parameters/trigger ||
		fail "lg_link_fault refused '$*'"
	triggered_ms=$(date +%s%3N)
}

kernel() {
	"$status_tool" | cut -d' ' -f"$1"
}

wait_for_kernel_mode() {
	tries=$(($2 * 10))
	while ! kernel 4 | grep -Eq "^$1\$"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "the CRTC runs $(kernel 4), not /$1/, after $2 s"
		sleep 0.1
	done
}

randr_mode() {
	randr_output "$name" |
		sed -n 's/^    \([0-9]*x[0-9]*\) px, \([0-9]*\)\.[0-9]* Hz.*current.*/\1@\2/p'
}

# hz MODE: "3840x2160@60000" -> "3840x2160@60" (wlr-randr's whole hertz).
hz() {
	echo "${1%@*}@$((${1#*@} / 1000))"
}

# settle: until lg_link_fault's figures for the last failure have stood
# still for 2 s with the first frame of the last modeset flipped (or the
# connector left dark), for 5 s when no modeset came at all, and 10 s have
# passed since the last trigger (a late extra modeset is seen); at most
# 40 s. Leaves them in $figures.
settle() {
	figures= still=0 tries=400
	while :; do
		now=$(cat "$stats_param") || fail "cannot read lg_link_fault's figures"
		if [ "$now" = "$figures" ]; then
			still=$((still + 1))
		else
			still=0
		fi
		figures=$now
		case $now in
		*" mode=-") need=50 ;;
		*" flip_us=-1 mode=off") need=20 ;;
		*" flip_us=-1 "*) need= ;; # the new mode's first frame is still to come
		*) need=20 ;;
		esac
		[ -n "$need" ] && [ "$still" -ge "$need" ] &&
			[ $(($(date +%s%3N) - triggered_ms)) -ge 10000 ] && return
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "lg_link_fault's figures did not settle in 40 s: $now"
		sleep 0.1
	done
}

figure() {
	echo "$figures" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# ms KEY: a figure in microseconds as milliseconds, "-" when absent.
ms() {
	figure "$1" | awk '{ if ($1 < 0) print "-"; else printf "%.1f\n", $1 / 1000 }'
}

# outputs_change BEFORE AFTER: what a client saw of the wl_output globals.
outputs_change() {
	if [ "$1" = "$2" ]; then
		echo "kept $1"
	elif [ -z "$2" ]; then
		echo "removed $1"
	elif [ -z "$1" ]; then
		echo "added $2"
	else
		echo "recreated $1->$2"
	fi
}

# record SCENARIO: a row of the table, from the kernel and the figures,
# with when the compositor heard of the failure and the frame's cost, from
# the trace.
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$variant" "$(kernel 4)" \
		"$(outputs_change "$before" "$after")" "$(kernel 2)" \
		"$(figure modesets)" "$(ms modeset_us)" "$(ms flip_us)" "$(frame_ms)" \
		"$(heard_ms)" >>"$results"
	breakdown "$1"
}

# traced: the steps linkguard traced since the injected failure (the
# example's -t, its CLOCK_MONOTONIC time: lg_link_fault's clock), one a
# line, "MS STEP" with MS after the failure; nothing without a failure.
traced() {
	at=$(cat /sys/module/lg_link_fault/parameters/failed_at) ||
		fail "cannot read lg_link_fault's failure time"
	[ "$at" != - ] || return 0
	sed -n "s/.*\[linkguard\] $name: trace \([0-9.]*\) s: \(.*\)/\1 \2/p" "$log" |
		awk -v at="$at" '$1 >= at { printf "%.1f %s\n", ($1 - at) * 1000,
			substr($0, length($1) + 2) }'
}

# frame_ms: what the frame of the mode lit cost, in ms ("-" untraced):
# from where its drawing began to the kernel's modeset, the frame of the
# mode's size allocated, drawn and committed. linkguard's begins with its
# last passing test (the frame is allocated there, undrawn, and the commit
# after it draws it); a compositor's own on a new output (stock's
# recreate) with the output's creation.
frame_ms() {
	traced | awk -v modeset="$(ms modeset_us)" '
		$2 == "test" && $3 != "passed" && $3 != "failed" { tested = $1 }
		$2 == "test" && $3 == "passed" { start = tested }
		$2 == "output" && $3 == "new" && start == "" { start = $1 }
		END {
			if (start == "" || modeset == "-") print "-"
			else printf "%.1f\n", modeset - start
		}'
}

# heard_ms: when the compositor first heard of the failure, in ms ("-"
# untraced): the uevent's read, or a replug's new output (wlroots probed
# it). The way there (udevd, libudev, wlroots) is the same for stock and
# linkguard, and under TCG it took from 36 to 810 ms.
heard_ms() {
	traced | awk '$2 == "hotplug" || ($2 == "output" && $3 == "new") {
			print $1; found = 1; exit
		}
		END { if (!found) print "-" }'
}

# breakdown SCENARIO: where the time to picture went, in ms after the
# injected failure: the steps linkguard traced, then the kernel's
# (lg_link_fault, same clock).
breakdown() {
	steps=$(traced | awk '{ printf "%s +%s, ", substr($0, length($1) + 2), $1 }')
	echo "breakdown: $variant, $1 (ms after the failure): ${steps:-no step of linkguard, }kernel: last modeset +$(ms modeset_us), first flip +$(ms flip_us)"
}

# aux_while_training: sets $transfers to lg_link_fault's count of the AUX
# transfers that came while the connector's link trained (a modeset to its
# first vblank, an injected uevent's first 500 ms), the harness's own reads
# left out.
aux_while_training() {
	transfers=$(sed -n "s/^$conn \([0-9]*\)$/\1/p" /sys/module/lg_link_fault/parameters/aux_training)
	[ -n "$transfers" ] || fail "lg_link_fault counts no AUX transfers for connector $conn"
}

# aux_last: who made the last AUX transfer while a link trained, and when,
# in ms after the injected failure (lg_link_fault's aux_training_last).
aux_last() {
	at=$(cat /sys/module/lg_link_fault/parameters/failed_at)
	sed -n "s/^$conn //p" /sys/module/lg_link_fault/parameters/aux_training_last |
		awk -v at="$at" 'function ms(us) { return at == "-" ? us / 1000 : (us / 1e6 - at) * 1000 }
		$1 == "none" { print "none"; next }
		{
			printf "%s (pid %s) read DPCD %s at %+.1f ms of the failure, %s; the last uevent %+.1f ms, enable %+.1f ms, window until %+.1f ms",
				$1, $2, $4, ms($3), $5 ? "during a modeset" : "after it",
				ms($6), ms($7), ms($8)
		}'
}

failures_begin() {
	variant=$1 recovers=$2
	requested=$(kernel 4)
	first_failure=
	aux_while_training
	training_transfers=$transfers
	echo "== $variant: requested $requested on connector $conn"
}

# wait_for_outputs SECONDS WHAT: until a client sees wl_output globals
# (WHAT "some") or none ("none").
wait_for_outputs() {
	tries=$(($1 * 2))
	while :; do
		case $2,$(wl_output_globals) in
		some,?* | none,) return ;;
		esac
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "$variant: still not $2 wl_output after $1 s"
		sleep 0.5
	done
}

# The linkguard log lines and wlroots' own that show the compositor heard
# the failure, counted before it.
reactions() {
	if [ "$recovers" = 1 ]; then
		grep -c "$name: link held at" "$log"
	else
		grep -c 'Bad link detected' "$log"
	fi
}

wait_for_reaction() {
	if [ "$recovers" = 1 ]; then
		wait_for_log "$name: link held at" 30 $(($1 + 1))
	else
		wait_for_log 'Bad link detected' 30 $(($1 + 1))
	fi
}

fail_lowered() {
	[ -n "$first_failure" ] || first_failure=$(date +%s)
	before=$(wl_output_globals)
	was=$(kernel 4)
	seen=$(reactions)
	trigger mark "$conn"
	trigger cap "$conn" "$2"
	trigger "${3:-bad}" "$conn"
	wait_for_reaction "$seen"
	settle
	after=$(wl_output_globals)
	record "$1"
	now=$(kernel 4)
	[ "$(randr_mode)" = "$(hz "$now")" ] ||
		fail "$variant: wlr-randr lists $name at $(randr_mode), the kernel at $now"
	[ "$(figure mode)" != off ] && [ "$(figure mode | cut -d@ -f1)" = "${now%@*}" ] ||
		fail "$variant: the kernel's last modeset lit $(figure mode), the CRTC runs $now"
	if [ "$recovers" = 1 ]; then
		expect_recovered "$1" "$2"
	else
		[ "$after" != "$before" ] ||
			fail "$variant kept wl_output global $before: stock wlroots recreates the output on a bad link"
		ok "$variant, $1: $now, output $(outputs_change "$before" "$after"), $(figure modesets) modesets"
	fi
}

# expect_in_place: the failure recovered without the output: link-status
# Good, the same wl_output global, one modeset.
expect_in_place() {
	[ "$(kernel 2)" = good ] || fail "$variant: link-status is $(kernel 2) after recovery"
	[ -n "$after" ] && [ "$after" = "$before" ] ||
		fail "$variant: wl_output globals went from '$before' to '$after'"
	[ "$(figure modesets)" = 1 ] ||
		fail "$variant: $(figure modesets) modesets for one failure, lg_link_fault: $figures"
}

# expect_recovered SCENARIO KHZ: what linkguard promises, in one modeset,
# with link-status Good and the same wl_output: the mode it ran retrained
# when the link still carries it (KHZ 0), else the policy's pick from the
# kernel's pruned list.
expect_recovered() {
	if [ "$2" = 0 ]; then
		expected=$was how="retrained in place"
	else
		expected=$("$status_tool" predict 4096 2160 "${requested#*@}") ||
			fail "the policy has no fallback in the kernel's list"
		how="the policy's pick"
	fi
	[ "$now" = "$expected" ] ||
		fail "$variant: the CRTC runs $now; expected $expected ($how)"
	expect_in_place
	ok "$variant, $1: $now ($how), link-status Good, wl_output $after kept, 1 modeset, on screen $(ms flip_us) ms after the failure"
}

# Unplugged while the failure is recovered (the same-mode test and the
# forced probe under way): the output goes, nothing else breaks. A third
# BAD within linkguard's flap window (10 s) would be a flap: it waits that out.
fail_unplugged() {
	while [ $(($(date +%s) - first_failure)) -le 10 ]; do
		sleep 0.5
	done
	before=$(wl_output_globals)
	trigger mark "$conn"
	trigger cap "$conn" 120000
	trigger bad "$conn"
	trigger off "$conn"
	wait_for_outputs 20 none
	settle
	alive || fail "$variant died on an unplug during recovery"
	after=
	record "$1"
	ok "$variant, $1: runs on, wl_output $before removed, the CRTC is $(kernel 4)"
}

# Replugged with a link that carries 4096x2160@60 again.
fail_replugged() {
	before=
	trigger mark "$conn"
	trigger cap "$conn" 0
	trigger auto "$conn"
	wait_for_outputs 30 some
	settle
	after=$(wl_output_globals)
	record "$1"
	now=$(kernel 4)
	if [ "$recovers" = 1 ]; then
		[ "$(kernel 2)" = good ] || fail "$variant: link-status $(kernel 2) after the replug"
		[ "$now" = "$requested" ] ||
			fail "$variant: after the replug the CRTC runs $now; requested $requested"
		# Not a stored fallback first and the step up after it.
		[ "$(figure modesets)" = 1 ] ||
			fail "$variant: $(figure modesets) modesets for the replug, lg_link_fault: $figures"
		ok "$variant, $1: back at the requested $requested, link-status Good, 1 modeset, on screen $(ms flip_us) ms after the replug"
	else
		ok "$variant, $1: the CRTC runs $now, link-status $(kernel 2)"
	fi
}

failures_end() {
	aux_while_training
	transfers=$((transfers - training_transfers))
	[ "$transfers" = 0 ] ||
		fail "$variant: $transfers AUX transfers while a link trained; the last: $(aux_last)"
	ok "$variant: AUX transfers while a link trained: 0"
}
