#!/bin/sh
# Proves that the harness explains a frozen guest (watchdog.py): with the
# "hang" layer, lg_link_fault spins every CPU with interrupts off, which no
# detector inside the guest can report. run.sh must fail, naming the
# spinning function on every CPU, read from the host, and in the guest's
# own NMI backtraces. Prints how long after the hang the NMI came.
# The first boot's qemu is a stand-in that aborts as Debian 12's did beside
# CI's other legs: run.sh must boot once more, saying why.
#
#   hang.sh OUT_DIR TEST_KMS TEST_DPCD STATUS EXAMPLE LINKCTL PRELOAD BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)

qemu=$(command -v qemu-system-x86_64) || { echo "FAIL: qemu-system-x86_64 is not installed"; exit 1; }
shim=$(mktemp -d) || exit 1
trap 'rm -rf "$shim"' EXIT
# It writes qemu's pidfile, so that the watchdog sees it end at once.
cat >"$shim/qemu-system-x86_64" <<SHIM
#!/bin/sh
[ ! -e "$shim/aborted" ] || exec "$qemu" "\$@"
: >"$shim/aborted"
while [ \$# -gt 1 ]; do
	[ "\$1" != -pidfile ] || echo \$\$ >"\$2"
	shift
done
echo "qemu-system-x86_64: system/physmem.c:2671: iotlb_to_section: Assertion \\\`section_index < d->map.sections_nb' failed."
exit 134
SHIM
chmod +x "$shim/qemu-system-x86_64"

output=$(PATH=$shim:$PATH LINKGUARD_KERNEL_LAYERS=hang "$here/run.sh" "$@" 2>&1)
status=$?
echo "$output"
echo "== hang.sh: judging the run above"

fail() {
	echo "FAIL: $*"
	exit 1
}

has() {
	echo "$output" | grep -Eq "$1"
}

[ -e "$shim/aborted" ] || fail "run.sh never ran the stand-in qemu"
has '^note: qemu failed before the guest ran the harness \(qemu-system-x86_64: .*Assertion' ||
	fail "run.sh did not say why it booted once more"
has '^hang: every CPU spins' || fail "the guest never reached the hang trigger"
[ "$status" -ne 0 ] || fail "run.sh passed a frozen guest"
has '^FAIL: the guest froze: no heartbeat for' || fail "no diagnosis from the host"
cpus=$(echo "$output" | grep -c '^  CPU [0-9]*: ')
spinning=$(echo "$output" | grep -c '^  CPU [0-9]*: running, interrupts OFF, ring 0, at lg_hang_cpu+')
[ "$cpus" -ge 2 ] && [ "$spinning" = "$cpus" ] ||
	fail "the host saw $spinning of $cpus CPUs spinning in lg_hang_cpu with interrupts off"
# Each "NMI backtrace for cpu N" block (panic_print's) names it.
backtraces=$(echo "$output" | awk '
	/NMI backtrace for cpu/ { cpu = $NF }
	cpu != "" && /lg_hang_cpu\+/ { seen[cpu] = 1 }
	END { for (c in seen) n++; print n + 0 }')
[ "$backtraces" = "$cpus" ] ||
	fail "the guest's NMI backtraces show lg_hang_cpu on $backtraces of $cpus CPUs"
has '^FAIL: the guest froze \(the watchdog' || fail "run.sh did not say the guest froze"
hung=$(echo "$output" | sed -n 's/^hang: every CPU spins .* from \([0-9.]*\) s$/\1/p')
nmi=$(echo "$output" | sed -n 's/^\[ *\([0-9.]*\)\] Uhhuh. NMI received.*/\1/p' | head -n 1)
echo "figure: the host's NMI came $(echo "$nmi $hung" | awk '{ printf "%.0f", $1 - $2 }') s after the hang"
echo "ok: a frozen guest is explained: every CPU in lg_hang_cpu, from the host and from the guest's NMI backtraces"
