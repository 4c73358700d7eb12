#!/bin/sh
# The harness's verdict on one guest's console (run.sh's last step): PASS
# only where the guest finished, exited 0 and ran every variant. CI shows
# the log's tail, so a failure far above it is named again at the end,
# under the layer (guest.sh's "== " line) it failed in.
#
#   verdict.sh CONSOLE FROZEN
#
# FROZEN: the file the watchdog (watchdog.py) makes when the guest froze.
# LINKGUARD_KERNEL_ABSENT: as run.sh says.
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
# the caller said up front that it lacks it: a row of the table never
# silently goes missing.
missing=
for variant in $(sed -n 's/^skip (\([a-z-]*\)):.*/\1/p' "$console"); do
	case " ${LINKGUARD_KERNEL_ABSENT:-} " in
	*" $variant "*) echo "note: variant '$variant' did not run, as LINKGUARD_KERNEL_ABSENT says" ;;
	*) missing="$missing $variant" ;;
	esac
done
[ -z "$missing" ] || { echo "FAIL: variants did not run:$missing (above: why; LINKGUARD_KERNEL_ABSENT names those a caller knows it lacks)"; exit 1; }
echo "kernel harness: PASS"
