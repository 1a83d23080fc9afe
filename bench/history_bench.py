#!/usr/bin/env python3
"""What deriving the shared plan from the shared history costs (issue 28), side by side in one run:

1. `planner sync` applying 10,000 events another device wrote (opens, skips and their removal, pauses,
   settings of the day rule among them), against `planner sync` with nothing new;
2. on a plan with a year of history from 10 devices (10 x 2,500 events, 2,500 opens), one settings change of
   the window arriving late (stamped before the latest opens: they move to another study day) against the
   same change arriving in order (nothing to re-derive);
3. `planner open` (which only appends its event) against BASELINE, an earlier planner binary, interleaved.

Usage: bench/history_bench.py PLANNER [--baseline OLD_PLANNER] [--runs N]
Figures are medians of CPU time (user+sys from wait4) of interleaved runs: a shared machine is noisy,
ratios in one run are what to compare."""
import os, random, statistics, subprocess, sys, tempfile, time

planner = os.path.abspath(sys.argv[1])
baseline = os.path.abspath(sys.argv[sys.argv.index("--baseline") + 1]) if "--baseline" in sys.argv else None
runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 40
env = dict(os.environ, TZ="Asia/Seoul")
env.pop("PLANNER_DB", None)
env.pop("PLANNER_NOW", None)


