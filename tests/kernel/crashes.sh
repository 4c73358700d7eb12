#!/bin/sh
# Run by guest.sh at the end: the run's user-space crashes, so that a
# compositor that died in a layer explains itself in the log, not only by
# the check it then failed. First the kernel's own line for each (dmesg:
# the file and offset it died at); then, from the cores the crashes left
# (guest.sh's core_pattern), gdb's backtrace of each place crashed in, once,
# with how many crashed there. Fails where linkguard's code crashed: the
# kernel's line names its library or one of its programs, or a frame of a
# backtrace is in its checkout's sources or contrib/sway's file; another
# program's crash is reported (its own bug, as sway 1.10.1's was).
#
#   crashes.sh ROOT CORES CHECKOUT
#
# ROOT: the root the programs ran in (/ or USERLAND); CORES: the cores'
# directory; CHECKOUT: linkguard's sources, absolute.
set -u
root=$1 cores=$2 checkout=$3

lines=$(dmesg | grep -E ': segfault at |traps: ')
[ -n "$lines" ] || { echo "crashes: none in user space"; exit 0; }
echo "crashes: user space, as the kernel logged them:"
echo "$lines" | sed 's/^/  /'
sites=$cores/sites
mkdir -p "$sites"
for core in "$cores"/core.*; do
	[ -f "$core" ] || continue
	# core.!usr!bin!sway.1234: the executable's path in ROOT.
	exe=$(echo "${core#"$cores"/core.}" | sed 's/\.[0-9]*$//' | tr '!' /)
	trace=$(gdb -batch -nx -ex "set sysroot $root" -ex "set debuginfod enabled off" \
		-ex "set filename-display absolute" -ex bt "$root$exe" "$core" 2>&1 |
		grep '^#' | head -n 20)
	[ -n "$trace" ] || trace="(gdb read no backtrace from $core)"
	# The place: the first frame without its address.
	site=$(echo "$trace" | head -n 1 | sed 's/^#0 *\(0x[0-9a-f]* in \)\{0,1\}//' | cksum | cut -d' ' -f1)
	if [ ! -e "$sites/$site" ]; then
		echo "$exe" >"$sites/$site"
		echo "$trace" >>"$sites/$site"
	fi
	echo "$core" >>"$sites/$site.cores"
done
for site in "$sites"/*.cores; do
	[ -f "$site" ] || continue
	trace=${site%.cores}
	echo "crashes: $(wc -l <"$site") core(s) of $(head -n 1 "$trace") crashed here:"
	tail -n +2 "$trace" | sed 's/^/  /'
done
# The kernel names the file the crash was in (its first 15 characters for
# the process); gdb, each frame's source file.
if echo "$lines" | grep -Eq 'liblinkguard|linkguard-exam|linkctl|lg-kernel' ||
		cat "$sites"/* 2>/dev/null | grep -Eq " at ($checkout/|[^ ]*/sway/linkguard\.c:)"; then
	echo "FAIL: linkguard's code crashed (above)"
	exit 1
fi
