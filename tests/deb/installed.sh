#!/bin/sh
# linkguard's Debian packages as a user gets them: installed with apt into a
# root that has nothing else (scripts/deb runs this in a copy of debootstrap's
# minbase, as root), then run from the installed paths only, never from a
# build tree:
#
# - linkctl runs, and linkguard-run points at the preload the package put
#   there;
# - linkguard-run refuses, in one line, a program without wlroots, and sway
#   when it was built for another wlroots;
# - the login session: the Exec line of sway-linkguard.desktop starts
#   Debian's sway headless with the installed preload, which recovers a
#   simulated 4K60 monitor whose cable drops to RBR (swaymsg, linkctl);
# - the notification test (tests/preload/notify.sh) with the installed
#   preload and linkctl;
# - the user unit passes systemd-analyze verify and is enabled for every
#   user's graphical session.
#
#   installed.sh DEB_DIR
set -u

debs=${1:?usage: $0 DEB_DIR}
tests=$(cd "$(dirname "$0")/.." && pwd)

LG_LOG_NAME=sway LG_LOG_LINES=40
. "$tests/lib.sh"
. "$tests/preload/expect.sh"

# The packages, and what the tests drive them with from the archive: sway
# (swaymsg), mako and a session bus for the notifications, systemd for
# systemd-analyze, jq for swaymsg's JSON. The root's apt runs as root (no
# _apt user to drop to in a namespace), accepts a testing Release file
# between archive runs (its Valid-Until past; the signatures still hold) and
# unpacks without syncing every file: the root is thrown away afterwards.
export DEBIAN_FRONTEND=noninteractive
apt="apt-get -q -y -o APT::Sandbox::User=root -o Acquire::Check-Valid-Until=false
	-o DPkg::Options::=--force-unsafe-io"
