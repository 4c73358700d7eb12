#!/bin/sh
# The real-kernel harness: provisions the kernel and modules
# (provision.sh), boots the kernel under qemu with the build root shared
# read-only over 9p, and runs guest.sh in it. The guest's console is the
# test's output.
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
qemu_start=$(date +%s.%N)
# TCG: the machines this runs on have no usable KVM.
timeout 1200 qemu-system-x86_64 -accel tcg -m 1536 -smp 2 -nographic \
	-no-reboot -nodefaults -serial stdio -vga none \
	-kernel "$out/vmlinuz" -initrd "$out/initramfs.gz" \
	-append "console=ttyS0 panic=-1 quiet lg.run=$here/guest.sh lg.args=$args${layers:+ lg.layers=$layers}" \
	-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
	</dev/null 2>&1 | tr -d '\r' | sed 's/\x1b[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' |
	tee "$console"
start=$qemu_start
echo "phase: guest ran in $(elapsed) s (boot, tests, power-off)"

code=$(sed -n 's/^LG-GUEST-EXIT \([0-9]*\).*/\1/p' "$console")
[ -n "$code" ] || { echo "FAIL: the guest did not finish (crash or timeout)"; exit 1; }
[ "$code" = 0 ] || { echo "FAIL: the guest's tests exited $code"; exit 1; }
echo "kernel harness: PASS"
