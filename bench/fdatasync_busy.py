#!/usr/bin/env python3
"""Why the ticker is late beside busy programs (issue 31): fdatasync of a file that grows against one that is
overwritten in place, on a quiet machine and with BUSY processes spinning, side by side in one run.

A commit that makes SQLite's WAL longer changes the file's size, so ext4's fdatasync waits for a journal
commit by its kernel thread (jbd2), which must itself get a CPU from the busy programs; a commit that
overwrites a WAL already that long needs only the data flushed. Each case: 150 writes of 3 x 4,120 bytes (a
claim's WAL frames), each followed by fdatasync, 20 ms apart; milliseconds p50 / p90 / p99 / max.

    python3 bench/fdatasync_busy.py [--busy 2] [--dir /var/tmp]
"""
import argparse, os, subprocess, sys, time

def measure(folder, grow, n=150, size=4120 * 3):
    path = os.path.join(folder, "fdatasync-busy.%d.bin" % os.getpid())
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        if not grow:
            os.write(fd, b"\0" * (size * n))
            os.fsync(fd)
        times = []
        for i in range(n):
            os.pwrite(fd, b"x" * size, i * size)
            t = time.perf_counter()
            os.fdatasync(fd)
            times.append((time.perf_counter() - t) * 1000)
            time.sleep(0.02)
    finally:
        os.close(fd)
        os.unlink(path)
    times.sort()
    return [times[int(len(times) * q)] for q in (0.5, 0.9, 0.99)] + [times[-1]]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--busy", type=int, default=2, help="processes spinning in the busy runs (default 2)")
    ap.add_argument("--dir", default="/var/tmp", help="a folder on the disk to measure (default /var/tmp)")
    a = ap.parse_args()
    print("%-28s %8s %8s %8s %8s" % ("case", "p50", "p90", "p99", "max"))
    for busy in (0, a.busy):
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            time.sleep(0.3)
            for grow in (True, False):
                name = "%s, %d busy" % ("growing file" if grow else "overwritten in place", busy)
                print("%-28s %8.2f %8.2f %8.2f %8.2f" % ((name,) + tuple(measure(a.dir, grow))))
        finally:
            for s in spinners:
                s.kill()
                s.wait()

if __name__ == "__main__":
    main()
