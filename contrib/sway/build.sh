#!/bin/sh
# Builds sway from its release tarball (scripts/build-vendored) with
# linkguard built in: contrib/sway/SERIES/0001-linkguard.patch,
# compiled against a linkguard build directory (its uninstalled pkg-config
# file). Without a linkguard build directory it builds sway as released:
# the unmodified sway of the wlroots 0.19 leg, which Debian does not
# package.
#
#   build.sh VERSION CACHE_DIR [LINKGUARD_BUILD_DIR]
#
# VERSION is 1.10.1 (wlroots 0.18), 1.11 (0.19) or 1.12 (0.20); SERIES is
# its major.minor. Prints the sway binary's path (swaymsg is built too).
# Exits 77 when there is no vendor directory: the caller says so, it does
# not pass.
#
# Each build is kept in CACHE_DIR, keyed by the tarball's checksum, the
# patch and what sway compiles against: linkguard's version and public
# headers. sway links liblinkguard dynamically, so the build serves every
# linkguard build directory with those headers (plain or sanitized), and
# the caller puts the one under test on LD_LIBRARY_PATH. Builds unused for
# a day go.
set -eu

usage="usage: $0 VERSION CACHE_DIR [LINKGUARD_BUILD_DIR]"
version=${1:?$usage}
cache=${2:?$usage}
linkguard=${3:+$(realpath "$3")}
here=$(cd "$(dirname "$0")" && pwd)
series=$(echo "$version" | cut -d. -f1,2)

patch=
key=
if [ -n "$linkguard" ]; then
	patch=$here/$series/0001-linkguard.patch
	[ -f "$patch" ] || { echo "build.sh: no patch for sway $series ($patch)" >&2; exit 1; }
	export PKG_CONFIG_PATH="$linkguard/meson-uninstalled${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
	srcdir=$(pkg-config --variable=srcdir linkguard) ||
		{ echo "build.sh: $linkguard is not a linkguard build directory" >&2; exit 1; }
	key="$(pkg-config --modversion linkguard)
$(cat "$srcdir"/include/linkguard/*.h)"
fi

# Only what sway needs to run headless under the tests. Warnings are not
# errors: a newer compiler must not fail sway's own code. A sanitized
# liblinkguard leaves the sanitizer runtimes' symbols to the process
# (-Db_lundef=false): sway is not instrumented, whoever runs it with that
# library preloads the runtimes.
set -- -Dwerror=false -Dman-pages=disabled -Dtray=disabled \
	-Dgdk-pixbuf=disabled -Dswaybar=false -Dswaynag=false \
	-Ddefault-wallpaper=false -Dzsh-completions=false \
	-Dbash-completions=false -Dfish-completions=false \
	-Dc_link_args=-Wl,--allow-shlib-undefined
[ -z "$patch" ] || set -- "$@" -Dlinkguard=enabled
status=0
# $patch: no word when there is none.
# shellcheck disable=SC2086
out=$("$here/../../scripts/build-vendored" "sway-$version.tar.xz" "$cache" "$key" \
	$patch -- "$@") || status=$?
[ $status -eq 0 ] || exit $status
echo "$out/build/sway/sway"
