#!/bin/sh
# The sink's layer of the real-kernel harness, in the guest, as root:
# lg_link_fault's DP AUX channel (module/dpcd.c) as the kernel exposes it.
# The AUX device sits under the connector in sysfs as the drivers that set
# aux.dev = connector->kdev place theirs; lg-kernel-dpcd reads the DPCD
# through it raw while lighting modes, with no uevent all the while (a dark
# link tells user space nothing); the module then goes while a reader
# holds the device open with a read in flight, and comes back.
#
#   dpcd.sh MODULES_DIR DPCD_TOOL
#
# IN_USERLAND: the command prefix that runs DPCD_TOOL where it was built
# (guest.sh's chroot, or nothing); the rest runs in this root (udevadm,
# rmmod, insmod).
set -u

modules=$1 dpcd_tool=$2
LG_LOG_NAME=uevents LG_LOG_LINES=20
. "$(dirname "$0")/../lib.sh"
name=Virtual-1
connector=/sys/class/drm/card0-$name
trigger=/sys/module/lg_link_fault/parameters/trigger

conn=$(cat "$connector/connector_id") || fail "no $connector"

# aux_device: the one drm_dp_auxN under the connector, checked against its
# device node and class; prints /dev/drm_dp_auxN.
aux_device() {
	set -- "$connector"/drm_dp_aux*
	[ $# = 1 ] && [ -d "$1" ] || fail "$connector has $# drm_dp_aux devices: $*"
	aux=${1##*/}
	[ -c "/dev/$aux" ] || fail "no character device /dev/$aux"
	[ "$(cat "$1/dev")" = "$(stat -c '%Hr:%Lr' "/dev/$aux")" ] ||
		fail "/dev/$aux is $(stat -c '%Hr:%Lr' "/dev/$aux"), sysfs says $(cat "$1/dev")"
	[ "$(readlink -f "/sys/class/drm_dp_aux_dev/$aux")" = "$(readlink -f "$1")" ] ||
		fail "/sys/class/drm_dp_aux_dev/$aux is not the connector's child"
	[ "$(cat "$1/name")" = "lg_link_fault $name" ] ||
		fail "$aux is called '$(cat "$1/name")'"
	echo "/dev/$aux"
}

dev=$(aux_device) || exit 1
ok "$dev under $connector, named '$(cat "$connector/${dev#/dev/}/name")'"
for other in /sys/class/drm/card0-*; do
	[ "$other" = "$connector" ] && continue
	set -- "$other"/drm_dp_aux*
	[ ! -e "$1" ] || fail "$other has an AUX device too: $1"
done
ok "no other connector of card0 has an AUX device"

# The DPCD raw, with every uevent of the drm subsystem recorded meanwhile;
# then one uevent of our own ("auto" sends HOTPLUG=1) proves the recording.
udevadm monitor --kernel --subsystem-match=drm >"$log" 2>&1 &
pid=$!
wait_for_log 'KERNEL - the kernel uevent' 10
${IN_USERLAND:-} "$dpcd_tool" "$dev" || fail "lg-kernel-dpcd failed (above)"
[ "$(grep -c '^KERNEL\[' "$log")" = 0 ] ||
	fail "uevents while the link was read, went dark and was retrained (above)"
echo "auto $conn" >"$trigger" || fail "lg_link_fault refused 'auto $conn'"
wait_for_log '^KERNEL\[.* change ' 10
kill "$pid"
wait "$pid" 2>/dev/null
pid=
ok "no uevent in all that; the recording saw the one 'auto' sent after it"

# The module goes with the device open and reads in flight, slowed down by
# failing transfers (32 tries each, 0.5 ms apart): drm_dp_aux_unregister()
# waits for the read under way; the reader then gets ENODEV, never this
# module's code again. (guest.sh checks dmesg for warnings at the end.)
echo "aux-eio $conn" >"$trigger" || fail "lg_link_fault refused 'aux-eio $conn'"
python3 - "$dev" >"$dir/reader" 2>&1 <<'EOF' &
import errno, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
counts = {}
while True:
	try:
		os.pread(fd, 6, 0x200)
		name = "ok"
	except OSError as e:
		name = errno.errorcode.get(e.errno, str(e.errno))
	counts[name] = counts.get(name, 0) + 1
	if name not in ("ok", "EIO"):
		break
	if counts[name] == 1:
		print("first", name, flush=True)
print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())), flush=True)
time.sleep(0.2)
try:
	os.pread(fd, 6, 0x200)
	print("read after unload: ok")
except OSError as e:
	print("read after unload:", errno.errorcode.get(e.errno, str(e.errno)))
os.close(fd)
EOF
reader=$!
tries=100
until grep -q '^first EIO' "$dir/reader"; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || fail "the reader saw no failing read in 10 s: $(cat "$dir/reader")"
	sleep 0.1
done
timeout 60 rmmod lg_link_fault || fail "rmmod lg_link_fault with $dev open failed"
wait "$reader"
sed 's/^/    reader: /' "$dir/reader"
grep -q '^EIO=[0-9]* ENODEV=1$' "$dir/reader" &&
	grep -q '^read after unload: ENODEV$' "$dir/reader" ||
	fail "the reader did not end on ENODEV"
[ ! -e "$dev" ] && [ ! -e "$connector/${dev#/dev/}" ] || fail "$dev outlived the module"
ok "unloaded with $dev open and a read in flight: the reader got ENODEV"

insmod "$modules/lg_link_fault.ko" || fail "insmod lg_link_fault.ko again"
udevadm settle
dev=$(aux_device) || exit 1
ok "loaded again: $dev under $connector"
