#!/bin/sh
# Builds wlroots from its vendored tarball (scripts/build-vendored) with
# its series applied: contrib/wlroots/SERIES/0*.patch, the cover letter
# left out. A release's library has the soname of Debian's
# (libwlroots-SERIES.so) and the features Debian's compositors link
# against, so that they run on it through LD_LIBRARY_PATH.
#
#   build.sh VERSION CACHE_DIR
#
# VERSION is a release, 0.18.2, 0.19.3 or 0.20.2, whose SERIES is its
# major.minor; or a commit of wlroots' main, 329a88e7, whose SERIES is
# main-329a88e7 (the merge request's), its soname the version main's
# meson.build is developing. Prints the build's directory: the library is
# build/libwlroots-*.so (main's tinywl build/tinywl/tinywl), the patched
# source src/. Exits 77 when there is no
# vendor directory: the caller says so, it does not pass.
set -eu

usage="usage: $0 VERSION CACHE_DIR"
version=${1:?$usage}
cache=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
case $version in
*.*) series=$(echo "$version" | cut -d. -f1,2) ;;
*) series=main-$version ;;
esac

[ -d "$here/$series" ] || { echo "build.sh: no series for wlroots $series" >&2; exit 1; }
set --
for patch in "$here/$series"/0*.patch; do
	case $patch in */0000-cover-letter.patch) continue ;; esac
	set -- "$@" "$patch"
done
[ $# -gt 0 ] || { echo "build.sh: no patches in $here/$series" >&2; exit 1; }

# Debian's backends and Xwayland (its compositors link against them);
# optimized like Debian's package. Without glslang no Vulkan renderer,
# which none of them links against. Warnings are not errors: a newer
# compiler must not fail wlroots' own code. main's examples give the
# compositor that runs on it (tinywl): Debian's link against a release.
case $series in
main-*) examples=true ;;
*) examples=false ;;
esac
status=0
out=$("$here/../../scripts/build-vendored" "wlroots-$version.tar.xz" "$cache" "" \
	"$@" -- --buildtype=debugoptimized -Dwerror=false -Dexamples=$examples \
	-Dbackends=drm,libinput,x11 -Dxwayland=enabled -Drenderers=gles2) ||
	status=$?
[ $status -eq 0 ] || exit $status

# main's is the release it develops: 0.21 of version: '0.21.0-dev'.
case $series in
main-*) abi=$(sed -n "s/^\tversion: '\([0-9]*\.[0-9]*\)\..*/\1/p" "$out/src/meson.build") ;;
*) abi=$series ;;
esac
lib=$out/build/libwlroots-$abi.so
soname=$(objdump -p "$lib" | sed -n 's/^ *SONAME *//p')
[ "$soname" = "libwlroots-$abi.so" ] ||
	{ echo "build.sh: $lib has soname '$soname', not libwlroots-$abi.so" >&2; exit 1; }
echo "$out"
