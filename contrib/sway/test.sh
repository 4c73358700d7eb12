#!/bin/sh
# tests/preload/sway.sh with sway built with linkguard in (build.sh and the
# patch of its series) instead of the preload: the sway release of the
# wlroots this linkguard is built on, 1.10.1 on 0.18, 1.11 on 0.19, 1.12 on
# 0.20, from its vendored release tarball.
#
#   test.sh LINKGUARD_BUILD_DIR PRELOAD LINKCTL SCENARIO TOPLEVEL
#
# Skips (77), saying why, only when there is no vendor directory. Leaves
# the binary's path as the symlink LINKGUARD_BUILD_DIR/contrib-sway/sway,
# where the real-kernel harness (tests/kernel/sway.sh) runs it.
set -eu

usage="usage: $0 LINKGUARD_BUILD_DIR PRELOAD LINKCTL SCENARIO TOPLEVEL"
[ $# -eq 5 ] || { echo "$usage" >&2; exit 1; }
build=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)

wlroots=$(ldd "$build/liblinkguard.so" |
	sed -n 's/^[[:space:]]*\(libwlroots-[0-9.]*\)\.so.*/\1/p')
case $wlroots in
libwlroots-0.18) version=1.10.1 ;;
libwlroots-0.19) version=1.11 ;;
libwlroots-0.20) version=1.12 ;;
*) echo "FAIL: no sway release for linkguard's wlroots '$wlroots'"; exit 1 ;;
esac

. "$here/../test-lib.sh"
contrib_build "sway $version with linkguard" \
	"$here/build.sh" "$version" "$(contrib_cache contrib-sway)" "$build"
sway=$built
mkdir -p "$build/contrib-sway"
ln -sfn "$sway" "$build/contrib-sway/sway"

export LG_SWAY_BUILTIN="$sway"
export LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The cached binary must run this build's library, not the one it was
# linked against.
lib=$(ldd "$sway" | sed -n 's/^[[:space:]]*liblinkguard\.so[^ ]* => \([^ ]*\).*/\1/p')
case $lib in
"$build"/liblinkguard.so*) echo "sway runs $lib" ;;
*) echo "FAIL: $sway loads liblinkguard from '$lib', not from $build"; exit 1 ;;
esac
exec "$here/../../tests/preload/sway.sh" "$@"
