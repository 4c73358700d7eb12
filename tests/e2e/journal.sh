#!/bin/sh
# End to end: incidents in the systemd journal. The example compositor runs
# a scenario (history.scn: a fallback, a failure, a fallback after it, a
# restore on a replug; step-up.scn: a fallback, a step down while the link
# flaps, the step back up) beside a systemd-journald of the test's own;
# each incident must be one journal entry of the compositor with
# linkguard's MESSAGE_ID, whose fields say what linkctl history --json says
# of it, field by field, in the same order, with the outcomes OUTCOMES.
#
#   journal.sh EXAMPLE LINKCTL SCENARIO OUTCOMES [OPTION...]
#
# OUTCOMES: the incidents' outcomes in order, e.g. "degraded held step-up";
# the options go to the example compositor.
#
# The journald runs in a private mount and PID namespace: its /run and
# /var/log are the test's (nothing of a system journal, or of another
# test's, is seen or written), and it dies with the test. Skips (exit 77)
# without root, which that namespace needs, or without systemd-journald.
set -u

usage="usage: $0 EXAMPLE LINKCTL SCENARIO OUTCOMES [OPTION...]"
example=${1:?$usage}
linkctl=${2:?$usage}
scenario=${3:?$usage}
outcomes=${4:?$usage}
journald=/usr/lib/systemd/systemd-journald

[ -x "$journald" ] || { echo "SKIP: no $journald"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: a journald of the test's own needs root (mount namespace)"; exit 77; }
if [ -z "${LG_JOURNAL_NAMESPACE:-}" ]; then
	exec env LG_JOURNAL_NAMESPACE=1 unshare --mount --pid --fork --mount-proc \
		--propagation private "$0" "$@"
fi
shift 4 # the compositor's options are left
mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/log ||
	{ echo "FAIL: cannot mount the namespace's /run and /var/log"; exit 1; }

LG_LOG_NAME=compositor LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

"$journald" >"$dir/journald.log" 2>&1 &
lg_pids="$lg_pids $!"
tries=50
until [ -S /run/systemd/journal/socket ]; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || fail "journald did not open its socket in 5 s: $(cat "$dir/journald.log")"
	sleep 0.1
done
ok "systemd-journald listens in the test's namespace"

count=$(echo $outcomes | wc -w)
start_server "$example" --sim "$scenario" "$@"
follow_incidents "$count" 30
ok "the compositor recorded $count incidents"
journal_matches_history "$linkctl" DP-1 4k60 "$outcomes" # the simulated monitor's identity
