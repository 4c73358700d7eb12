#!/bin/sh
# Proves that the harness explains a frozen guest (watchdog.py): with the
# "hang" layer, lg_link_fault spins every CPU with interrupts off, which no
# detector inside the guest can report. run.sh must fail, naming the
# spinning function on every CPU, read from the host, and in the guest's
# own NMI backtraces. Prints how long after the hang the NMI came.
#
#   hang.sh OUT_DIR TEST_KMS TEST_DPCD STATUS EXAMPLE LINKCTL PRELOAD BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)

output=$(LINKGUARD_KERNEL_LAYERS=hang "$here/run.sh" "$@" 2>&1)
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
