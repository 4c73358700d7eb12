#!/bin/sh
# Generated fault programs on Debian's sway with liblinkguard-preload.so and
# the simulated link (its request_state path): cable limits, heals and
# glitch bursts on one 4K60 or 1440p144 monitor, each in a fresh sway.
# Once the link is left alone, each is judged by what the world shows,
# never by linkguard's state or protocol: whether sway has the output on
# (swaymsg -t get_outputs) and the simulated kernel's lines in the log
# ("sim: DP-1: ..."; the mode it runs, its link, its modesets), against
# the oracle (lg-oracle-pick: the sink's preferred mode as
# the requested one, the kernel's list at the link it allows now by the DP
# formulas, the policy as linkguard-recovery(7) words it):
#
#   P1  the output is active and the kernel's link trained, link-status
#       good
#   P4  it runs the oracle's pick, and the last modeset came within the
#       flap window + settle time (+ TOLERANCE_MS for a loaded machine)
#       of the last fault (a BAD, the scenario's or a training that
#       failed), or as soon as P2's budget let it (12 modesets in 10 s)
#   P7  at most two modesets, as the kernel counted them, after it
#
#   sway-programs.sh PRELOAD ORACLE_PICK [PROGRAMS [SEED]]
#
# The figures (last fault -> last modeset, modesets after it) are printed
# per program. LINKGUARD_SEED also sets the seed; a failing program is
# printed whole, with the command that repeats it. Skips (exit 77) when
# sway is not installed or uses another wlroots than the preload was built
# for.
set -u

usage="usage: $0 PRELOAD ORACLE_PICK [PROGRAMS [SEED]]"
preload=${1:?$usage}
oracle_pick=${2:?$usage}
programs=${3:-5}
seed=${4:-${LINKGUARD_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}}
config=$(dirname "$0")/sway.config

LG_LOG_NAME=sway LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

preload_fits "$preload" sway
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }

# Scaled down from the defaults (flap window 10 s), as the scenario tests do.
WINDOW_MS=3000 SETTLE_MS=500 TOLERANCE_MS=1000
# P2's budget, the spec's: at most 12 modesets in any 10 s. A burst that
# spent it holds the answer back until the window passes.
BUDGET=12 BUDGET_WINDOW_MS=10000
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

# The times (CLOCK_MONOTONIC, "hh:mm:ss.mmm") of the log's lines that match
# ERE, in ms, one a line.
log_times() {
	grep -E "$1" "$log" |
		awk '{ split($1, t, ":"); if (t[3] != "") printf "%d\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 }'
}

# The time of the last line that matches ERE; empty when none does.
log_ms() {
	log_times "$1" | tail -n 1
}

# The number of lines matching ERE timed after ms.
log_count_after() {
	log_times "$1" | awk -v after="$2" '$1 > after { n++ } END { print n + 0 }'
}

# The link the kernel allows now (its maximum: at the plug, or lowered
# since), as "RATE_MBPS LANES".
kernel_max() {
	sed -n 's/.*sim: DP-1: .*\(link up to\|lowered link to\) \([A-Z0-9.]*\) x\([0-9]\).*/\2 \3/p' \
		"$log" | tail -n 1 | awk '{
			split("RBR 1620 HBR 2700 HBR2 5400 HBR3 8100 UHBR10 10000 UHBR13.5 13500 UHBR20 20000", r, " ")
			for (i = 1; i < 14; i += 2) if (r[i] == $1) print r[i + 1], $2 }'
}

# The mode the kernel runs, as "WxH@mHz": its last modeset's, or a commit
# of the mode it runs (sway's own, of a headless output's custom mode,
# which swaymsg reports without its refresh).
kernel_mode() {
	sed -n 's/.*sim: DP-1: \(modeset to \)\{0,1\}\([0-9]*x[0-9]*@[0-9.]*\)\( committed as it runs.*\)\{0,1\}$/\2/p' \
		"$log" | tail -n 1 | awk -F@ '{ printf "%s@%d\n", $1, $2 * 1000 + 0.5 }'
}

