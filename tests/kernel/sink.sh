# The sink's side of the compositor tests (compositor.sh sources it after
# kms.sh): what linkguard makes of lg_link_fault's DP sink (module/dpcd.c),
# checked against the DPCD read raw from the same AUX device.
#
#   dpcd_link           the trained link as the DPCD has it now, as linkctl
#                       words it: "4 lanes at 5400 Mbit/s"
#   wait_for_dpcd_link WHAT SECONDS
#                       until linkctl shows that link
#   aux_transfers       the AUX transfers lg_link_fault served the connector
#   aux_idle            prints the transfers linkguard caused while the
#                       output stood lit and idle for a minute after a
#                       change, then a minute more on the quiet link, each
#                       bounded by linkguard(5)'s read-dpcd: at most 20
#                       reads in any minute, a read every 30 s once quiet
#                       (three in a minute at most), a read six transfers
#                       (three blocks, each after 6.12's probe of the
#                       sink), and once a monitor its capabilities (two
#                       blocks, four more with the extended field: eight)

aux_dev=$(set -- "/sys/class/drm/card0-$name"/drm_dp_aux*; echo "/dev/${1##*/}")
[ -c "$aux_dev" ] || fail "connector $name has no AUX device ($aux_dev)"
aux_param=/sys/module/lg_link_fault/parameters/aux

# dpcd_bytes ADDRESS COUNT: the bytes as hex, one read.
dpcd_bytes() {
	dd if="$aux_dev" bs="$2" count=1 skip="$1" iflag=skip_bytes status=none |
		od -An -tx1 | tr -s ' \n' ' '
}

