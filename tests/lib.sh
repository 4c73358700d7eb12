# Shared setup of the shell tests that run a compositor over a real socket
# (tests/e2e, tests/protocol). Source it with
#
#   . "$(dirname "$0")/../lib.sh"
#
# and set LG_LOG_NAME (what the log is called in failure output, e.g.
# "compositor") and optionally LG_LOG_LINES (how much of it to show) first.
# It gives the test:
#
#   $dir        a private XDG_RUNTIME_DIR, removed on exit
#   $log        $dir/compositor.log, for the compositor's output
#   $pid        the compositor's pid once the test starts it; the exit trap
#               kills it if it still runs. Set it empty after reaping it.
#   fail MSG    prints MSG and the log's tail, exits 1
#   ok MSG      prints "ok: MSG"
#   alive       whether $pid still runs
#   wait_for_log ERE SECONDS   until the log has a matching line
#
# and the environment of a headless wlroots compositor with no Wayland or
# X11 parent.

fail() {
	echo "FAIL: $*" >&2
	if [ -n "${log:-}" ] && [ -f "$log" ]; then
		echo "--- ${LG_LOG_NAME:-compositor} log (last ${LG_LOG_LINES:-30} lines) ---" >&2
		tail -n "${LG_LOG_LINES:-30}" "$log" >&2
	fi
	exit 1
}

ok() {
	echo "ok: $*"
}

dir=$(mktemp -d) || fail "mktemp failed"
log=$dir/compositor.log
pid=

lg_cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$dir"
}
trap lg_cleanup EXIT
trap 'exit 1' INT TERM

export XDG_RUNTIME_DIR="$dir"
export WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1
unset WAYLAND_DISPLAY WAYLAND_SOCKET DISPLAY

# Whether the compositor still runs (an exited, unreaped child is a zombie).
alive() {
	[ -r "/proc/$pid/stat" ] && [ "$(sed 's/.*) //' "/proc/$pid/stat" | cut -c1)" != Z ]
}

# wait_for_log ERE SECONDS: until the log has a matching line.
wait_for_log() {
	tries=$(($2 * 10))
	while ! grep -Eq -- "$1" "$log"; do
		alive || fail "${LG_LOG_NAME:-compositor} exited while waiting for /$1/"
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "no /$1/ in the log after $2 s"
		sleep 0.1
	done
}