def run(args, binary=planner):
    start = time.perf_counter()
    p = subprocess.Popen([binary] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{binary} {' '.join(args)} failed: {err}")
    return (usage.ru_utime + usage.ru_stime) * 1000, wall * 1000


def device_id(seed):
    return "%032x" % random.Random(seed).getrandbits(128)


def events(device, count, base, seed, first_id):
    """`count` lines of `device`, one a minute from `base`, as a planner writes them."""
    rng = random.Random(seed)
    lines = [f"planner-device 1 id={device} name=bench{seed} at={base}\n"]
    for n in range(count):
        at = base + n * 60_000
        head = f"planner-event 2 id={first_id + n:032x} at={at} origin=%s device={device} stamp={at}.0"
        day = 1 + rng.randrange(28)
        kind = rng.randrange(6)
        if kind == 0: lines.append(f"{head % 'open'} kind=open zone=Asia/Seoul offset=32400\n")
        elif kind == 1: lines.append(f"{head % 'skip'} kind=skip dates=2026-12-{day:02d}\n")
        elif kind == 2: lines.append(f"{head % 'skip'} kind=unskip dates=2026-12-{day:02d}\n")
        elif kind == 3: lines.append(f"{head % 'pause'} kind=pause until={at + 3_600_000}\n")
        elif kind == 4: lines.append(f"{head % 'config'} kind=settings set.title=Title%20{n}\n")
        else: lines.append(f"{head % 'config'} kind=settings set.window={rng.choice(['09:30-21:30', '20:00-01:30', '08:00-23:00'])}\n")
    return lines


def write(folder, device, lines, sequence=1):
    with open(os.path.join(folder, f"planner-{device}-{sequence:06d}.events"), "a") as f:
        f.writelines(lines)


def median_cpu(samples):
    return statistics.median(c for c, _ in samples)


with tempfile.TemporaryDirectory() as tmp:
    # 1. 10,000 foreign events at once.
    folder = os.path.join(tmp, "one"); os.mkdir(folder)
    db = os.path.join(tmp, "one.db")
    run(["config", "set", "days", "daily", "sync-folder", folder, "--db", db, "--now", "2026-11-25T08:00"])
    idle = [run(["sync", "--db", db, "--now", "2026-11-25T12:00"]) for _ in range(5)]
    other = device_id(1)
    write(folder, other, events(other, 10_000, 1_795_000_000_000, 2, 0))
    cpu10k, wall10k = run(["sync", "--db", db, "--now", "2026-11-25T12:00"])
    print(f"1. sync with nothing new: {median_cpu(idle):.1f} ms CPU (median of 5); "
          f"sync applying 10,000 events: {cpu10k:.1f} ms CPU, {wall10k:.1f} ms wall; "
          f"the events' own share: {cpu10k - median_cpu(idle):.1f} ms CPU")

    # 2. A year of history from 10 devices, then one late window change, against one in order.
    def year_plan(name):
        folder = os.path.join(tmp, name); os.mkdir(folder)
        db = os.path.join(tmp, name + ".db")
        run(["config", "set", "days", "daily", "sync-folder", folder, "--db", db, "--now", "2025-11-25T08:00"])
        base = 1_764_000_000_000  # 2025-11-24
        for d in range(10):
            lines = [f"planner-device 1 id={device_id(100 + d)} name=d{d} at={base}\n"]
            for n in range(250):  # one open a day each, a year of days
                at = base + n * 86_400_000 + d * 60_000  # 01:00 Seoul: the day before under 20:00-01:30
                lines.append(f"planner-event 2 id={(d << 64) + n:032x} at={at} origin=open device={device_id(100 + d)} "
                             f"stamp={at}.0 kind=open zone=Asia/Seoul offset=32400\n")
            for n in range(2_250):
                at = base + n * 14_000_000 + d
                lines.append(f"planner-event 2 id={(d << 64) + 1000 + n:032x} at={at} origin=config device={device_id(100 + d)} "
                             f"stamp={at}.0 kind=settings set.title=T{n}\n")
            write(folder, device_id(100 + d), lines)
        run(["sync", "--db", db, "--now", "2026-11-25T09:00"])
        return folder, db

    late_cpu, order_cpu = [], []
    for i in range(max(3, runs // 8)):
        for kind in (["late", "order"] if i % 2 == 0 else ["order", "late"]):
            folder, db = year_plan(f"{kind}{i}")
            newest = int(subprocess.run(["sqlite3", db, "SELECT max(stamp_ms) FROM event WHERE kind = 'open'"],
                                        capture_output=True, text=True).stdout)
            # Late: stamped an hour before the newest open (that open moves to another day); in order: after all.
            at = newest - 3_600_000 if kind == "late" else newest + 3_600_000
            dev = device_id(999)
            write(folder, dev, [f"planner-event 2 id={(1 << 100) + i:032x} at={at} origin=config device={dev} "
                                f"stamp={at}.0 kind=settings set.window=20:00-01:30\n"])
            (late_cpu if kind == "late" else order_cpu).append(run(["sync", "--db", db, "--now", "2026-11-25T09:05"]))
            if kind == "late" and i == 0:
                moved = subprocess.run(["sqlite3", db, "SELECT count(*) FROM request WHERE state = 'retired' AND reason LIKE 'the open of this day%'"],
                                       capture_output=True, text=True).stdout.strip()
                print(f"   (a late change in the first run re-derived the opens after it; slots given back: {moved})")
    late, order = median_cpu(late_cpu), median_cpu(order_cpu)
    print(f"2. one window change on a year of 10 devices' history (27,500 events, 2,500 opens): in order {order:.1f} ms CPU, "
          f"arriving late (its opens re-derived) {late:.1f} ms CPU: the re-derivation's share {late - order:.1f} ms "
          f"(medians of {len(late_cpu)})")

    # 3. open, against an earlier binary.
    if baseline:
        dbs = {}
        for name, binary in (("new", planner), ("old", baseline)):
            dbs[name] = os.path.join(tmp, f"open-{name}.db")
            run(["refill", "--db", dbs[name], "--now", "2026-11-23T08:00"], binary)
        cpu = {"new": [], "old": []}
        for i in range(runs):
            now = f"2026-11-23T10:{i % 60:02d}"
            for name in (["new", "old"] if i % 2 == 0 else ["old", "new"]):
                cpu[name].append(run(["open", "--db", dbs[name], "--now", now], planner if name == "new" else baseline)[0])
        n, o = statistics.median(cpu["new"]), statistics.median(cpu["old"])
        print(f"3. open CPU, median of {runs} interleaved runs: baseline {o:.2f} ms, this build {n:.2f} ms: {n / o:.2f}x")
