#!/bin/sh
# What `meson install` puts where: linkctl in bindir, the preload in
# $libdir/linkguard/ (nothing links it), finding liblinkguard one directory
# up without the loader's help, linkguard-run pointing at it, the example
# compositor only when asked for (-Dinstall-example=true), and the DP AUX
# access rule in the udev rules directory.
#
#   install.sh BUILD_ROOT PREFIX BINDIR LIBDIR INSTALL_EXAMPLE UDEVRULESDIR
set -u

build=${1:?usage: $0 BUILD_ROOT PREFIX BINDIR LIBDIR INSTALL_EXAMPLE UDEVRULESDIR}
prefix=$2 bindir=$3 libdir=$4 install_example=$5 udevrulesdir=$6

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

dest=$(mktemp -d) || fail "mktemp failed"
trap 'rm -rf "$dest"' EXIT
# The build's own install, not the tests' environment.
env -u LD_LIBRARY_PATH meson install -C "$build" --destdir "$dest" \
	--no-rebuild --quiet >"$dest.log" 2>&1 ||
	fail "meson install failed: $(cat "$dest.log")"
rm -f "$dest.log"
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
case $bindir in /*) ;; *) bindir=$prefix/$bindir ;; esac
root=$dest$libdir

[ -x "$dest$bindir/linkctl" ] || fail "no $bindir/linkctl"
echo "ok: $bindir/linkctl"
preload=$root/linkguard/liblinkguard-preload.so
[ -f "$preload" ] || fail "no $libdir/linkguard/liblinkguard-preload.so: $(cd "$dest" && find . -name '*preload*')"
[ ! -e "$root/liblinkguard-preload.so" ] || fail "the preload is also in $libdir"
echo "ok: $libdir/linkguard/liblinkguard-preload.so, not in $libdir"

# The installed preload finds the installed library, whatever the prefix.
resolved=$(env -u LD_LIBRARY_PATH ldd "$preload" | sed -n 's/^\s*liblinkguard\.so[^ ]* => \([^ ]*\).*/\1/p')
[ -n "$resolved" ] || fail "ldd does not resolve liblinkguard: $(ldd "$preload")"
[ "$(realpath "$resolved")" = "$(realpath "$root"/liblinkguard.so.*.*.*)" ] ||
	fail "the preload resolves liblinkguard to $resolved, not $root"
echo "ok: it loads liblinkguard from $libdir (\$ORIGIN/..)"

# The login session's wrapper preloads what was installed, and only into a
# compositor on the wlroots the preload was built for.
run=$dest$bindir/linkguard-run
[ -x "$run" ] || fail "no $bindir/linkguard-run"
grep -qx "preload='$libdir/linkguard/liblinkguard-preload.so'" "$run" ||
	fail "linkguard-run does not look for $libdir/linkguard/liblinkguard-preload.so: $(grep '^preload=' "$run")"
built_for=$(sed -n "s/^wlroots='\(libwlroots-[0-9.]*\.so\)'\$/\1/p" "$run")
env -u LD_LIBRARY_PATH ldd "$root/liblinkguard.so.0" | grep -q "^\s*$built_for => " ||
	fail "linkguard-run checks for '$built_for', liblinkguard links $(ldd "$root/liblinkguard.so.0" | grep wlroots)"
echo "ok: $bindir/linkguard-run preloads $libdir/linkguard/liblinkguard-preload.so into compositors on $built_for"

if [ "$install_example" = true ]; then
	[ -x "$dest$bindir/linkguard-example" ] || fail "linkguard-example not installed"
	echo "ok: linkguard-example installed (-Dinstall-example=true)"
else
	[ ! -e "$dest$bindir/linkguard-example" ] || fail "linkguard-example installed by default"
	echo "ok: linkguard-example not installed (-Dinstall-example=false)"
fi

# Read only, for the video group, on the AUX devices and nothing else.
rule=$dest$udevrulesdir/70-linkguard-dp-aux.rules
[ -f "$rule" ] || fail "no $udevrulesdir/70-linkguard-dp-aux.rules"
line=$(grep -v '^#' "$rule" | grep .)
[ "$(printf '%s\n' "$line" | wc -l)" -eq 1 ] || fail "the rule is not one line: $line"
for key in 'SUBSYSTEM=="drm_dp_aux_dev"' 'GROUP="video"' 'MODE="0640"'; do
	case $line in *"$key"*) ;; *) fail "the rule lacks $key: $line" ;; esac
done
case $line in *uaccess*|*MODE=\"06[4-7][2367]\"*) fail "the rule grants more than reading: $line" ;; esac
echo "ok: $udevrulesdir/70-linkguard-dp-aux.rules: video may read the AUX devices"
