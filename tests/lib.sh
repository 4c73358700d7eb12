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
#   $lg_pids    more background processes the exit trap kills (a test adds
#               to it)
#   fail MSG    prints MSG and the log's tail, exits 1
#   ok MSG      prints "ok: MSG"
#   alive       whether $pid still runs
#   reap PID SECONDS    waits for PID (a child) to exit, at most SECONDS;
#               its exit status, or 124 after showing where it waits and
#               killing it
#   wait_for_log ERE SECONDS [COUNT]   until the log has COUNT (1)
#               matching lines
#   wait_for_line FILE ERE SECONDS [SHOW]   until FILE has a matching line
#               (another process writes it); failing, shows SHOW (FILE)
#   wl_output_globals   the wl_output global names a client sees (wayland-
#               info): a recreated output comes back under a new name
#   wait_for_socket     exports WAYLAND_DISPLAY once the compositor's
#               socket is in $dir
#   start_server CMD ARGS...   runs a compositor that logs "running on
#               WAYLAND_DISPLAY=NAME" into $log, exports WAYLAND_DISPLAY
#   stop_server sends it SIGTERM and reaps it; fails unless it exited 0
#               within 30 s
#   run_status VAR CMD...      runs CMD, stores its exit status in VAR
#   preload_runtimes    what must precede a sanitized preload in LD_PRELOAD
#   preload_fits PRELOAD BINARY   skips (77) unless BINARY is installed and
#               uses the wlroots PRELOAD was built for
#   randr_output NAME   NAME's block in wlr-randr's listing
#   current_mode_is BLOCK WxH HZ   whether that block's current mode is it
#   sway_exit   asks the sway at $pid to exit (swaymsg) and reaps it
#               (30 s); its exit status
#   start_session_bus   a private D-Bus session bus in $dir (dbus-daemon),
#               without service activation; exports DBUS_SESSION_BUS_ADDRESS
#   cue NAME    lets a scenario that waits for NAME go on ("wait NAME" in a
#               scenario file): the test saw what the scenario waits for
#   uncue       takes the cues back, for the next compositor in $dir
#   follow_incidents COUNT SECONDS   until the log has COUNT incidents on
#               DP-1, giving the cues a scenario waits for as they come:
#               "trained" at DP-1's first link training, "incident-N" at
#               its N-th incident
#   journal_matches_history LINKCTL CONNECTOR MONITOR [OUTCOMES]   the
#               compositor's incidents on CONNECTOR in the journal, as
#               linkctl history says them (journal-check.py)
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
lg_pids=
lg_cues=

lg_cleanup() {
	for p in $lg_pids; do
		kill "$p" 2>/dev/null
	done
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$dir"
}
trap lg_cleanup EXIT
trap 'exit 1' INT TERM

export XDG_RUNTIME_DIR="$dir"
# Known-bad modes learned by one test must not start the next one degraded.
export XDG_STATE_HOME="$dir/state"
# The user's linkguard(5) file is not the test's.
export XDG_CONFIG_HOME="$dir/config"
unset LINKGUARD_CONFIG
export WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1
unset WAYLAND_DISPLAY WAYLAND_SOCKET DISPLAY DBUS_SESSION_BUS_ADDRESS

# Whether a process still runs (an exited, unreaped child is a zombie).
running() {
	[ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]
}

alive() {
	running "$pid"
}

# A hang fails the test with where it hangs, not at meson's time limit.
reap() {
	tries=$(($2 * 10))
	while running "$1"; do
		tries=$((tries - 1))
		if [ "$tries" -le 0 ]; then
			echo "still running after $2 s: $1 $(tr '\0' ' ' <"/proc/$1/cmdline")," \
				"state $(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat")," \
				"waiting in $(cat "/proc/$1/wchan" 2>/dev/null)" >&2
			cat "/proc/$1/stack" >&2 2>/dev/null
			kill -KILL "$1" 2>/dev/null
			wait "$1" 2>/dev/null
			return 124
		fi
		sleep 0.1
	done
	wait "$1"
}

# sway closes the IPC connection of 'exit' unanswered, so swaymsg fails
# while sway shuts down: a signal then crashed sway 1.10.1 (its handler
# reads the IPC clients it has freed; gdb in the real-kernel harness showed
# it). sway goes by itself.
sway_exit() {
	timeout 5 swaymsg exit >/dev/null 2>&1
	reap "$pid" 30
}

