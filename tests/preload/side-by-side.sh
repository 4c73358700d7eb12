# The run the cage, phoc and wayfire tests share: a compositor from Debian on
# the simulated link of 4k60-rbr-on-cue.scn, twice, with a window
# mapped each time: alone (LINKGUARD_RECOVER=0, linkguard only watches) and
# with linkguard. What its clients see is printed side by side: wlr-randr
# (the compositor's own wlr-output-management answer), wayland-info's
# wl_output and the window's last xdg_toplevel.configure. Sourced after
# tests/lib.sh and expect.sh, with $preload, $linkctl, $scenario and
# $toplevel set. It gives:
#
#   preload_reaches BINARY   skips (77) when BINARY links no libwlroots
#   side_by_side NAME CMD... runs CMD both ways and asserts. An argument
#                            @client@ in CMD stands for the window's client
#                            (cage runs it as its application); without
#                            one the test starts the client itself.
#   cannot_run=ERE           a line with which the compositor refuses to
#                            run here: when it exits with one before the
#                            preload attached, the test skips, quoting it
#                            and cannot_run_why.
#
# The compositor alone must keep running 4K on the bad link (on hardware, a
# black screen); with linkguard the same DP-1, never removed, runs 2560x1440
# at the refresh the simulated sink lists, and the window follows.

export WLR_HEADLESS_OUTPUTS=0 LINKGUARD_SIM="$scenario"
# Leaks at exit are the compositor's to answer for; linkguard's are checked
# in-process.
export ASAN_OPTIONS=detect_leaks=0

# A wlroots linked into the executable is out of LD_PRELOAD's reach: its
# calls to wlr_backend_start() never go through the dynamic linker.
preload_reaches() {
	command -v "$1" >/dev/null 2>&1 || { echo "SKIP: $1 is not installed"; exit 77; }
	ldd "$(command -v "$1")" | grep -q libwlroots || {
		version=$(dpkg-query -W -f '${Version}' "$1" 2>/dev/null)
		echo "SKIP: $1${version:+ $version} links no libwlroots: its wlroots is" \
			"built in, out of a preload's reach"
		exit 77
	}
}

# randr_view: DP-1 as wlr-randr lists it, "WxH@mHz enabled" (refresh 0 for
# a headless custom mode, which wlr-randr prints without one).
randr_view() {
	block=$(randr_output DP-1)
	[ -n "$block" ] || fail "wlr-randr does not list DP-1: $(cat "$dir/randr.txt")"
	printf '%s\n' "$block" | awk '
		/^  Enabled: / { enabled = $2 == "yes" ? "enabled" : "disabled" }
		/^    [0-9]+x[0-9]+ px.*current\)$/ {
			hz = $2 == "px," ? $3 : 0
			mode = sprintf("%s@%d", $1, hz * 1000 + 0.5)
		}
		END { print mode " " enabled }'
}

# client_view: DP-1's current mode in its wl_output events, "WxH@mHz".
client_view() {
	timeout 5 "${WAYLAND_INFO:-wayland-info}" -i wl_output 2>/dev/null | awk '
		/interface: .wl_output/ { name = "" }
		$1 == "name:" { name = $2 }
		$1 == "width:" { mode = sprintf("%sx%s@%d", $2, $5, $8 * 1000 + 0.5) }
		$1 == "flags:" && /current/ && name == "DP-1" { print mode }'
}

# window_view: the size the compositor last configured the window to.
window_view() {
	sed -n 's/.*xdg_toplevel[@#][0-9]*\.configure(\([0-9]*\), \([0-9]*\),.*/\1x\2/p' \
		"$client_log" | tail -n 1
}

# linkctl_mode FIELD [WxH]: a mode of linkctl's DP-1 as "WxH" (FIELD
# requested_mode) or, for allowed_modes, the listed mode WxH as "WxH@mHz".
linkctl_mode() {
	"$linkctl" --json | jq -r --arg f "$1" --arg m "${2:-}" '
		.connectors[] | select(.name == "DP-1") | .[$f] |
		if type == "array" then
			.[] | select("\(.width)x\(.height)" == $m) |
			"\(.width)x\(.height)@\(.refresh_mhz)"
		else "\(.width)x\(.height)" end'
}

wait_for_attach() {
	tries=100
	until grep -q 'preload: attached' "$log"; do
		# Asked once: a compositor exiting between two asks failed
		# where it should have skipped.
		if ! alive; then
			if [ -n "${cannot_run:-}" ] && grep -Eq -- "$cannot_run" "$log"; then
				echo "SKIP: $name cannot run here${cannot_run_why:+ ($cannot_run_why)}:" \
					"$(grep -E -m 1 -- "$cannot_run" "$log")"
				exit 77
			fi
			fail "the compositor exited before the preload attached"
		fi
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "the preload did not attach after 10 s"
		sleep 0.1
	done
}