dpcd_link() {
	set -- $(dpcd_bytes 256 2)
	[ $# = 2 ] || fail "cannot read LINK_BW_SET from $aux_dev"
	# LINK_BW_SET is in units of 0.27 Gbit/s; LANE_COUNT_SET's bits 4:0.
	echo "$((0x$2 & 0x1f)) lanes at $((0x$1 * 270)) Mbit/s"
}

# wait_for_dpcd_link WHAT SECONDS: until linkctl shows the link the DPCD
# has (linkguard reads the sink at hotplugs, after its commits and at a low
# rate while the output is lit).
wait_for_dpcd_link() {
	since=$(date +%s)
	while :; do
		link=$(dpcd_link)
		shown=$("$linkctl" | sed -n 's/^  Link: //p')
		[ "$shown" = "$link" ] && break
		[ $(($(date +%s) - since)) -lt "$2" ] ||
			fail "$1: linkctl shows the link as '$shown' after $2 s, the sink's DPCD says '$link'"
		sleep 0.5
	done
	ok "$1: linkctl shows the link the sink trained, $link, after $(($(date +%s) - since)) s"
}

aux_transfers() {
	sed -n "s/^$conn transfers=\([0-9]*\) .*/\1/p" "$aux_param"
}

aux_idle() {
	for phase in "after a change:128" "quiet since:18"; do
		when=${phase%:*} most=${phase##*:}
		first=$(aux_transfers)
		sleep 60
		count=$(($(aux_transfers) - first))
		echo "figure: $count AUX transfers on $name in 60 s, $(kernel 4) lit and idle, $when (at most $most)"
		[ "$count" -le "$most" ] ||
			fail "$count AUX transfers in a minute $when: more than linkguard reads ($most)"
	done
}

# dpcd_locked: whether the sink reports its link up: interlane alignment
# (LANE_ALIGN_STATUS_UPDATED bit 0) and receive port 0 in sync (SINK_STATUS
# bit 0); lg-kernel-dpcd checked the lanes' bits against them.
dpcd_locked() {
	set -- $(dpcd_bytes 516 2)
	[ $# = 2 ] && [ $((0x$1 & 1)) = 1 ] && [ $((0x$2 & 1)) = 1 ]
}

wait_for_dpcd_locked() {
	tries=$(($1 * 2))
	until dpcd_locked; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || fail "$variant: the sink still does not hold the link after $1 s"
		sleep 0.5
	done
}

# fail_dark SCENARIO [MBPS]: the sink loses lock, link-status stays GOOD and
# no uevent comes (lg-kernel-dpcd showed that of the trigger). With
# linkguard the DPCD tells it: the same mode retrained, its CRTC off (DPMS)
# and on (the mode that runs committed again with link-status GOOD is no
# modeset to the kernel: drm_atomic_crtc_needs_modeset() is false), two
# modesets; or with
# MBPS (the sink holds no faster rate) a step down, reason sink-unlocked
# (below the link that went dark where the backend tells links, else by
# pixel clock), to the best mode the module trains at MBPS or below (the
# oracle's, lg-kernel-status predict), in at most two modesets after the
# retrain's two; link-status Good, the same wl_output. Stock wlroots
# hears nothing: the sink stays dark.
fail_dark() {
	before=$(wl_output_globals)
	was=$(kernel 4)
	seen=$(grep -c "$name: the sink has lost the link" "$log")
	trigger mark "$conn"
	trigger dark "$conn" "${2:-0}"
	if [ "$recovers" != 1 ]; then
		sleep 15 # three reads of linkguard's, were it recovering
		settle
		after=$(wl_output_globals)
		record "$1"
		! dpcd_locked && [ "$(figure modesets)" = 0 ] ||
			fail "$variant: the sink relocked, or something modeset ($figures)"
		ok "$variant, $1: still dark after 15 s, $(kernel 4) lit, link-status $(kernel 2), no modeset"
		return
	fi
	wait_for_log "$name: the sink has lost the link" 30 $((seen + 1))
	wait_for_dpcd_locked 60
	settle
	after=$(wl_output_globals)
	record "$1"
	now=$(kernel 4)
	[ "$(kernel 2)" = good ] || fail "$variant: link-status is $(kernel 2) after recovery"
	[ -n "$after" ] && [ "$after" = "$before" ] ||
		fail "$variant: wl_output globals went from '$before' to '$after'"
	if [ "${2:-0}" = 0 ]; then
		[ "$now" = "$was" ] && [ "$(figure modesets)" = 2 ] ||
			fail "$variant: $now after $(figure modesets) modesets; expected $was retrained, off and on ($figures)"
		grep -q "$name: .* runs with link-status GOOD: the kernel would retrain nothing; its CRTC goes off first" "$log" ||
			fail "$variant: the retrain's DPMS off is not in the log"
		! grep -q "$name: the output goes off and on instead" "$log" ||
			fail "$variant: DPMS off failed: the output went off and on through wlroots"
		how="$now retrained in place, its CRTC off and on: 2 modesets"
	else
		grep -q "$name: fallback .* (sink-unlocked)" "$log" ||
			fail "$variant: no sink-unlocked fallback in the log"
		link=$(dpcd_link)
		rate=${link#* at }
		[ "${rate% Mbit/s}" -le "$2" ] ||
			fail "$variant: the sink holds the link at $link, above $2 Mbit/s"
		size=${requested%@*}
		best=$("$status_tool" predict "${size%x*}" "${size#*x}" "${requested#*@}" "$2") ||
			fail "$variant: the module trains no listed mode at $2 Mbit/s or below"
		[ "$now" = "$best" ] ||
			fail "$variant: $now after the step down; the best mode the module trains at $2 Mbit/s or below is $best"
		[ "$(figure modesets)" -le 4 ] ||
			fail "$variant: $(figure modesets) modesets: the retrain's two and more than two steps ($figures)"
		how="fallback to $now ($link), the best at $2 Mbit/s or below, $(figure modesets) modesets, reason sink-unlocked"
	fi
	ok "$variant, $1: no uevent, found in the DPCD: $how, link-status Good, wl_output $after kept"
}

# fail_errors SCENARIO PER_SECOND: symbol errors accrue on every lane;
# linkguard reads them, says the link is degraded (link-errors) within a
# minute's window and tells clients, without a modeset (no step down
# configured). Leaves the errors stopped and linkctl's listing in $listing.
fail_errors() {
	before=$(wl_output_globals)
	seen=$(grep -c "$name: symbol errors per minute .*: link degraded (link-errors)" "$log")
	trigger mark "$conn"
	trigger errors "$conn" "$2"
	wait_for_log "$name: symbol errors per minute .*: link degraded \(link-errors\)" 90 $((seen + 1))
	listing=$("$linkctl")
	trigger errors "$conn" 0
	settle
	after=$(wl_output_globals)
	record "$1"
	lanes=$(dpcd_link | cut -d' ' -f1)
	echo "$listing" | grep -q "^  State: degraded" &&
		echo "$listing" | grep -Eq "^  Sink: $lanes of $lanes lanes locked, aligned, in sync; symbol errors a minute per lane: [0-9 ]+ \(above the threshold: link-errors\)$" ||
		fail "$variant: linkctl does not show $name degraded by link-errors: $listing"
	[ "$(figure modesets)" = 0 ] && [ "$after" = "$before" ] ||
		fail "$variant: errors without a step down modeset or recreated the output ($figures)"
	ok "$variant, $1: $(grep "$name: symbol errors per minute" "$log" | tail -n 1 | sed 's/.*symbol errors/symbol errors/'), no modeset, wl_output $after kept"
}
