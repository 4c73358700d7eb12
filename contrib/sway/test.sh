#!/bin/sh
# tests/preload/sway.sh with sway 1.10.1 built from contrib/sway's patch
# (build.sh) instead of the preload. Set LINKGUARD_SWAY_SOURCE to an unpacked
# sway 1.10.1 tree to build from it instead of Debian's source package.
#
#   test.sh LINKGUARD_BUILD_DIR PRELOAD LINKCTL SCENARIO TOPLEVEL
#
# Skips (77), saying why, where the patch cannot apply: linkguard built on
# another wlroots than 0.18 (sway 1.10's), or no sway 1.10.1 source.
set -eu

usage="usage: $0 LINKGUARD_BUILD_DIR PRELOAD LINKCTL SCENARIO TOPLEVEL"
[ $# -eq 5 ] || { echo "$usage" >&2; exit 1; }
build=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)

if ! ldd "$build/liblinkguard.so" | grep -q 'libwlroots-0\.18'; then
	echo "SKIP: sway 1.10.1 needs wlroots 0.18; this linkguard is built on" \
		"$(ldd "$build/liblinkguard.so" | sed -n 's/.*\(libwlroots[^ ]*\).*/\1/p')"
	exit 77
fi
start=$(date +%s)
status=0
sway=$("$here/build.sh" "$build" "$build/contrib-sway" ${LINKGUARD_SWAY_SOURCE:-}) ||
	status=$?
if [ $status -eq 77 ]; then
	echo "SKIP: no sway 1.10.1 source to patch (see above)"
	exit 77
fi
[ $status -eq 0 ] || { echo "FAIL: building the patched sway failed"; exit 1; }
echo "patched sway built in $(($(date +%s) - start)) s: $sway"

export LG_SWAY_BUILTIN="$sway"
export LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$here/../../tests/preload/sway.sh" "$@"