# Whether the kernel's last word on the link is that it runs, trained and
# link-status good.
kernel_lit() {
	grep -E 'sim: DP-1: .*(link trained at|link-status|training failed|CRTC is off|retrain disabled|lost lock)' \
		"$log" | tail -n 1 | grep -qE 'link trained at|link-status GOOD'
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
	# may still send; then until the kernel's link runs, or the budget's
	# window passed too.
	quiet=$((WINDOW_MS + SETTLE_MS + TOLERANCE_MS + 1000))
	tries=80
	while :; do
		fault=$(log_ms 'sim: DP-1: .*link-status BAD')
		since=${fault:-$(log_ms 'sim: scenario done')}
		waited=$(($(now_ms) - since))
		if [ "$waited" -ge "$quiet" ]; then
			kernel_lit && break
			[ "$waited" -ge $((quiet + BUDGET_WINDOW_MS)) ] && break
		fi
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "program $n: the link never quiet: $(cat "$scn")"
		sleep 0.5
	done
	outputs=$(timeout 5 swaymsg -t get_outputs -r) || fail "swaymsg -t get_outputs failed"
	active=$(echo "$outputs" | jq -r '.[0].active')
	current=$(kernel_mode)
	max=$(kernel_max)
	[ -n "$max" ] || fail "program $n: the log does not say the kernel's link (sim: DP-1: ... link up to)"
	# shellcheck disable=SC2086 # rate and lanes, two arguments
	pick=$("$oracle_pick" "$sink" $max) || pick=none
	lit=no
	kernel_lit && lit=yes
	changed=$(log_ms 'sim: DP-1: modeset to')
	[ -n "$changed" ] || fail "program $n: the log shows no modeset (sim: DP-1: modeset to)"
	after=0
	took=0
	bound=$((WINDOW_MS + SETTLE_MS))
	if [ -n "$fault" ]; then
		after=$(log_count_after 'sim: DP-1: modeset to' "$fault")
		[ "$changed" -gt "$fault" ] && took=$((changed - fault))
		# The last modeset may wait for the budget: until the one
		# BUDGET before it is a window old.
		gate=$(log_times 'sim: DP-1: modeset to' | tail -n $((BUDGET + 1)) |
			awk -v n="$BUDGET" -v w="$BUDGET_WINDOW_MS" \
				'NR == 1 { first = $1 } END { print (NR > n ? first + w : 0) }')
		[ $((gate - fault)) -gt "$bound" ] && bound=$((gate - fault))
	fi
	echo "program $n ($sink): the kernel runs $current, the oracle's pick $pick at the kernel's" \
		"$max; last fault -> last modeset $took ms (bound $bound ms), $after modesets after it"
	# Where the kernel takes no mode (pick none) there is nothing to light:
	# P1 and P4's mode hold, the time bound and P7 are still judged.
	why=
	[ "$pick" != none ] || nothing_fits=$((nothing_fits + 1))
	if [ "$pick" != none ] && { [ "$active" != true ] || [ "$lit" != yes ]; }; then
		why="P1: the output is not lit (active $active, link trained and good: $lit)"
	elif [ "$pick" != none ] && [ "$current" != "$pick" ]; then
		why="P4: the kernel runs $current, the oracle picks $pick"
	elif [ "$took" -gt $((bound + TOLERANCE_MS)) ]; then
		why="P4: the last modeset $took ms after the last fault (bound $bound ms)"
	elif [ "$after" -gt 2 ]; then
		why="P7: $after modesets after the last fault"
	fi
	if [ -n "$why" ]; then
		echo "--- program $n (seed $seed)"
		cat "$scn"
		echo "repeat: LG_SANITIZE=${LG_SANITIZE:-none} CC=${CC:-cc} LINKGUARD_SEED=$seed" \
			"$0 $preload $oracle_pick $n"
		fail "$why"
	fi
	sway_exit >/dev/null
	pid=
	rm -f "$dir"/sway-ipc.*.sock "$dir"/wayland-*
}

sway --version || fail "sway does not run"
n=1
nothing_fits=0
while [ "$n" -le "$programs" ]; do
	run_program "$n"
	n=$((n + 1))
done
ok "$programs generated programs on sway ($nothing_fits where the kernel took no mode): lit, at the oracle's pick within a flap window and the settle time of the last fault (or the budget's wait), at most two modesets after it"
