#!/bin/sh
# linkctl watch --notify for real: the sway on PATH (Debian's) with
# liblinkguard-preload.so and the simulated link (notify.scn), a private
# session bus, Debian's mako as the notification daemon in that sway, and
# linkctl watching. After the fallback, makoctl lists one notification from
# linkguard with the summary, urgency and category expected; its body, which
# makoctl list does not print (mako 1.10 and 1.11), is read from mako's own
# interface (fr.emersion.Mako ListNotifications) with dbus-send. After the
# replug the same notification (same id) says the link was restored.
#
#   notify.sh PRELOAD LINKCTL SCENARIO
#
# Skips (exit 77) without sway, mako or dbus-daemon, or when sway uses
# another wlroots than the preload was built for.
set -u

usage="usage: $0 PRELOAD LINKCTL SCENARIO"
preload=${1:?$usage}
linkctl=${2:?$usage}
scenario=${3:?$usage}
config=$(dirname "$0")/sway.config

LG_LOG_NAME=sway LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

preload_fits "$preload" sway
for tool in mako makoctl dbus-send; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
done

export WLR_HEADLESS_OUTPUTS=0 LINKGUARD_SIM="$scenario"
runtimes=$(preload_runtimes)
export ASAN_OPTIONS=detect_leaks=0 # sway's leaks at exit are sway's

monitor='Simulated 4K60 monitor (DP, HBR3 x4)'

# mako_list: what makoctl list prints, into $dir/makoctl.txt.
mako_list() {
	timeout 5 makoctl list >"$dir/makoctl.txt" 2>&1 ||
		fail "makoctl list failed: $(cat "$dir/makoctl.txt")"
}

# wait_for_notification SUMMARY SECONDS: until makoctl lists it.
wait_for_notification() {
	tries=$(($2 * 10))
	while mako_list && ! grep -q "^Notification [0-9]*: $1\$" "$dir/makoctl.txt"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] ||
			fail "no '$1' after $2 s; makoctl list: $(cat "$dir/makoctl.txt"); linkctl: $(cat "$dir/linkctl.err")"
		sleep 0.1
	done
}

# mako_field KEY: KEY's value in each notification mako holds, one a line,
# from ListNotifications as dbus-send prints it.
mako_field() {
	timeout 5 dbus-send --session --print-reply --dest=org.freedesktop.Notifications \
		/fr/emersion/Mako fr.emersion.Mako.ListNotifications >"$dir/mako-dbus.txt" 2>&1 ||
		fail "ListNotifications failed: $(cat "$dir/mako-dbus.txt")"
	awk -v key="\"$1\"" '
		$1 == "string" && $2 == key { want = 1; next }
		want && $1 == "variant" {
			sub(/^ *variant +[a-z0-9]+ /, "")
			sub(/^"/, ""); sub(/"$/, "")
			print
			want = 0
		}' "$dir/mako-dbus.txt"
}

start_session_bus
LD_PRELOAD="$runtimes $preload" sway -c "$config" >"$log" 2>&1 &
pid=$!
wait_for_log 'preload: attached' 10
wait_for_log 'DP-1: connected' 10
wait_for_socket

printf 'default-timeout=0\n' >"$dir/mako.config"
mako --config "$dir/mako.config" >"$dir/mako.log" 2>&1 &
mako_pid=$!
lg_pids="$lg_pids $mako_pid"
tries=100
until timeout 5 dbus-send --session --print-reply --dest=org.freedesktop.DBus \
		/org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
		string:org.freedesktop.Notifications 2>/dev/null | grep -q 'boolean true'; do
	kill -0 "$mako_pid" 2>/dev/null || fail "mako exited: $(cat "$dir/mako.log")"
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || fail "mako did not take org.freedesktop.Notifications in 10 s: $(cat "$dir/mako.log")"
	sleep 0.1
done
ok "mako runs in sway and serves org.freedesktop.Notifications"

# --json as well: its first line is the evidence that the notifier is
# connected to sway.
"$linkctl" watch --notify --json >"$dir/linkctl.jsonl" 2>"$dir/linkctl.err" &
lg_pids="$lg_pids $!"
wait_for_line "$dir/linkctl.jsonl" '"event": "added"' 10 "$dir/linkctl.err"
ok "linkctl watch --notify is watching DP-1"
cue watching # the cable drops (notify.scn)

wait_for_log 'DP-1: link held at 3840x2160@30' 30
wait_for_notification 'DP-1: link degraded' 10
echo "== makoctl list after the fallback"
cat "$dir/makoctl.txt"
[ "$(grep -c '^Notification' "$dir/makoctl.txt")" = 1 ] ||
	fail "want one notification: $(cat "$dir/makoctl.txt")"
id=$(sed -n 's/^Notification \([0-9]*\): .*/\1/p' "$dir/makoctl.txt")
grep -q '^  App name: linkguard$' "$dir/makoctl.txt" &&
	grep -q '^  Category: device.error$' "$dir/makoctl.txt" &&
	grep -q '^  Urgency: normal$' "$dir/makoctl.txt" ||
	fail "not linkguard's, device.error, urgency normal: $(cat "$dir/makoctl.txt")"
body=$(mako_field body)
echo "== dbus-send fr.emersion.Mako.ListNotifications"
cat "$dir/mako-dbus.txt"
[ "$body" = "DP-1 ($monitor): the cable no longer carries 3840x2160@60; now 3840x2160@30. Try another cable or a lower refresh rate." ] ||
	fail "the body is '$body'"
ok "notification $id: DP-1: link degraded, urgency normal, the body says why and what to do"
cue degraded-read # the replug

wait_for_notification 'DP-1: link restored' 40
echo "== makoctl list after the replug"
cat "$dir/makoctl.txt"
[ "$(grep -c '^Notification' "$dir/makoctl.txt")" = 1 ] ||
	fail "the restore did not replace the notification: $(cat "$dir/makoctl.txt")"
grep -q "^Notification $id: DP-1: link restored\$" "$dir/makoctl.txt" ||
	fail "the restore is not notification $id: $(cat "$dir/makoctl.txt")"
grep -q '^  Urgency: low$' "$dir/makoctl.txt" ||
	fail "the restore's urgency is not low: $(cat "$dir/makoctl.txt")"
body=$(mako_field body)
echo "== its body"
echo "$body"
[ "$body" = "DP-1 ($monitor): 3840x2160@60, the link holds." ] || fail "the body is '$body'"
ok "the restore replaced notification $id in place, urgency low"
[ ! -s "$dir/linkctl.err" ] || fail "linkctl said: $(cat "$dir/linkctl.err")"