$apt update >"$dir/apt.log" 2>&1 || fail "apt-get update failed: $(tail -n 20 "$dir/apt.log")"
(cd "$debs" && $apt install --no-install-recommends ./*.deb \
	sway mako-notifier dbus-daemon dbus-bin systemd jq) >>"$dir/apt.log" 2>&1 ||
	fail "apt-get install failed: $(tail -n 30 "$dir/apt.log")"
echo "== installed"
dpkg-query -W liblinkguard0 liblinkguard-dev linkctl linkguard-preload ||
	fail "not every package is installed"

linkctl=$(command -v linkctl)
[ "$linkctl" = /usr/bin/linkctl ] || fail "linkctl is '$linkctl', not /usr/bin/linkctl"
"$linkctl" --help >"$dir/help.txt" 2>&1 || fail "linkctl --help failed: $(cat "$dir/help.txt")"
grep -q '^usage: linkctl' "$dir/help.txt" || fail "linkctl --help printed: $(cat "$dir/help.txt")"
ok "/usr/bin/linkctl --help"

run=$(command -v linkguard-run)
[ "$run" = /usr/bin/linkguard-run ] || fail "linkguard-run is '$run', not /usr/bin/linkguard-run"
preload=$(sed -n "s/^preload='\(.*\)'\$/\1/p" "$run")
[ -n "$preload" ] || fail "no preload= line in $run"
owner=$(dpkg-query -S "$preload" 2>&1) || fail "no package has $preload: $owner"
[ "${owner%%:*}" = linkguard-preload ] || fail "$preload belongs to '$owner'"
ok "linkguard-run looks for the preload at $preload, from linkguard-preload"

# A refusal is one line and no program run.
run_status status linkguard-run true >"$dir/refuse.out" 2>"$dir/refuse.err"
[ "$status" = 1 ] || fail "linkguard-run true exited $status, not 1"
[ ! -s "$dir/refuse.out" ] && [ "$(wc -l <"$dir/refuse.err")" = 1 ] &&
	grep -q '^linkguard-run: true does not load a wlroots library' "$dir/refuse.err" ||
	fail "linkguard-run true did not refuse in one line: $(cat "$dir/refuse.out" "$dir/refuse.err")"
ok "linkguard-run refuses a program without wlroots: $(cat "$dir/refuse.err")"

# And sway, to a linkguard-run built for another wlroots: the installed one
# with only its wlroots line changed (a sway it did start runs into the
# timeout).
sed "s/^wlroots='.*'\$/wlroots='libwlroots-0.99.so'/" "$run" >"$dir/linkguard-run-0.99"
grep -qx "wlroots='libwlroots-0.99.so'" "$dir/linkguard-run-0.99" ||
	fail "no wlroots= line to change in $run"
run_status status timeout 10 sh "$dir/linkguard-run-0.99" sway -c /dev/null \
	>"$dir/refuse.out" 2>"$dir/refuse.err"
[ "$status" = 1 ] && [ ! -s "$dir/refuse.out" ] && [ "$(wc -l <"$dir/refuse.err")" = 1 ] &&
	grep -q "^linkguard-run: sway uses libwlroots-[0-9.]*\.so; linkguard's preload was built for libwlroots-0\.99\.so\$" "$dir/refuse.err" ||
	fail "linkguard-run did not refuse sway on another wlroots in one line (exit $status): $(cat "$dir/refuse.out" "$dir/refuse.err")"
ok "linkguard-run refuses sway on another wlroots: $(cat "$dir/refuse.err")"

# The login session: its Exec line as the display manager would run it,
# plus the tests' sway configuration (no bar to spawn).
session=/usr/share/wayland-sessions/sway-linkguard.desktop
exec_line=$(sed -n 's/^Exec=//p' "$session")
[ "$exec_line" = "linkguard-run sway" ] || fail "$session runs '$exec_line'"
export WLR_HEADLESS_OUTPUTS=0 LINKGUARD_SIM="$tests/scenarios/4k60-cable-drops-to-rbr.scn"
# Emptied here: the redirection below happens in the child, maybe after
# wait_for_log first reads the log.
: >"$log"
# shellcheck disable=SC2086 # the Exec line is words
$exec_line -c "$tests/preload/sway.config" >"$log" 2>&1 &
pid=$!
wait_for_log 'preload: attached' 10
wait_for_log 'DP-1: connected' 10
wait_for_socket
grep -q " $preload\$" "/proc/$pid/maps" ||
	fail "sway has not mapped $preload: $(grep linkguard "/proc/$pid/maps")"
ok "the session started sway with $preload attached"
SWAYSOCK=$(ls "$dir"/sway-ipc.*.sock | head -n 1)
export SWAYSOCK

# outputs: "name WxH@mHz active" per output, from swaymsg.
outputs() {
	timeout 5 swaymsg -t get_outputs -r |
		jq -r '.[] | "\(.name) \(.current_mode.width)x\(.current_mode.height)@\(.current_mode.refresh) \(.active)"'
}
before=$(outputs)
case $before in
"HEADLESS-1 3840x2160@"*" true") ;;
*) fail "swaymsg -t get_outputs before the failure: $before" ;;
esac
wait_for_log 'DP-1: link held at 2560x1440@59.951' 15
after=$(outputs)
echo "== swaymsg -t get_outputs: before: $before; after: $after"
[ "$after" = "HEADLESS-1 2560x1440@59951 true" ] ||
	fail "want HEADLESS-1 at 2560x1440@59951 after the fallback, sway has: $after"
ok "sway's output followed the fallback to 2560x1440@59.951 Hz"
expect_linkctl_fallback "$("$linkctl")"
sway_exit >/dev/null
pid=

"$tests/preload/notify.sh" "$preload" "$linkctl" "$tests/scenarios/notify.scn" >"$dir/notify.log" 2>&1
status=$?
[ "$status" = 0 ] || fail "the notification test exited $status: $(cat "$dir/notify.log")"
ok "the notification test passes with the installed preload and linkctl"

unit=/usr/lib/systemd/user/linkctl-watch.service
[ -f "$unit" ] || fail "no $unit"
# --man=no: the root has no man(1) to look its Documentation= up with.
systemd-analyze --user --man=no verify "$unit" >"$dir/verify.log" 2>&1 ||
	fail "systemd-analyze --user verify $unit: $(cat "$dir/verify.log")"
[ ! -s "$dir/verify.log" ] || fail "systemd-analyze --user verify $unit warns: $(cat "$dir/verify.log")"
enabled=$(systemctl --global is-enabled linkctl-watch.service 2>&1)
[ "$enabled" = enabled ] || fail "linkctl-watch.service is '$enabled' for users, not enabled"
ok "$unit passes systemd-analyze verify and is enabled for graphical sessions"
