# What every compositor test here expects after 4k60-rbr-on-cue.scn.
# Sourced after tests/lib.sh.

# expect_same_global BEFORE AFTER: the wl_output global names a client saw.
expect_same_global() {
	[ -n "$1" ] && [ "$1" = "$2" ] ||
		fail "wl_output globals changed: '$1' -> '$2'"
	ok "wl_output global $2 was never removed"
}

# expect_linkctl_fallback OUTPUT: linkctl's listing. The last rung of the
# cascade: 4K60 was retrained, then 4K30, then 2560x1440.
expect_linkctl_fallback() {
	echo "$1" | grep -q 'Requested mode: 3840x2160 px, 60.000 Hz' &&
		echo "$1" | grep -q 'Last fallback: 3840x2160 px, 30.000 Hz -> 2560x1440 px, 59.951 Hz (mode-pruned)' ||
		fail "linkctl does not show the fallback: $1"
	ok "linkctl shows the requested mode, the fallback and its reason"
}
