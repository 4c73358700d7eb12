#!/usr/bin/env python3
"""The real-kernel harness's host-side watchdog (run.sh starts it beside
qemu): it explains a guest that stops running user space, where nothing
inside the guest can (two CPUs spinning with interrupts off leave no
detector of the guest's own a chance to speak).

The guest (guest.sh) writes its uptime to SHARE/heartbeat every 2 s, the
tails of its logs to SHARE/logs/ and its text symbols to SHARE/kallsyms,
through a writable 9p share. When the heartbeat has stood still for
SILENCE seconds (or never came within BOOT seconds), this prints, read from
qemu's monitor: every CPU's instruction pointer and whether it takes
interrupts, and the kernel text addresses on its stack, symbolised; then it
sends an NMI, which the guest (unknown_nmi_panic) answers with a panic and
its own backtrace on the console; then the tails of the guest's logs. It
marks OUT/frozen and ends qemu.

    watchdog.py OUT SHARE
"""

import bisect
import os
import re
import signal
import socket
import sys
import time

SILENCE = float(os.environ.get("LINKGUARD_KERNEL_SILENCE", "30"))
BOOT = float(os.environ.get("LINKGUARD_KERNEL_BOOT", "180"))
STACK_SIZE = 16384  # x86_64 THREAD_SIZE and IRQ_STACK_SIZE, both aligned


def say(line=""):
    print(line, flush=True)


class Monitor:
    """qemu's human monitor over its unix socket, one command at a time."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.read()  # the banner

    def read(self):
        data = b""
        while not data.rstrip().endswith(b"(qemu)"):
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            data += chunk
        text = data.decode(errors="replace")
        # The monitor echoes the command with terminal redraws: drop them.
        lines = text.replace("\r", "").split("\n")[1:]
        return "\n".join(line for line in lines if "(qemu)" not in line)

    def ask(self, command):
        self.sock.sendall(command.encode() + b"\n")
        return self.read()


class Symbols:
    """The guest's symbols (its /proc/kallsyms: the kernel's text, and
    every symbol of its modules, whose data bounds their last function)."""

    def __init__(self, path):
        rows = []
        try:
            with open(path) as f:
                for line in f:
                    fields = line.split()
                    if len(fields) < 3:
                        continue
                    name = fields[2] + (" " + fields[3] if len(fields) > 3 else "")
                    rows.append((int(fields[0], 16), fields[1] in "tT", name))
        except OSError:
            pass
        rows.sort()
        self.addrs = [row[0] for row in rows]
        self.rows = rows

    def name(self, addr):
        """function+0xoff [module] for a text address, None for others."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0 or addr - self.addrs[i] > 0x4000 or not self.rows[i][1]:
            return None
        function, _, module = self.rows[i][2].partition(" ")
        return "%s+0x%x%s" % (function, addr - self.addrs[i], " " + module if module else "")


def cpus(monitor):
    """Each vCPU's registers: {index: {"RIP": int, "RSP": int, ...}}."""
    found, cpu = {}, None
    for line in monitor.ask("info registers -a").split("\n"):
        m = re.match(r"CPU#(\d+)", line)
        if m:
            cpu = found.setdefault(int(m.group(1)), {})
            continue
        if cpu is None:
            continue
        for key, value in re.findall(r"\b(RIP|RSP|RFL|CPL|HLT)=([0-9a-f]+)", line):
            cpu[key] = int(value, 16)
    return found


