#!/bin/sh
# liblinkguard.so's public ABI, as libabigail sees it from the library's
# debugging information: its functions and the types they reach, compared
# with the one recorded in the repository, so that a change to it is a
# decision and not an accident.
#
#   abi.sh check LIBRARY RECORD SUPPRESSIONS
#   abi.sh record LIBRARY RECORD
#
# check fails on any difference abidiff reports, added functions included.
# The suppressions leave out the types linkguard does not define (wlroots',
# libdrm's, libc's): their layout is the wlroots build's, not ours, and
# differs between wlroots 0.18 and 0.20 although linkguard's does not.
#
# The record is written by abidw of Debian 13 (libabigail 2.6, format 2),
# which Debian testing's abidiff (3.0) reads too; a record of format 3
# would not be readable in the gate's root, so record refuses to write one.
set -eu

usage="usage: $0 check LIBRARY RECORD SUPPRESSIONS | record LIBRARY RECORD"
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
mode=$1 library=$2 record=$3

case $mode in
record)
	[ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
	version=$(abidw --version | sed 's/^[^0-9]*//')
	case $version in
	2.*) ;;
	*)
		echo "abi.sh: abidw $version writes a format the gate's abidiff cannot read: record in the trixie root (scripts/in-root)" >&2
		exit 1
		;;
	esac
	abidw --no-corpus-path --no-comp-dir-path --out-file "$record" "$library"
	echo "abi.sh: recorded the ABI of $(basename "$library") in $record (abidw $version); commit it with the change"
	;;
check)
	[ $# -eq 4 ] || { echo "$usage" >&2; exit 2; }
	suppressions=$4
	status=0
	report=$(abidiff --suppressions "$suppressions" "$record" "$library") || status=$?
	echo "$report"
	# abidiff's exit status is a bit field: 1 error, 2 usage, 4 an ABI
	# change, 8 an incompatible one. Added functions are a change, too.
	if [ $((status & 3)) -ne 0 ]; then
		echo "FAIL: abidiff could not compare $library with $record (exit $status)"
		exit 1
	fi
	if [ "$status" -ne 0 ] || echo "$report" | grep -Eq 'summary: .*[1-9][0-9]* (Removed|Changed|Added)'; then
		echo "FAIL: the public ABI of $(basename "$library") differs from $record (above)."
		echo "If the change is deliberate, record it in the trixie root and commit the record with it:"
		echo "  scripts/in-root ninja -C BUILD_DIR abi-record"
		echo "(an incompatible change also takes a new soname: meson.build's version)"
		exit 1
	fi
	echo "ok: the public ABI of $(basename "$library") is the one recorded"
	;;
*)
	echo "$usage" >&2
	exit 2
	;;
esac
