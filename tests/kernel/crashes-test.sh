#!/bin/sh
# crashes.sh with stand-ins for dmesg and gdb: no crash passes; crashes
# are grouped by the place they crashed at, with their count; a crash in
# linkguard's code (a frame in the checkout's sources, or the kernel's line
# naming its library) fails, another program's is only reported.
set -u
crashes=$(cd "$(dirname "$0")" && pwd)/crashes.sh
. "$(dirname "$0")/selftest.sh"

mkdir -p "$dir/bin"
cat >"$dir/bin/dmesg" <<'SH'
#!/bin/sh
cat "$FAKE_DMESG"
SH
# A core's backtrace: the frame's source from the core's own contents.
cat >"$dir/bin/gdb" <<'SH'
#!/bin/sh
for last; do :; done
echo "#0  0x00005555c7dafeac in $(cat "$last")"
echo "#1  0x00005555c7db2018 in main () at /usr/src/main.c:1"
SH
chmod +x "$dir/bin/dmesg" "$dir/bin/gdb"

# judge NAME WANT: crashes.sh on $dir/NAME's dmesg and cores; WANT: its
# exit status. Leaves its output in $out.
judge() {
	out=$(PATH=$dir/bin:$PATH FAKE_DMESG=$dir/$1.dmesg sh "$crashes" / "$dir/$1" /src/linkguard)
	got=$?
	[ -n "$out" ] || fail "$1: crashes.sh printed nothing"
	[ "$got" = "$2" ] || fail "$1: exit $got, want $2; it said: $out"
}

segv() {
	echo "[ 67.6] $1[231]: segfault at 558d3f1d06c6 ip 000055884e1f0eac sp 00007fff75ac09d0 error 4 in $2[22eac,55884e1e4000+57000] likely on CPU 0"
}

: >"$dir/none.dmesg"
mkdir "$dir/none"
judge none 0
[ "$out" = "crashes: none in user space" ] || fail "none: $out"

# Two cores of sway's own bug, one place: reported once, counted, passes.
mkdir "$dir/theirs"
segv sway sway >"$dir/theirs.dmesg"
segv sway sway >>"$dir/theirs.dmesg"
echo 'ipc_has_event_listeners () at /var/cache/sway/src/sway/ipc-server.c:270' >"$dir/theirs/core.!usr!bin!sway.231"
echo 'ipc_has_event_listeners () at /var/cache/sway/src/sway/ipc-server.c:270' >"$dir/theirs/core.!usr!bin!sway.232"
judge theirs 0
echo "$out" | grep -qx "crashes: 2 core(s) of /usr/bin/sway crashed here:" || fail "theirs: not grouped: $out"
[ "$(echo "$out" | grep -c 'ipc_has_event_listeners')" = 1 ] || fail "theirs: the place twice: $out"

# A frame in linkguard's sources, under the preload: fails.
mkdir "$dir/ours"
segv sway libc.so.6 >"$dir/ours.dmesg"
echo 'recovery_act () at /src/linkguard/build/../src/recovery.c:300' >"$dir/ours/core.!usr!bin!sway.300"
judge ours 1
echo "$out" | grep -q "^FAIL: linkguard's code crashed" || fail "ours: $out"

# No core, but the kernel names linkguard's library.
mkdir "$dir/lib"
segv linkguard-exam liblinkguard.so.0.9.0 >"$dir/lib.dmesg"
judge lib 1

[ $status = 0 ] && echo "ok: crashes.sh groups crashes by place and fails only on linkguard's"
exit $status
