#!/bin/sh
# End to end: linkguard(5) in the example compositor. A configuration file
# with a defaults section and an [output DP-1] section, a LINKGUARD_*
# variable and a command-line option; linkctl shows each setting with where
# it came from (text and --json); the file is edited, linkctl reload reads
# it again, linkctl and a watching linkctl see the new values; a file that
# is not text fails the reload and the settings stay.
#
#   config-reload.sh EXAMPLE LINKCTL SCENARIO
set -u

example=${1:?usage: $0 EXAMPLE LINKCTL SCENARIO}
linkctl=${2:?usage: $0 EXAMPLE LINKCTL SCENARIO}
scenario=${3:?usage: $0 EXAMPLE LINKCTL SCENARIO}

LG_LOG_NAME=compositor LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"

config=$XDG_CONFIG_HOME/linkguard/config
mkdir -p "$(dirname "$config")"
cat >"$config" <<'EOF'
# line 1
policy = refresh-first

[output DP-1]
min-refresh = 120
colour = blue
EOF

# settings_are JSON KEY=VALUE:SOURCE:ORIGIN...: DP-1's settings in linkctl's
# JSON; ORIGIN is a suffix of the origin, or - for none.
settings_are() {
	python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
dp1 = [c for c in doc["connectors"] if c["name"] == "DP-1"]
assert dp1, "no DP-1: %r" % doc
settings = {s["key"]: s for s in dp1[0]["settings"]}
assert len(settings) == 10, "keys: %r" % sorted(settings)
for want in sys.argv[2:]:
    key, rest = want.split("=", 1)
    value, source, origin = rest.split(":", 2)
    s = settings[key]
    got_origin = s["origin"]
    ok = s["value"] == value and s["source"] == source and (
        got_origin is None if origin == "-" else
        got_origin is not None and got_origin.endswith(origin))
    assert ok, "%s: want %s %s %s, got %r" % (key, value, source, origin, s)
PY
}

LINKGUARD_FLAP_COUNT=5 start_server "$example" --sim "$scenario" --flap-window 20s
wait_for_log 'output DP-1 created' 10
cue before-read # the fallback; nothing here waits for it
grep -Fq "$config:6: unknown key 'colour': ignored" "$log" ||
	fail "the unknown key was not logged with its file and line"
ok "an unknown key is one log line naming $config:6"

timeout 5 "$linkctl" --json >"$dir/before.json" || fail "linkctl --json failed"
settings_are "$dir/before.json" \
	"policy=refresh-first:file:$config:2" \
	"min-refresh=120:file:$config:5" \
	"flap-count=5:env:LINKGUARD_FLAP_COUNT" \
	"flap-window=20s:option:-" \
	"recover=on:default:-" "min-resolution=none:default:-" \
	"allow-retry=off:default:-" ||
	fail "linkctl --json: settings and sources differ: $(cat "$dir/before.json")"
ok "linkctl --json: each setting with its source (file, env, option, default)"

timeout 5 "$linkctl" >"$dir/before.txt" || fail "linkctl failed"
grep -Fq "    min-refresh 120 (file $config:5)" "$dir/before.txt" &&
	grep -Fq "    flap-count 5 (env LINKGUARD_FLAP_COUNT)" "$dir/before.txt" &&
	grep -Fq "    flap-window 20s (option)" "$dir/before.txt" ||
	fail "linkctl's text lacks the settings: $(cat "$dir/before.txt")"
ok "linkctl: the settings in effect and where each came from"

timeout 20 "$linkctl" watch --json >"$dir/watch.json" 2>&1 &
watch_pid=$!
lg_pids="$lg_pids $watch_pid"
wait_for_line "$dir/watch.json" '"event": "added"' 5

# The edit: the floor moves and the policy goes back to its default.
cat >"$config" <<'EOF'
[output DP-1]
min-refresh = 100
EOF
run_status status timeout 5 "$linkctl" reload
[ "$status" -eq 0 ] || fail "linkctl reload: exit $status"
timeout 5 "$linkctl" --json >"$dir/after.json" || fail "linkctl --json failed"
settings_are "$dir/after.json" \
	"min-refresh=100:file:$config:2" "policy=resolution-first:default:-" \
	"flap-count=5:env:LINKGUARD_FLAP_COUNT" "flap-window=20s:option:-" ||
	fail "after the reload: $(cat "$dir/after.json")"
ok "linkctl reload: the edited file applies, the variable and the option still win"
wait_for_line "$dir/watch.json" '"event": "settings"' 5
python3 - "$dir/watch.json" <<'PY' || fail "watch's settings line: $(cat "$dir/watch.json")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
changed = [l for l in lines if l["event"] == "settings"]
assert len(changed) == 1 and changed[0]["connector"] == "DP-1", changed
value = {s["key"]: s["value"] for s in changed[0]["value"]}
assert value["min-refresh"] == "100" and value["policy"] == "resolution-first", value
PY
ok "linkctl watch --json: one settings event on DP-1 after the reload"

printf 'min-refresh = 60\n\000\n' >"$config"
run_status status timeout 5 "$linkctl" reload
[ "$status" -eq 1 ] || fail "reload of a binary file: exit $status, want 1"
grep -Fq "$config:2: a NUL byte: not a text file, ignored" "$log" ||
	fail "the binary file's error is not in the log"
timeout 5 "$linkctl" --json >"$dir/kept.json" || fail "linkctl --json failed"
settings_are "$dir/kept.json" "min-refresh=100:file:$config:2" ||
	fail "a failed reload changed the settings: $(cat "$dir/kept.json")"
ok "a file that is not text fails the reload (exit 1) and the settings stay"

stop_server
grep -Eq 'linkguard-example: [0-9]+ outputs created, 0 destroyed' "$log" ||
	fail "the example did not exit cleanly"
ok "compositor exited cleanly"
