#!/bin/sh
# tests/lib.sh's own helpers, which the shell tests share. wait_for_log
# waits for a log that does not exist yet: a test that starts its
# compositor with >"$log" & looks before the child has opened it.
set -u
LG_LOG_NAME=writer
. "$(dirname "$0")/../lib.sh"

# The writer creates the log half a second from now.
(
	sleep 0.5
	echo 'running on WAYLAND_DISPLAY=wayland-1' >"$log"
	exec sleep 30
) &
pid=$!
wait_for_log 'running on WAYLAND_DISPLAY=' 10
grep -q 'running on WAYLAND_DISPLAY=' "$log" ||
	fail "wait_for_log returned before the log had its line"
ok "wait_for_log waited for a log created after it began"