# wait_for_log ERE SECONDS [COUNT]: until the log has COUNT (1) matching
# lines. A compositor started with >"$log" & opens its log in the child,
# maybe after the first look: until then the log has none.
wait_for_log() {
	tries=$(($2 * 10))
	until [ -f "$log" ] && [ "$(grep -Ec -- "$1" "$log")" -ge "${3:-1}" ]; do
		alive || fail "${LG_LOG_NAME:-compositor} exited while waiting for /$1/"
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "not ${3:-1} x /$1/ in the log after $2 s"
		sleep 0.1
	done
}

wait_for_line() {
	tries=$(($3 * 10))
	until grep -Eq -- "$2" "$1" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "no /$2/ in $(basename "$1") after $3 s: $(cat "${4:-$1}")"
		sleep 0.1
	done
}

# A scenario's faults come on the test's cue, not at a time from the
# compositor's start: on a loaded machine that start, or linkguard's answer
# to the last fault, can take longer than any fixed time. The simulated
# link holds its steps after "wait NAME" until $XDG_RUNTIME_DIR/NAME exists.
cue() {
	: >"$dir/$1" || fail "cannot give the cue $1"
	lg_cues="$lg_cues $1"
}

uncue() {
	for c in $lg_cues; do
		rm -f "$dir/$c"
	done
	lg_cues=
}

follow_incidents() {
	tries=$(($2 * 10)) seen=0
	while :; do
		[ -f "$dir/trained" ] || ! grep -q 'sim: DP-1: link trained' "$log" || cue trained
		got=$(grep -c 'DP-1: incident: ' "$log")
		while [ "$seen" -lt "$got" ]; do
			seen=$((seen + 1))
			cue "incident-$seen"
		done
		[ "$seen" -lt "$1" ] || return 0
		alive || fail "${LG_LOG_NAME:-compositor} exited after $seen of $1 incidents"
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "$seen of $1 incidents in the log after $2 s"
		sleep 0.1
	done
}

wl_output_globals() {
	timeout 5 "${WAYLAND_INFO:-wayland-info}" -i wl_output 2>/dev/null |
		sed -n "s/.*interface: 'wl_output',.*name: *\([0-9]*\).*/\1/p" | sort
}

wait_for_socket() {
	tries=50
	while ! ls "$dir"/wayland-* 2>/dev/null | grep -qv lock; do
		alive || fail "${LG_LOG_NAME:-compositor} exited before its socket appeared"
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "no Wayland socket in $dir after 5 s"
		sleep 0.1
	done
	WAYLAND_DISPLAY=$(cd "$dir" && ls wayland-* | grep -v lock | head -n 1)
	export WAYLAND_DISPLAY
}

start_server() {
	# Emptied here, not by the redirection below: that runs in the child,
	# maybe after wait_for_log has read the last server's "running on".
	: >"$log"
	"$@" >"$log" 2>&1 &
	pid=$!
	wait_for_log 'running on WAYLAND_DISPLAY=' 10
	WAYLAND_DISPLAY=$(sed -n 's/.*running on WAYLAND_DISPLAY=\([^ ]*\).*/\1/p' "$log" | head -n 1)
	export WAYLAND_DISPLAY
}

stop_server() {
	alive || fail "the ${LG_LOG_NAME:-compositor} died"
	kill -TERM "$pid"
	reap "$pid" 30
	status=$?
	pid=
	[ "$status" -ne 124 ] || fail "${LG_LOG_NAME:-compositor} did not exit on SIGTERM"
	[ "$status" -eq 0 ] || fail "${LG_LOG_NAME:-compositor} exited with status $status"
}

run_status() {
	var=$1
	shift
	"$@"
	eval "$var=\$?"
}

# A preload built with -Db_sanitize (LG_SANITIZE, with CC the compiler) in an
# uninstrumented compositor: the sanitizer runtimes must be loaded first.
preload_runtimes() {
	case ${LG_SANITIZE:-none} in
	*address*) printf ' %s' "$(${CC:-cc} -print-file-name=libasan.so)" ;;
	esac
	case ${LG_SANITIZE:-none} in
	*undefined*) printf ' %s' "$(${CC:-cc} -print-file-name=libubsan.so)" ;;
	esac
}

