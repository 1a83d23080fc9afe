"""What removing a day's calendar files costs the process that does it, by the way it is done: 24 files of
675 bytes (one day's reminders) unlinked, renamed aside only, or renamed aside, looked at and unlinked (what
the planner did before issue 31's change), each with the files still dirty in the page cache (right after
they were written) and on disk (written back, as four hours after a refill). Median wall time and CPU of the
removing alone, 30 rounds each.

    python3 bench/unlink_cost.py [FOLDER]      (default: a new folder under /tmp; use one on the disk you care about)
"""
import os, resource, statistics, sys, tempfile, time

D = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="unlink-cost.")
os.makedirs(D, exist_ok=True)


def setup(on_disk):
    for f in os.listdir(D):
        os.unlink(os.path.join(D, f))
    for i in range(24):
        with open(f"{D}/f{i}.ics", "wb") as f:
            f.write(b"x" * 675)
    if on_disk:
        os.sync()
        time.sleep(0.3)


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run(kind):
    dfd = os.open(D, os.O_RDONLY)
    t, c = time.perf_counter(), cpu()
    for i in range(24):
        if kind == "unlink":
            os.unlink(f"f{i}.ics", dir_fd=dfd)
            continue
        os.rename(f"f{i}.ics", f".a{i}.tmp", src_dir_fd=dfd, dst_dir_fd=dfd)
        if kind == "aside, look, unlink":
            os.stat(f".a{i}.tmp", dir_fd=dfd, follow_symlinks=False)
            os.unlink(f".a{i}.tmp", dir_fd=dfd)
    wall, used = time.perf_counter() - t, cpu() - c
    os.close(dfd)
    return wall * 1000, used * 1000


print(f"24 files of 675 bytes in {D}")
for on_disk in (False, True):
    for kind in ("unlink", "rename aside", "aside, look, unlink"):
        walls, cpus = [], []
        for _ in range(30):
            setup(on_disk)
            w, c = run(kind)
            walls.append(w)
            cpus.append(c)
        state = "on disk" if on_disk else "dirty  "
        print(f"{state} {kind:20} wall {statistics.median(walls):.2f} ms  cpu {statistics.median(cpus):.2f} ms")
