#!/usr/bin/env python3
"""Sync's costs, side by side in one run (issue 21):
1. `planner open` with a sync folder set vs without: CPU (user+sys, from wait4) of interleaved runs;
2. `planner sync` applying 10,000 events another device wrote (opens, skips and their removal, pauses,
   settings), wall and CPU, against `planner sync` with nothing new.
Usage: bench/sync_bench.py PLANNER [--runs N]"""
import os, random, statistics, subprocess, sys, tempfile, time

planner = os.path.abspath(sys.argv[1])
runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 100
env = dict(os.environ, TZ="Asia/Seoul")
env.pop("PLANNER_DB", None)

def run(args):
    start = time.perf_counter()
    p = subprocess.Popen([planner] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"planner {' '.join(args)} failed: {err}")
    return (usage.ru_utime + usage.ru_stime) * 1000, wall * 1000

with tempfile.TemporaryDirectory() as tmp:
    folder = os.path.join(tmp, "shared"); os.mkdir(folder)
    plain, synced = os.path.join(tmp, "plain.db"), os.path.join(tmp, "synced.db")
    for db in (plain, synced):
        run(["config", "set", "days", "daily", "--db", db, "--now", "2026-11-23T08:00"])
    run(["config", "set", "sync-folder", folder, "--db", synced, "--now", "2026-11-23T08:00"])
    for db in (plain, synced):
        run(["refill", "--db", db, "--now", "2026-11-23T08:00"])
    cpu = {"plain": [], "synced": []}
    for i in range(runs):
        now = f"2026-11-23T10:{i % 60:02d}"
        order = [("plain", plain), ("synced", synced)] if i % 2 == 0 else [("synced", synced), ("plain", plain)]
        for name, db in order:
            cpu[name].append(run(["open", "--db", db, "--now", now])[0])
    p, s = statistics.median(cpu["plain"]), statistics.median(cpu["synced"])
    print(f"open CPU, median of {runs} interleaved runs: without a sync folder {p:.2f} ms, with one {s:.2f} ms: {s / p:.2f}x")

    # 10,000 events of another device, as its planner writes them.
    other = "%032x" % random.Random(1).getrandbits(128)
    rng = random.Random(2)
    base = 1_795_000_000_000  # 2026-11-18
    lines = [f"planner-device 1 id={other} name=bench at={base}\n"]
    for n in range(10_000):
        at = base + n * 60_000
        head = f"planner-event 2 id={n:032x} at={at} origin=bench device={other} stamp={at}.0"
        day = 1 + rng.randrange(28)
        kind = rng.randrange(5)
        if kind == 0: lines.append(f"{head.replace('origin=bench', 'origin=open')} kind=open zone=Asia/Seoul offset=32400\n")
        elif kind == 1: lines.append(f"{head.replace('origin=bench', 'origin=skip')} kind=skip dates=2026-12-{day:02d}\n")
        elif kind == 2: lines.append(f"{head.replace('origin=bench', 'origin=skip')} kind=unskip dates=2026-12-{day:02d}\n")
        elif kind == 3: lines.append(f"{head.replace('origin=bench', 'origin=pause')} kind=pause until={at + 3_600_000}\n")
        else: lines.append(f"{head.replace('origin=bench', 'origin=config')} kind=settings set.title=Title%20{n}\n")
    now = "2026-11-25T12:00"
    idle = [run(["sync", "--db", synced, "--now", now]) for _ in range(5)]
    with open(os.path.join(folder, f"planner-{other}-000001.events"), "w") as f:
        f.writelines(lines)
    cpu10k, wall10k = run(["sync", "--db", synced, "--now", now])
    idle_cpu = statistics.median(c for c, _ in idle); idle_wall = statistics.median(w for _, w in idle)
    print(f"planner sync with nothing new: {idle_cpu:.1f} ms CPU, {idle_wall:.1f} ms wall (median of 5)")
    print(f"planner sync applying 10,000 events: {cpu10k:.1f} ms CPU, {wall10k:.1f} ms wall; "
          f"the events' own share: {wall10k - idle_wall:.1f} ms wall")
    applied = subprocess.run(["sqlite3", synced, "SELECT count(*) FROM event WHERE received_ms IS NOT NULL"],
                             capture_output=True, text=True).stdout.strip()
    print(f"events recorded from the other device: {applied}")
