# The sink's side of the compositor tests (compositor.sh sources it after
# kms.sh): what linkguard makes of lg_link_fault's DP sink (module/dpcd.c),
# checked against the DPCD read raw from the same AUX device.
#
#   dpcd_link           the trained link as the DPCD has it now, as linkctl
#                       words it: "4 lanes at 5400 Mbit/s"
#   wait_for_dpcd_link WHAT SECONDS
#                       until linkctl shows that link
#   aux_transfers       the AUX transfers lg_link_fault served the connector
#   aux_idle SECONDS    prints the transfers linkguard caused while the
#                       output stood lit and idle that long (a figure, not
#                       an assertion)

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
	first=$(aux_transfers)
	sleep "$1"
	echo "figure: $(($(aux_transfers) - first)) AUX transfers on $name in $1 s, $(kernel 4) lit and idle"
}
