#!/bin/sh
# The harness's verdict on one guest's console (run.sh's last step): PASS
# only where the guest finished, exited 0 and ran every variant. CI shows
# the log's tail, so a failure far above it is named again at the end,
# under the layer (guest.sh's "== " line) it failed in.
#
#   verdict.sh CONSOLE FROZEN
#
# FROZEN: the file the watchdog (watchdog.py) makes when the guest froze.
# LINKGUARD_KERNEL_ABSENT: as run.sh says: one line a variant, "NAME: why".
set -eu
console=${1:?usage: verdict.sh CONSOLE FROZEN}
frozen=${2:?usage: verdict.sh CONSOLE FROZEN}

failures() {
	awk '/^== / { layer = $0 } /FAIL/ { print "  " (layer ? layer : "(before any layer)") ": " $0 }' \
		"$console" | head -n 40 | grep . || echo "  (none printed)"
}

[ ! -e "$frozen" ] || { echo "FAIL: the guest froze (the watchdog's diagnosis above)"; exit 1; }
code=$(sed -n 's/^LG-GUEST-EXIT \([0-9]*\).*/\1/p' "$console")
if [ -z "$code" ]; then
	echo "the guest's failures before it stopped, by layer:"
	failures
	echo "FAIL: the guest did not finish (crash or timeout; its last lines above)"
	exit 1
fi
if [ "$code" != 0 ]; then
	echo "the guest's failures, by layer:"
	failures
	echo "FAIL: the guest's tests exited $code"
	exit 1
fi
# A variant that could not run ("skip (NAME): why") fails the run unless
# the caller said up front that it lacks it, and why: a row of the table
# never silently goes missing.
unexplained=$(printf '%s\n' "${LINKGUARD_KERNEL_ABSENT:-}" | grep -v -E '^([a-z-]+: .*[^ ].*)?$' || :)
[ -z "$unexplained" ] || {
	echo "FAIL: LINKGUARD_KERNEL_ABSENT names a variant without a reason ('NAME: why' a line): $unexplained"
	exit 1
}
missing=
for variant in $(sed -n 's/^skip (\([a-z-]*\)):.*/\1/p' "$console"); do
	why=$(printf '%s\n' "${LINKGUARD_KERNEL_ABSENT:-}" | sed -n "s/^$variant: *//p" | head -n 1)
	if [ -n "$why" ]; then
		echo "note: variant '$variant' did not run: $why (LINKGUARD_KERNEL_ABSENT)"
	else
		missing="$missing $variant"
	fi
done
[ -z "$missing" ] || { echo "FAIL: variants did not run:$missing (above: why; LINKGUARD_KERNEL_ABSENT names those a caller knows it lacks, 'NAME: why' a line)"; exit 1; }
echo "kernel harness: PASS"