def stack_words(monitor, index, rsp):
    """The 64-bit words from RSP to the top of its stack."""
    monitor.ask("cpu %d" % index)
    count = min((STACK_SIZE - rsp % STACK_SIZE) // 8, 2048)
    words = []
    for line in monitor.ask("x /%dgx 0x%x" % (count, rsp)).split("\n"):
        words += [int(w, 16) for w in re.findall(r"0x([0-9a-f]{16})", line.split(":", 1)[-1])]
    return words


def diagnose(monitor, symbols, why):
    say("FAIL: the guest froze: %s. Every CPU, read from the host (qemu's monitor):" % why)
    if not symbols.addrs:
        say("  (no symbols: the guest did not write its kallsyms)")
    for index, regs in sorted(cpus(monitor).items()):
        rip = regs.get("RIP", 0)
        irqs = "interrupts on" if regs.get("RFL", 0) & 0x200 else "interrupts OFF"
        state = "halted" if regs.get("HLT") else "running"
        where = symbols.name(rip) or "0x%x" % rip
        say("  CPU %d: %s, %s, ring %d, at %s" % (index, state, irqs, regs.get("CPL", 0), where))
        if regs.get("CPL", 0) != 0:
            continue
        shown = []
        for word in stack_words(monitor, index, regs.get("RSP", 0)):
            name = symbols.name(word)
            if name and (not shown or shown[-1] != name):
                shown.append(name)
        for name in shown[:40]:
            say("      ? %s" % name)


def nmi(monitor, console, pid):
    """An NMI to every CPU; the guest panics (unknown_nmi_panic), prints
    every CPU's backtrace (panic_print) and ends qemu (-no-reboot). Waits for
    that, 20 s at most."""
    say("== an NMI to every CPU (the guest's own backtrace follows on its console)")
    size = os.path.getsize(console) if os.path.exists(console) else 0
    monitor.ask("nmi")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and running(pid):
        time.sleep(0.5)
    with open(console, errors="replace") as f:
        f.seek(size)
        if "Kernel panic" not in f.read():
            say("  (no panic on the guest's console)")


def logs(share):
    directory = os.path.join(share, "logs")
    names = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
    if not names:
        say("  (the guest mirrored no logs)")
    for name in names:
        with open(os.path.join(directory, name), errors="replace") as f:
            tail = f.read().splitlines()[-40:]
        say("--- guest log %s (last %d lines) ---" % (name.replace("%", "/"), len(tail)))
        for line in tail:
            say(line)


def qemu_pid(out):
    """qemu's pid, None when it never started within a minute."""
    for _ in range(300):
        try:
            with open(os.path.join(out, "qemu.pid")) as f:
                return int(f.read())
        except (OSError, ValueError):
            time.sleep(0.2)
    return None


def running(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def quiet_for(share):
    """Seconds since the guest's last heartbeat; None before the first."""
    try:
        return time.time() - os.stat(os.path.join(share, "heartbeat")).st_mtime
    except OSError:
        return None


def silence(share, started, quiet):
    """Why the guest counts as frozen now, or None."""
    if quiet is None:
        waited = time.monotonic() - started
        return "no heartbeat %.0f s after qemu started" % waited if waited > BOOT else None
    if quiet <= SILENCE:
        return None
    beat = os.path.join(share, "heartbeat")
    with open(beat) as f:
        uptime = f.read().strip()
    return "no heartbeat for %.0f s (the last at %s s of guest uptime)" % (quiet, uptime)


def main():
    out, share = sys.argv[1], sys.argv[2]
    pid = qemu_pid(out)
    started = time.monotonic()
    longest = 0
    while pid and running(pid):
        quiet = quiet_for(share)
        longest = max(longest, quiet or 0)
        why = silence(share, started, quiet)
        if why:
            # First: run.sh fails the run so even if this is cut short.
            open(os.path.join(out, "frozen"), "w").close()
            monitor = Monitor(os.path.join(out, "monitor.sock"))
            monitor.ask("stop")  # the CPUs hold still while we read them
            diagnose(monitor, Symbols(os.path.join(share, "kallsyms")), why)
            monitor.ask("cont")
            nmi(monitor, os.path.join(out, "console.log"), pid)
            logs(share)
            if running(pid):  # the panic ends qemu (-no-reboot), or not
                os.kill(pid, signal.SIGTERM)
            return
        time.sleep(1)
    # The margin the limit leaves, for whoever tunes it.
    say("watchdog: the guest's longest silence %.0f s (limit %.0f s)" % (longest, SILENCE))


if __name__ == "__main__":
    main()
