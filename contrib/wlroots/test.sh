#!/bin/sh
# The patched wlroots of the leg's wlroots minor version, or of wlroots'
# main (build.sh), and what can be checked of it without a kernel:
# - the choice of mode after a link failure, pick_fallback_mode() of the
#   patched tree: test_fallback_mode.c compiled against the patched headers
#   and linked with the object the patched library was built from;
# - the root's compositors on that wlroots find every wlroots symbol they
#   use in the patched library, so that they run on it.
#
#   test.sh WLROOTS_VERSION LINKGUARD_BUILD_DIR
#
# WLROOTS_VERSION is the leg's wlroots version, or a commit of main that
# has a series (329a88e7). Skips (77), saying why, only when there is no
# vendor directory. Leaves a release's patched library's directory as the
# symlink LINKGUARD_BUILD_DIR/contrib-wlroots/lib, where the real-kernel
# harness (tests/kernel/wlroots.sh) finds it; main's, whose compositor
# is its own tinywl (the root's link against a release), goes in
# contrib-wlroots-main.
set -eu

usage="usage: $0 WLROOTS_VERSION LINKGUARD_BUILD_DIR"
[ $# -eq 2 ] || { echo "$usage" >&2; exit 1; }
build=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
work=$build/contrib-wlroots
case $1 in
0.18.*) version=0.18.2 ;;
0.19.*) version=0.19.3 ;;
0.20.*) version=0.20.2 ;;
*.*) echo "FAIL: no series for wlroots $1"; exit 1 ;;
*) version=$1 work=$build/contrib-wlroots-main ;;
esac

. "$here/../test-lib.sh"
contrib_build "patched wlroots $version" \
	"$here/build.sh" "$version" "$(contrib_cache contrib-wlroots)"
out=$built
lib=$(echo "$out"/build/libwlroots-*.so)
[ -f "$lib" ] || { echo "FAIL: no one libwlroots-*.so in $out/build: $lib"; exit 1; }
mkdir -p "$work"
ln -sfn "$out/build" "$work/lib"

# The patched function, from the object the library was built from.
objects=$(find "$lib.p" -name '*backend_drm_util.c.o' \
	-o -name '*backend_drm_pnpids.c.o')
[ "$(echo "$objects" | wc -l)" = 2 ] ||
	{ echo "FAIL: no objects of backend/drm/util.c and pnpids.c in $out/build"; exit 1; }
nm "$lib.p/backend_drm_util.c.o" | grep -q ' T pick_fallback_mode$' ||
	{ echo "FAIL: the patched util.c defines no pick_fallback_mode"; exit 1; }
test=$work/test_fallback_mode
# shellcheck disable=SC2046,SC2086
cc -std=c11 -Wall -Wextra -Werror -DWLR_USE_UNSTABLE \
	-I"$out/src/include" -I"$out/build/include" \
	$(pkg-config --cflags wayland-server pixman-1 libdrm) \
	-o "$test" "$here/test_fallback_mode.c" $objects \
	"$lib" \
	$(pkg-config --libs wayland-server libdrm libdisplay-info) -lm ||
	{ echo "FAIL: test_fallback_mode.c does not build against the patched tree"; exit 1; }
LD_LIBRARY_PATH=$out/build "$test" || { echo "FAIL: pick_fallback_mode"; exit 1; }

# Every wlroots symbol the compositors use, exported by the patched library.
exported=$work/exported
nm -D --defined-only "$lib" | awk '{ print $3 }' | sort >"$exported"
[ -s "$exported" ] || { echo "FAIL: $lib exports nothing"; exit 1; }
checked=
for compositor in sway labwc cage; do
	binary=$(command -v "$compositor") || continue
	ldd "$binary" | grep -q "$(basename "$lib") " || continue
	used=$(nm -D --undefined-only "$binary" | awk '$2 ~ /^_?wlr_/ { print $2 }' | sort)
	missing=$(echo "$used" | comm -23 - "$exported" | tr '\n' ' ')
	[ -z "$missing" ] ||
		{ echo "FAIL: $binary needs what the patched wlroots lacks: $missing"; exit 1; }
	echo "ok: $binary finds its $(echo "$used" | wc -l) wlroots symbols in the patched library"
	checked="$checked $compositor"
done
# main's compositor, tinywl of the patched tree, which the real-kernel
# harness runs in its forky guest.
case $version in
*.*) ;;
*)
	tinywl=$out/build/tinywl/tinywl
	[ -x "$tinywl" ] || { echo "FAIL: no tinywl in $out/build"; exit 1; }
	found=$(ldd "$tinywl" | sed -n 's/.*libwlroots-[0-9.]*\.so => \(.*\) (0x.*/\1/p')
	[ -n "$found" ] && [ "$(realpath "$found")" = "$(realpath "$lib")" ] ||
		{ echo "FAIL: $tinywl does not run on $lib: $(ldd "$tinywl" | grep wlroots)"; exit 1; }
	echo "ok: tinywl of the patched tree runs on $(basename "$lib")"
	checked=tinywl
	;;
esac
[ -n "$checked" ] || echo "note: no compositor in this root runs on $(basename "$lib")"
