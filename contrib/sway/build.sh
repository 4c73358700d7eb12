#!/bin/sh
# Builds sway 1.10.1 with contrib/sway/0001-linkguard.patch against a
# linkguard build directory, from Debian's source package (apt-get source
# sway: needs a deb-src line) or from an unpacked sway 1.10.1 tree.
#
#   build.sh LINKGUARD_BUILD_DIR OUT_DIR [SWAY_SOURCE_DIR]
#
# Prints the patched sway binary's path. Exits 77 when no sway 1.10.1
# source can be had: the caller says so, it does not pass. Rebuilds only
# what the patch or linkguard changed.
set -eu

usage="usage: $0 LINKGUARD_BUILD_DIR OUT_DIR [SWAY_SOURCE_DIR]"
linkguard=$(realpath "${1:?$usage}")
out=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
patch=$here/0001-linkguard.patch
mkdir -p "$out"
out=$(realpath "$out")

# The source, unpacked once per patch: a new patch starts from a clean tree.
stamp=$(sha256sum "$patch" | cut -d' ' -f1)
src=$out/src
if [ "$(cat "$out/src.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$src" "$out/build" "$out/src.stamp"
	if [ -n "${3:-}" ]; then
		cp -r "$3" "$src"
	else
		mkdir -p "$out/deb"
		(cd "$out/deb" && apt-get -o APT::Sandbox::User=root source -q sway) >&2 || {
			echo "build.sh: 'apt-get source sway' failed: no deb-src, or the archive serves no source packages" >&2
			exit 77
		}
		mv "$out"/deb/sway-*/ "$src"
	fi
	version=$(sed -n "s/^\tversion: '\([^']*\)'.*/\1/p" "$src/meson.build" | head -n 1)
	[ "$version" = 1.10.1 ] ||
		{ echo "build.sh: the patch is for sway 1.10.1, the source is $version" >&2; exit 77; }
	patch -d "$src" -p1 --quiet <"$patch"
	echo "$stamp" >"$out/src.stamp"
fi

# linkguard as built, not installed: its uninstalled pkg-config file.
if [ ! -f "$out/build/build.ninja" ]; then
	PKG_CONFIG_PATH=$linkguard/meson-uninstalled meson setup "$out/build" "$src" \
		-Dlinkguard=enabled -Dman-pages=disabled -Dswaybar=false \
		-Dswaynag=false -Ddefault-wallpaper=false -Dzsh-completions=false \
		-Dbash-completions=false -Dfish-completions=false >"$out/setup.log" 2>&1 ||
		{ cat "$out/setup.log" >&2; exit 1; }
fi
ninja -C "$out/build" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
echo "$out/build/sway/sway"
