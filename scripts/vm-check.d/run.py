"""Builds the guest's initramfs, boots it under qemu, wakes it from its suspends and checks each scenario.

The guest runs the scenarios on its own (its /init) and prints everything the host needs as console lines
starting with @@; the host only answers "@@SUSPEND name seconds" by waking it from the qemu monitor once
the VM is really suspended and that many seconds have passed.
"""
import argparse, json, os, re, select, shutil, signal, socket, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenarios  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BOOT_LIMIT = 120       # seconds from qemu's start to the guest's first line (about 5 s measured)
SCENARIO_LIMIT = 240   # seconds per scenario (the longest takes about 75 s)

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /data && mount -t tmpfs data /data
export PATH=/bin TZ={zone} HOME=/data
. /lib/vm-check/guest.sh
echo "@@BOOTED $(cat /proc/uptime)"
{runs}
echo "@@DONE"
poweroff -f
"""

# The delivery program: what the ticker delivered, and when by the guest's clock.
DELIVER = """#!/bin/sh
echo "$PLANNER_ID $PLANNER_FIRE_AT $(date +%s)" >> "$1"
"""


def fail(message):
    print(f"vm-check: {message}", file=sys.stderr)
    sys.exit(1)


def build_initramfs(planner, work):
    root = os.path.join(work, "root")
    for d in ("bin", "proc", "sys", "dev", "lib/vm-check", "usr/share"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    shutil.copy("/bin/busybox", f"{root}/bin/busybox")
    shutil.copy(planner, f"{root}/bin/planner")
    sqlite3 = shutil.which("sqlite3")
    shutil.copy(sqlite3, f"{root}/bin/sqlite3")
    # sqlite3 is dynamic: the libraries and the loader ldd names go where they are on the host.
    for lib in re.findall(r"(/\S+) \(0x", subprocess.run(["ldd", sqlite3], capture_output=True, text=True, check=True).stdout):
        os.makedirs(os.path.dirname(root + lib), exist_ok=True)
        shutil.copy(lib, root + lib)
    shutil.copytree("/usr/share/zoneinfo", f"{root}/usr/share/zoneinfo", symlinks=True)
    shutil.copy(os.path.join(HERE, "guest.sh"), f"{root}/lib/vm-check/guest.sh")
    runs = []
    for s in scenarios.ALL:
        with open(f"{root}/lib/vm-check/{s.name}.sh", "w") as f:
            f.write(s.guest)
        runs.append(f". /lib/vm-check/{s.name}.sh")
    for path, text in (("init", INIT.format(zone=scenarios.ZONE, runs="\n".join(runs))), ("bin/deliver", DELIVER)):
        with open(f"{root}/{path}", "w") as f:
            f.write(text)
        os.chmod(f"{root}/{path}", 0o755)
    image = os.path.join(work, "initrd.gz")
    subprocess.run(f"cd '{root}' && find . | cpio -o -H newc --quiet | gzip -1 > '{image}'", shell=True, check=True)
    return image


class Monitor:
    """qemu's human monitor on a unix socket: one command, its answer up to the next prompt."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.read()

    def read(self):
        data = b""
        while not data.endswith(b"(qemu) "):
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("the qemu monitor closed")
            data += chunk
        return re.sub(rb"\x1b\[[0-9;]*[A-Za-z]", b"", data).decode(errors="replace")

    def command(self, line):
        self.sock.sendall(line.encode() + b"\n")
        return self.read().split("\n", 1)[-1]


class Result:
    """What the guest printed for one scenario."""

    def __init__(self):
        self.marks, self.errors, self.blocks = {}, [], {}
        self.host_suspended = None  # seconds the host kept the VM suspended
        self.requests, self.deliveries = [], []
        self.host_seconds = None

    def mark(self, key):
        if key not in self.marks:
            raise KeyError(f"the guest never reported {key}")
        return self.marks[key]

    def finish(self):
        text = "\n".join(self.blocks.get("requests", [])).strip()
        self.requests = json.loads(text) if text else []
        for line in self.blocks.get("deliveries", []):
            ident, fire, epoch = line.split()
            self.deliveries.append((ident, fire, int(epoch)))


def boot(kernel, image, work):
    monitor_path = os.path.join(work, "monitor.sock")
    command = ["qemu-system-x86_64", "-accel", "tcg", "-m", "512M", "-smp", "1", "-display", "none",
               "-no-reboot", "-kernel", kernel, "-initrd", image,
               "-append", "console=ttyS0 quiet loglevel=1 panic=-1",
               "-serial", "stdio", "-monitor", f"unix:{monitor_path},server=on,wait=off",
               "-pidfile", os.path.join(work, "qemu.pid")]
    qemu = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return qemu, monitor_path