preload_fits() {
	command -v "$2" >/dev/null 2>&1 || { echo "SKIP: $2 is not installed"; exit 77; }
	theirs=$(ldd "$(command -v "$2")" | sed -n 's/.*\(libwlroots[^ ]*\).*/\1/p')
	ours=$(ldd "$1" | sed -n 's/.*\(libwlroots[^ ]*\).*/\1/p')
	[ "$theirs" = "$ours" ] ||
		{ echo "SKIP: $2 uses $theirs, the preload $ours"; exit 77; }
	echo "$2 on $theirs"
}

randr_output() {
	timeout 5 "${WLR_RANDR:-wlr-randr}" >"$dir/randr.txt" 2>&1 ||
		fail "wlr-randr failed: $(cat "$dir/randr.txt")"
	awk -v name="$1" '/^[^ ]/ { in_output = ($1 == name) } in_output' "$dir/randr.txt"
}

# Headless outputs have custom modes only; wlr-randr lists the current one
# as e.g. "    3840x2160 px, 30.000000 Hz (current)".
current_mode_is() {
	printf '%s\n' "$1" | grep -Eq "^    $2 px, $3\.[0-9]+ Hz \((preferred, )?current\)"
}

# The session bus's own configuration, not the system's session.conf: that
# one activates services on demand (mako from its .service file), and a test
# decides itself what runs. Listens at $XDG_RUNTIME_DIR/bus, where sd-bus
# looks without DBUS_SESSION_BUS_ADDRESS.
start_session_bus() {
	command -v dbus-daemon >/dev/null 2>&1 ||
		{ echo "SKIP: dbus-daemon is not installed"; exit 77; }
	cat >"$dir/bus.conf" <<EOF
<busconfig>
  <type>session</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
	dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile \
		--print-address=3 3>"$dir/bus.address" 2>"$dir/bus.log" &
	lg_pids="$lg_pids $!"
	wait_for_line "$dir/bus.address" . 5 "$dir/bus.log"
	DBUS_SESSION_BUS_ADDRESS=$(head -n 1 "$dir/bus.address")
	export DBUS_SESSION_BUS_ADDRESS
}

# journal_matches_history LINKCTL CONNECTOR MONITOR [OUTCOMES]: every incident
# LINKCTL history --json shows of CONNECTOR is one journal entry of the
# compositor ($pid) with linkguard's MESSAGE_ID, field by field, in order
# (journal-check.py says how; MONITOR: the monitor's identity, from its EDID).
# The journal is the one the test's systemd-journald writes in
# /run/log/journal.
journal_matches_history() {
	run_status st timeout 5 "$1" history "$2" --json >"$dir/history.json" 2>"$dir/history.err"
	[ "$st" -eq 0 ] || fail "$1 history $2 --json: exit $st: $(cat "$dir/history.err")"
	want=$(python3 -c 'import json, sys
print(len(json.load(open(sys.argv[1]))["connectors"][0]["incidents"]))' "$dir/history.json") ||
		fail "linkctl history $2 --json is not the history: $(cat "$dir/history.json")"
	# journald writes each entry as it comes; the reader may be a moment
	# behind the last. Only this compositor's: a journal outlives it (the
	# kernel harness's repeats run in one boot).
	tries=100
	while :; do
		journalctl -D /run/log/journal --no-pager -o json \
			"MESSAGE_ID=5c548605d3584d7ca4d0bf7a8cd169f1" "_PID=$pid" \
			>"$dir/journal.jsonl" 2>"$dir/journal.err" ||
			fail "journalctl failed: $(cat "$dir/journal.err")"
		[ "$(wc -l <"$dir/journal.jsonl")" -lt "$want" ] || break
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "not $want journal entries after 10 s: $(cat "$dir/journal.jsonl")"
		sleep 0.1
	done
	echo "== journalctl MESSAGE_ID=5c548605d3584d7ca4d0bf7a8cd169f1 -o json, the first entry"
	head -n 1 "$dir/journal.jsonl"
	python3 "$(dirname "$0")/../journal-check.py" "$dir/history.json" \
		"$dir/journal.jsonl" "$pid" "$2" "$3" ${4:+"$4"} ||
		fail "the journal does not say what linkctl history says"
}
