#!/bin/sh
# The preload in a process that has another libwlroots loaded (here a
# stand-in library named like one) must log one line and stay out of the
# way: no linkguard global, and sway runs as without it.
#
#   refuse.sh PRELOAD OTHER_WLROOTS
set -u

preload=${1:?usage: $0 PRELOAD OTHER_WLROOTS}
other=${2:?usage: $0 PRELOAD OTHER_WLROOTS}

LG_LOG_NAME=sway LG_LOG_LINES=20
. "$(dirname "$0")/../lib.sh"

preload_fits "$preload" sway
export WLR_HEADLESS_OUTPUTS=1 ASAN_OPTIONS=detect_leaks=0
LD_PRELOAD="$(preload_runtimes) $other $preload" \
	sway -c "$(dirname "$0")/sway.config" >"$log" 2>&1 &
pid=$!
wait_for_socket
wait_for_log "preload: built for libwlroots-[0-9.]*\.so, the compositor uses $(basename "$other"): staying out of the way" 10
ok "the preload refused the other wlroots"
globals=$(timeout 5 "${WAYLAND_INFO:-wayland-info}" 2>/dev/null)
echo "$globals" | grep -q "interface: 'wl_output'" ||
	fail "sway does not run normally: no wl_output"
echo "$globals" | grep -q zlg_link_manager_v1 &&
	fail "linkguard's global is there although the preload refused"
grep -q 'preload: attached' "$log" && fail "the preload attached anyway"
ok "sway runs without linkguard: wl_output, no linkguard global"