def lines(qemu, log):
    """The console's lines as they come (None when a wait ends without one), each also logged."""
    buffer = b""
    while True:
        ready, _, _ = select.select([qemu.stdout], [], [], 1)
        if not ready:
            yield None
            continue
        chunk = os.read(qemu.stdout.fileno(), 65536)
        if not chunk:
            return
        log.write(chunk)
        log.flush()
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line.decode(errors="replace").rstrip("\r")


def wake_after(monitor, seconds):
    """Waits until the VM is suspended, then `seconds`, then wakes it; returns how long it was suspended."""
    deadline = time.time() + 30
    while "suspended" not in monitor.command("info status"):
        if time.time() > deadline:
            fail("the guest did not suspend within 30 s of asking to")
        time.sleep(0.2)
    asleep = time.time()
    time.sleep(seconds)
    monitor.command("system_wakeup")
    return time.time() - asleep


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--planner", required=True)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()

    started = time.time()
    image = build_initramfs(args.planner, args.work)
    qemu, monitor_path = boot(args.kernel, image, args.work)
    # Stopped (the overall time limit in scripts/vm-check, or CI): qemu goes with us.
    def stopped(signo, _frame):
        qemu.kill()
        fail(f"stopped by signal {signo} before the scenarios finished")
    signal.signal(signal.SIGTERM, stopped)
    console = os.path.join(args.work, "console.log")
    results = {s.name: Result() for s in scenarios.ALL}
    timings = {"initramfs": time.time() - started}
    booted_at = time.time()
    deadline = booted_at + BOOT_LIMIT
    monitor, current, block, begun, done = None, None, None, None, False
    try:
        with open(console, "wb") as log:
            for line in lines(qemu, log):
                if time.time() > deadline:
                    what = f"scenario '{current}'" if current else "the guest to boot"
                    fail(f"timed out waiting for {what}; console: {console_tail(console)}")
                if line is None:
                    continue
                if block is not None:
                    if line == "@@END":
                        block = None
                    else:
                        results[current].blocks.setdefault(block, []).append(line)
                    continue
                words = line.split()
                if not words or not words[0].startswith("@@"):
                    continue
                if words[0] == "@@BOOTED":
                    timings["boot"] = time.time() - booted_at
                    monitor = Monitor(monitor_path)
                elif words[0] == "@@SCENARIO" and words[2] == "begin":
                    current, begun = words[1], time.time()
                    deadline = begun + SCENARIO_LIMIT
                    print(f"vm-check: {current} ...", flush=True)
                elif words[0] == "@@SCENARIO" and words[2] == "end":
                    results[current].host_seconds = time.time() - begun
                elif words[0] == "@@V":
                    results[words[1]].marks[words[2]] = int(words[3])
                elif words[0] == "@@ERR":
                    results[words[1]].errors.append(" ".join(words[2:]))
                elif words[0] == "@@BEGIN":
                    block = words[2]
                elif words[0] == "@@SUSPEND":
                    results[words[1]].host_suspended = wake_after(monitor, int(words[2]))
                elif words[0] == "@@DONE":
                    done = True
                    break
    finally:
        if qemu.poll() is None:
            try:
                qemu.wait(10)  # the guest powers off after @@DONE
            except subprocess.TimeoutExpired:
                qemu.kill()
    if not done:
        fail(f"the guest stopped before finishing (qemu exit {qemu.returncode}); console: {console_tail(console)}")
    timings["total"] = time.time() - started

    failed = False
    for s in scenarios.ALL:
        r = results[s.name]
        r.finish()
        problems = scenarios.check(s, r)
        seconds = f"{r.host_seconds:.0f} s" if r.host_seconds else "unfinished"
        print(f"vm-check: {s.title} ({seconds}): {'FAILED' if problems else 'ok'}")
        for line in scenarios.summary(s, r):
            print(line)
        for p in problems[:12]:
            print(f"vm-check: {s.title}: {p}", file=sys.stderr)
        if len(problems) > 12:
            print(f"vm-check: {s.title}: ... and {len(problems) - 12} more", file=sys.stderr)
        if problems:
            failed = True
            print("vm-check: the ticker's log:\n" + "\n".join(r.blocks.get("log", [])), file=sys.stderr)
    print("vm-check: timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    sys.exit(1 if failed else 0)


def console_tail(path):
    with open(path, "rb") as f:
        return f.read()[-1500:].decode(errors="replace")


if __name__ == "__main__":
    main()
