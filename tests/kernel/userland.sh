#!/bin/sh
# The real-kernel harness (run.sh) with another build root as the guest's
# userland: the same kernel and modules, provisioned in this (trixie) root,
# and the tests chrooted in USERLAND with the programs of a build directory
# made there: Debian testing's root for wlroots 0.20 and sway 1.12.
#
#   userland.sh OUT_DIR TEST_KMS TEST_DPCD STATUS EXAMPLE LINKCTL PRELOAD
#
# The programs are paths relative to a build directory: that one's. It
# runs the layers whose result depends on the userland, the compositors'
# (compositor sway wlroots); the others ran in this root's run (run.sh),
# tests/README.md says why. LINKGUARD_KERNEL_LAYERS chooses others.
#
#   LINKGUARD_KERNEL_USERLAND        the other root as this root sees it
#                                    (default: scripts/in-root's forky root,
#                                    /var/cache/linkguard/roots/forky, which
#                                    LINKGUARD_BIND_FORKY=1 binds into this
#                                    one; scripts/test does)
#   LINKGUARD_KERNEL_USERLAND_BUILD  the build directory made in it, with
#                                    the checkout at the same path there
#
# Skips (77) saying what is missing.
set -eu

usage="usage: $0 OUT_DIR TEST_KMS TEST_DPCD STATUS EXAMPLE LINKCTL PRELOAD"
[ $# -eq 7 ] || { echo "$usage" >&2; exit 1; }
out=$1
shift
userland=${LINKGUARD_KERNEL_USERLAND:-/var/cache/linkguard/roots/forky}
build=${LINKGUARD_KERNEL_USERLAND_BUILD:-}
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/../.." && pwd)

skip() {
	echo "SKIP: $*"
	exit 77
}

[ -x "$userland/bin/sh" ] ||
	skip "no build root at $userland in this root (LINKGUARD_BIND_FORKY=1 makes scripts/in-root bind it; or set LINKGUARD_KERNEL_USERLAND)"
[ -n "$build" ] ||
	skip "LINKGUARD_KERNEL_USERLAND_BUILD names no build directory made in $userland"
# Under /tmp the guest makes the place on USERLAND's tmpfs (guest.sh).
case $checkout in
/tmp/*) ;;
*) [ -d "$userland$checkout" ] ||
	skip "$userland has no $checkout to bind the checkout on (make the build directory there through scripts/in-root)" ;;
esac
for program; do
	[ -e "$build/$program" ] || skip "$build/$program is not built"
done
export LINKGUARD_KERNEL_LAYERS="${LINKGUARD_KERNEL_LAYERS:-compositor sway wlroots}"
exec "$here/run.sh" "$out" "$build/$1" "$build/$2" "$build/$3" "$build/$4" \
	"$build/$5" "$build/$6" "$build" "$userland"
