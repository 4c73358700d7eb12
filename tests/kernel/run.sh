#!/bin/sh
# The real-kernel harness: provisions the kernel and modules
# (provision.sh), boots the kernel under qemu with the build root shared
# read-only over 9p, and runs guest.sh in it. The guest's console is the
# test's output; verdict.sh judges it.
#
#   run.sh OUT_DIR TEST_KMS TEST_DPCD STATUS EXAMPLE LINKCTL PRELOAD BUILD [USERLAND]
#
# It never skips: without qemu or the kernel packages it fails and says why.
# BUILD: the linkguard build directory (sway.sh looks for the patched sway
# there).
# USERLAND: another build root the tests run in (guest.sh), with programs
# built there; it must be visible here, under / (the guest sees this root).
# LINKGUARD_KERNEL_LAYERS: a subset of the layers, while working on one
# (e.g. "kms dpcd"; guest.sh names them); all by default.
# LINKGUARD_KERNEL_REPEAT=N: the rows table.sh bounds N times (3), the
# compositor and sway layers' first run whole, the others only those rows;
# the bounds hold the medians of the runs.
# LINKGUARD_KERNEL_VBLANK=S: the vblank layer's seconds (30).
# LINKGUARD_KERNEL_ABSENT: variants the caller knows it lacks, one line
# each, "NAME: why" (e.g. "patched: no vendor tarball"); any other that
# cannot run fails the run, and so does a name without a reason.
# LINKGUARD_KERNEL_VKMS_FIX=0: vkms as Debian's source has it, without the
# fix of its vblank timer (provision.sh): to see the freeze.
# A guest that stops running user space (no heartbeat for
# LINKGUARD_KERNEL_SILENCE s, 30 by default) is explained from the host and
# ended: watchdog.py.
set -eu

usage="usage: $0 OUT_DIR TEST_KMS TEST_DPCD STATUS EXAMPLE LINKCTL PRELOAD BUILD [USERLAND]"
[ $# -eq 8 ] || [ $# -eq 9 ] || { echo "$usage" >&2; exit 1; }
out=$(realpath "$1")
shift
# The guest starts in /: every path must be absolute.
set -- $(realpath "$@")
here=$(cd "$(dirname "$0")" && pwd)

start=$(date +%s.%N)
elapsed() {
	echo "$(date +%s.%N) $start" | awk '{ printf "%.1f", $1 - $2 }'
}

"$here/provision.sh" "$out"
echo "phase: provisioning done in $(elapsed) s"

# Paths go through the kernel command line, comma-separated.
for path in "$out/modules" "$@"; do
	case $path in
	*[,\ ]*) echo "FAIL: '$path' has a comma or a space" >&2; exit 1 ;;
	esac
done
args=$(echo "$out/modules" "$@" | tr ' ' ,)
layers=$(echo ${LINKGUARD_KERNEL_LAYERS:-} | tr ' ' ,)

console=$out/console.log
# The guest's writable share: its heartbeat, log tails and symbols, which
# the watchdog (watchdog.py) reads when the guest freezes.
share=$out/share
# Kernel: a frozen guest's state made readable. nokaslr: the host reads
# addresses; unknown_nmi_panic: the watchdog's NMI makes the CPU that takes
# it print its backtrace (panic_print=0x40: and asks the others); the
# detectors that can speak while a CPU still takes interrupts, louder.
kernel_args="console=ttyS0 panic=-1 quiet nokaslr unknown_nmi_panic=1 panic_print=0x40
	softlockup_all_cpu_backtrace=1 sysrq_always_enabled
	sysctl.kernel.hung_task_timeout_secs=60"
# The last resort: a frozen guest fails at its watchdog within a minute.
# Beside CI's other legs all the layers took 1200 s and more (a run cut
# short there, in its last layer); every repeat adds the timed rows of the
# compositor and sway layers, about 360 s beside other work (179 and 174 s,
# 190 and 179 s). With the repeats beside a whole gate on a loaded
# machine, the forky guest took 2411 s of its 2600.
repeat=${LINKGUARD_KERNEL_REPEAT:-3}
limit=$((2000 + 500 * (repeat - 1)))

# boot: one run of the guest, its console in $console, the watchdog beside.
boot() {
	rm -rf "$share" "$out/frozen" "$out/qemu.pid"
	mkdir -p "$share"
	start=$(date +%s.%N)
	# TCG: the machines this runs on have no usable KVM.
	timeout $limit qemu-system-x86_64 -accel tcg -m 1536 -smp 2 -nographic \
		-no-reboot -nodefaults -serial stdio -vga none \
		-monitor unix:$out/monitor.sock,server=on,wait=off -pidfile "$out/qemu.pid" \
		-kernel "$out/vmlinuz" -initrd "$out/initramfs.gz" \
		-append "$(echo $kernel_args) lg.run=$here/guest.sh lg.args=$args${layers:+ lg.layers=$layers} lg.repeat=$repeat${LINKGUARD_KERNEL_VBLANK:+ lg.vblank=$LINKGUARD_KERNEL_VBLANK}" \
		-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path=$share,mount_tag=host,security_model=none \
		</dev/null 2>&1 | sed -u 's/\r//g; s/\x1b[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' |
		tee "$console" &
	guest=$!
	python3 "$here/watchdog.py" "$out" "$share" &
	watchdog=$!
	wait $guest
	# It ends with qemu, its diagnosis of a frozen guest printed.
	wait $watchdog || echo "FAIL: the watchdog failed (exit $?)"
	echo "phase: guest ran in $(elapsed) s (boot, tests, power-off)"
}

boot
# qemu's TCG itself may abort while the guest boots (Debian 12's qemu,
# "iotlb_to_section: Assertion ... failed", once in a CI run beside the
# other legs): the guest reached none of the harness (guest.sh's first
# line), so one more boot tells about linkguard, and the log says why.
qemu_error=$(grep -m 1 '^qemu-system-x86_64: .*Assertion' "$console" || :)
if [ -n "$qemu_error" ] && ! grep -q '^kernel: ' "$console"; then
	echo "note: qemu failed before the guest ran the harness ($qemu_error): booting once more"
	boot
fi

exec "$here/verdict.sh" "$console" "$out/frozen"