# run_compositor RECOVER CMD...: starts CMD and the window's client, returns
# once the window is configured. The cable drops on the cue "before-read".
run_compositor() {
	recover=$1
	shift
	uncue
	: >"$log"
	client_log=$dir/client.log
	: >"$client_log"
	inside=
	for arg; do
		shift
		if [ "$arg" = @client@ ]; then
			set -- "$@" env WAYLAND_DEBUG=client "$toplevel"
			inside=1 client_log=$log
		else
			set -- "$@" "$arg"
		fi
	done
	LINKGUARD_RECOVER=$recover LD_PRELOAD="$(preload_runtimes) $preload" \
		"$@" >"$log" 2>&1 &
	pid=$!
	wait_for_attach
	wait_for_socket
	wait_for_log 'DP-1: connected' 10
	if [ -z "$inside" ]; then
		WAYLAND_DEBUG=client "$toplevel" >"$client_log" 2>&1 &
		client_pid=$!
	fi
	tries=50
	while [ -z "$(window_view)" ]; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "the window was not configured after 5 s: $(tail -n 5 "$client_log")"
		sleep 0.1
	done
	sleep 0.5
}

stop_compositor() {
	[ -n "${client_pid:-}" ] && kill "$client_pid" 2>/dev/null
	client_pid=
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
	rm -f "$dir"/wayland-*
}

# views: "wlr-randr | wl_output | window", for the table.
views() {
	echo "$(randr_view) | $(client_view) | window $(window_view)"
}

# before_failure WHAT: WHAT was read; the cable drops on this cue. Fails
# when it dropped before (the scenario did not wait).
before_failure() {
	grep -q 'cable now holds' "$log" &&
		fail "the cable dropped before $1 was read: the scenario did not wait for its cue"
	cue before-read
}

side_by_side() {
	name=$1
	shift

	run_compositor 0 "$@"
	stock_before=$(views)
	before_failure "$name alone's output"
	wait_for_log 'recovery disabled: left to the compositor' 10
	sleep 1
	stock_after=$(views)
	stock_link=$("$linkctl" | sed -n 's/^  Link status: //p')
	stop_compositor

	run_compositor 1 "$@"
	before=$(views)
	globals_before=$(wl_output_globals)
	want_before=$(linkctl_mode requested_mode)
	before_failure "the output"
	wait_for_log 'DP-1: link held at ' 15
	after=$(views)
	globals_after=$(wl_output_globals)
	# The simulated sink's mode at 2560x1440, as the pruned list has it.
	want_after=$(linkctl_mode allowed_modes 2560x1440)
	linkctl_out=$("$linkctl")
	grep -q 'did not apply the requested mode' "$log" && applied=no || applied=yes

	echo "== DP-1, side by side (wlr-randr: mode, state | wl_output: mode | the window's configure)"
	width=$((${#name} + 15)) # the longer of "NAME alone, before:" and
	[ "$width" -ge 23 ] || width=23 # "with linkguard, before:"
	row() {
		printf '   %-*s %s\n' "$width" "$1" "$2"
	}
	row "$name alone, before:" "$stock_before"
	row "$name alone, after:" "$stock_after (link-status $stock_link)"
	row "with linkguard, before:" "$before"
	row "with linkguard, after:" "$after"

	[ "$stock_link" = bad ] || fail "without recovery the link should stay bad, is '$stock_link'"
	[ "$stock_after" = "$stock_before" ] ||
		fail "$name alone changed DP-1: '$stock_before' -> '$stock_after'"
	ok "$name alone keeps DP-1 as it was on the bad link"

	[ -n "$want_before" ] && [ -n "$want_after" ] ||
		fail "linkctl lists no requested mode or no 2560x1440: '$want_before' '$want_after'"
	for view in "$stock_before" "$before"; do
		case $view in
		"$want_before@"*" enabled | $want_before@"*" | window $want_before") ;;
		*) fail "want DP-1 enabled at $want_before, the window filling it, before the failure: $view" ;;
		esac
	done
	ok "before, both runs: DP-1 enabled at the requested $want_before, the window filling it"
	case $after in
	"$want_after enabled | $want_after | window ${want_after%@*}") ;;
	*" | $want_after | "*)
		fail "the output runs $want_after (wl_output) but $name did not follow:" \
			"its own state (wlr-randr) or its layout (the window) did not: $after" ;;
	*) fail "want DP-1 enabled at $want_after, the window at ${want_after%@*}, after the fallback: $after" ;;
	esac
	ok "after: the same DP-1 enabled at $want_after (wlr-randr and wl_output agree), the window followed"
	expect_same_global "$globals_before" "$globals_after"
	expect_linkctl_fallback "$linkctl_out"
	if [ "$applied" = yes ]; then
		echo "note: $name applied linkguard's request_state itself"
	else
		echo "note: $name did not apply request_state at once: linkguard committed the mode"
	fi
	stop_compositor
}
