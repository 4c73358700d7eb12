#!/bin/sh
# Builds sway from its release tarball (found and checksum-verified by
# scripts/vendor) with linkguard built in: contrib/sway/SERIES/0001-linkguard.patch,
# compiled against a linkguard build directory as it stands (its uninstalled
# pkg-config file). Without a linkguard build directory it builds sway as
# released: the unmodified sway of the wlroots 0.19 leg, which Debian does
# not package.
#
#   build.sh VERSION OUT_DIR [LINKGUARD_BUILD_DIR]
#
# VERSION is 1.10.1 (wlroots 0.18), 1.11 (0.19) or 1.12 (0.20); SERIES is
# its major.minor. Prints the sway binary's path (swaymsg is built too).
# Exits 77 when there is no vendor directory: the caller says so, it does
# not pass. OUT_DIR is a cache: the tree is unpacked again only when the
# tarball's checksum or the patch changed, and ninja rebuilds only what
# linkguard changed.
set -eu

usage="usage: $0 VERSION OUT_DIR [LINKGUARD_BUILD_DIR]"
version=${1:?$usage}
out=${2:?$usage}
linkguard=${3:+$(realpath "$3")}
here=$(cd "$(dirname "$0")" && pwd)
series=$(echo "$version" | cut -d. -f1,2)

status=0
vendored=$("$here/../../scripts/vendor" "sway-$version.tar.xz") || status=$?
[ $status -eq 0 ] || exit $status
sum=${vendored%% *}
tarball=${vendored#* }

patch=
key="$sum unpatched"
if [ -n "$linkguard" ]; then
	patch=$here/$series/0001-linkguard.patch
	[ -f "$patch" ] || { echo "build.sh: no patch for sway $series ($patch)" >&2; exit 1; }
	key="$sum $(sha256sum "$patch" | cut -d' ' -f1)"
fi

mkdir -p "$out"
out=$(realpath "$out")
src=$out/src
if [ "$(cat "$out/src.stamp" 2>/dev/null)" != "$key" ]; then
	rm -rf "$src" "$out/build" "$out/src.stamp"
	mkdir "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	if [ -n "$patch" ]; then
		patch -d "$src" -p1 --quiet <"$patch" ||
			{ echo "build.sh: $patch does not apply to sway $version" >&2; exit 1; }
	fi
	echo "$key" >"$out/src.stamp"
fi

# Only what sway needs to run headless under the tests. Warnings are not
# errors: a newer compiler must not fail sway's own code.
if [ ! -f "$out/build/build.ninja" ]; then
	set -- -Dwerror=false -Dman-pages=disabled \
		-Dtray=disabled -Dgdk-pixbuf=disabled -Dswaybar=false \
		-Dswaynag=false -Ddefault-wallpaper=false -Dzsh-completions=false \
		-Dbash-completions=false -Dfish-completions=false
	if [ -n "$linkguard" ]; then
		set -- "$@" -Dlinkguard=enabled
		# A sanitized liblinkguard leaves the sanitizer runtimes'
		# symbols to the process (-Db_lundef=false): sway is not
		# instrumented, the caller preloads the runtimes.
		sanitize=$(meson introspect --buildoptions "$linkguard" |
			jq -r '.[] | select(.name == "b_sanitize") | [.value] | flatten | join(",")')
		case $sanitize in
		'' | none) ;;
		*) set -- "$@" -Dc_link_args=-Wl,--allow-shlib-undefined ;;
		esac
	fi
	PKG_CONFIG_PATH=${linkguard:+$linkguard/meson-uninstalled:}${PKG_CONFIG_PATH:-} \
		meson setup "$out/build" "$src" "$@" >"$out/setup.log" 2>&1 ||
		{ cat "$out/setup.log" >&2; exit 1; }
fi
ninja -j2 -C "$out/build" >"$out/build.log" 2>&1 || { tail -n 50 "$out/build.log" >&2; exit 1; }
echo "$out/build/sway/sway"
