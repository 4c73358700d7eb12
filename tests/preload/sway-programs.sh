#!/bin/sh
# Generated fault programs on Debian's sway with liblinkguard-preload.so and
# the simulated link (its request_state path): cable limits, heals and
# glitch bursts on one 4K60 or 1440p144 monitor, a handful a run, each in a
# fresh sway. Once the link is left alone, each is judged by the oracle
# (lg-oracle-pick: the policy as linkguard-recovery(7) words it, never
# src/policy.c's), against the mode sway reports (swaymsg -t get_outputs)
# and linkguard's log:
#
#   P1  the output is active and link-status good
#   P4  it runs the oracle's pick of the kernel's list, and its last mode
#       change came within the flap window + settle time (+ TOLERANCE_MS
#       for a loaded machine) of the last fault (a BAD, the scenario's or
#       a training of linkguard's that failed)
#   P7  at most two of linkguard's modesets ("retraining at") after it
#
#   sway-programs.sh PRELOAD LINKCTL ORACLE_PICK [PROGRAMS [SEED]]
#
# The figures (last fault -> last mode change, modesets after it) are
# printed per program. LINKGUARD_SEED also sets the seed; a failing
# program is printed whole. Skips (exit 77) when sway is not installed or
# uses another wlroots than the preload was built for.
set -u

usage="usage: $0 PRELOAD LINKCTL ORACLE_PICK [PROGRAMS [SEED]]"
preload=${1:?$usage}
linkctl=${2:?$usage}
oracle_pick=${3:?$usage}
programs=${4:-5}
seed=${5:-${LINKGUARD_SEED:-$(date +%s)}}
config=$(dirname "$0")/sway.config

LG_LOG_NAME=sway LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

preload_fits "$preload" sway
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }

# Scaled down from the defaults (flap window 10 s), as the scenario tests do.
WINDOW_MS=3000 SETTLE_MS=500 TOLERANCE_MS=1000
export WLR_HEADLESS_OUTPUTS=0 LINKGUARD_FLAP_WINDOW=${WINDOW_MS}ms
runtimes=$(preload_runtimes)
export ASAN_OPTIONS=detect_leaks=0
echo "seed $seed (LINKGUARD_SEED=$seed repeats it), $programs programs"

# generate N: program N of the seed, a scenario on stdout.
generate() {
	python3 - "$seed" "$1" <<'PY'
import random, sys
rng = random.Random("%s-%s" % (sys.argv[1], sys.argv[2]))
sink = rng.choice(["4k60", "1440p144"])
print("0 plug DP-1 %s" % sink)
at = 500
for _ in range(rng.randint(2, 5)):
    kind = rng.choice(["flap", "flap", "cable", "heal"])
    if kind == "flap":
        n, gap = rng.randint(1, 10), rng.randint(50, 400)
        print("%dms flap DP-1 %d %dms" % (at, n, gap))
        at += (n - 1) * gap
    elif kind == "cable":
        print("%dms cable DP-1 %s lanes=%d" % (at, rng.choice(["rbr", "hbr", "hbr2", "hbr3"]),
                                           rng.choice([1, 2, 4])))
    else:
        print("%dms heal DP-1" % at)
    at += rng.randint(100, 1500)
print("%dms end" % at)
PY
}

# The log's time (CLOCK_MONOTONIC, "hh:mm:ss.mmm") of its last line that
# matches ERE, in ms; empty when none does.
log_ms() {
	grep -E "$1" "$log" | tail -n 1 |
		awk '{ split($1, t, ":"); if (t[3] != "") printf "%d\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 }'
}

# The number of lines matching ERE timed after ms.
log_count_after() {
	grep -E "$1" "$log" |
		awk -v after="$2" '{ split($1, t, ":"); if (((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 > after) n++ } END { print n + 0 }'
}

now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

run_program() {
	n=$1
	scn=$dir/program-$n.scn
	generate "$n" >"$scn"
	sink=$(sed -n 's/^0 plug DP-1 //p' "$scn")
	rm -rf "$XDG_STATE_HOME"
	: >"$log"
	LINKGUARD_SIM=$scn LD_PRELOAD="$runtimes $preload" sway -c "$config" >"$log" 2>&1 &
	pid=$!
	wait_for_log 'preload: attached' 10
	wait_for_socket
	SWAYSOCK=$(ls "$dir"/sway-ipc.*.sock | head -n 1)
	export SWAYSOCK
	wait_for_log 'sim: scenario done' 30
	# Left alone: until a flap window, the settle time and the tolerance
	# passed since the last fault, and a second more for a BAD the kernel
	# may still send.
	tries=60
	while :; do
		fault=$(log_ms 'DP-1: link-status BAD')
		since=${fault:-$(log_ms 'sim: scenario done')}
		[ $(($(now_ms) - since)) -ge $((WINDOW_MS + SETTLE_MS + TOLERANCE_MS + 1000)) ] && break
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "program $n: the link never quiet: $(cat "$scn")"
		sleep 0.5
	done
	outputs=$(timeout 5 swaymsg -t get_outputs -r) || fail "swaymsg -t get_outputs failed"
	current=$(echo "$outputs" | jq -r '.[0] | "\(.current_mode.width)x\(.current_mode.height)@\(.current_mode.refresh)"')
	active=$(echo "$outputs" | jq -r '.[0].active')
	timeout 5 "$linkctl" --json >"$dir/linkctl.json" || fail "linkctl --json failed"
	link_status=$(jq -r '.connectors[0].link_status' "$dir/linkctl.json")
	# The requested mode, then the kernel's list, as W H MHZ triples.
	modes=$(jq -r '.connectors[0] | [.requested_mode] + .allowed_modes | .[] |
		"\(.width) \(.height) \(.refresh_mhz)"' "$dir/linkctl.json")
	# shellcheck disable=SC2086 # the triples split into arguments
	pick=$("$oracle_pick" "$sink" $modes) || pick=none
	changed=$(log_ms 'DP-1: retraining at')
	after=0
	took=0
	if [ -n "$fault" ]; then
		after=$(log_count_after 'DP-1: retraining at' "$fault")
		[ -n "$changed" ] && [ "$changed" -gt "$fault" ] && took=$((changed - fault))
	fi
	echo "program $n ($sink): $current, the oracle's pick $pick; last fault -> last" \
		"mode change $took ms, $after modesets after it"
	why=
	if [ "$active" != true ] || [ "$link_status" != good ]; then
		why="P1: the output is not lit (active $active, link-status $link_status)"
	elif [ "$current" != "$pick" ]; then
		why="P4: sway runs $current, the oracle picks $pick"
	elif [ "$took" -gt $((WINDOW_MS + SETTLE_MS + TOLERANCE_MS)) ]; then
		why="P4: the last mode change $took ms after the last fault"
	elif [ "$after" -gt 2 ]; then
		why="P7: $after modesets after the last fault"
	fi
	if [ -n "$why" ]; then
		echo "--- program $n (seed $seed)"
		cat "$scn"
		fail "$why"
	fi
	sway_exit >/dev/null
	pid=
	rm -f "$dir"/sway-ipc.*.sock "$dir"/wayland-*
}

sway --version || fail "sway does not run"
n=1
while [ "$n" -le "$programs" ]; do
	run_program "$n"
	n=$((n + 1))
done
ok "$programs generated programs on sway: lit, at the oracle's pick within a flap window and the settle time of the last fault, at most two modesets after it"
