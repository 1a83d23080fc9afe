#!/usr/bin/env python3
"""The calendar folder's costs (issue 22), side by side in one run:
1. `planner open` with a calendar folder set (14 days) vs without: CPU (user+sys, from wait4) of
   interleaved runs, each on a day refilled beforehand (so each open removes that day's events and
   rewrites its task, as a real morning's open does);
2. a `planner refill` that writes the 14 days' items into an empty folder, wall and CPU, against the
   same refill with no calendar folder.
Usage: bench/calendar_bench.py PLANNER [--runs N]"""
import datetime as dt, os, shutil, sqlite3, statistics, subprocess, sys, tempfile, time

planner = os.path.abspath(sys.argv[1])
runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 60
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

def med(values):
    return statistics.median(values)

with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
    folder = os.path.join(tmp, "calendar"); os.mkdir(folder)
    plain, cal = os.path.join(tmp, "plain.db"), os.path.join(tmp, "calendar.db")
    for db in (plain, cal):
        run(["config", "set", "days", "daily", "--db", db, "--now", "2026-11-23T08:00"])
    run(["config", "set", "calendar-folder", folder, "calendar-days", "14", "--db", cal, "--now", "2026-11-23T08:00"])
    cpu = {"plain": [], "calendar": []}
    wall = {"plain": [], "calendar": []}
    removed = []
    day0 = dt.date(2026, 11, 23)
    for i in range(runs):
        day = day0 + dt.timedelta(days=i)
        for db in (plain, cal):
            run(["refill", "--db", db, "--now", f"{day}T08:00"])
        before = len(os.listdir(folder))
        order = [("plain", plain), ("calendar", cal)] if i % 2 == 0 else [("calendar", cal), ("plain", plain)]
        for name, db in order:
            c, w = run(["open", "--db", db, "--now", f"{day}T12:10"])
            cpu[name].append(c); wall[name].append(w)
        removed.append(before - len(os.listdir(folder)))
    p, c = med(cpu["plain"]), med(cpu["calendar"])
    print(f"open CPU, median of {runs} interleaved runs: without a calendar folder {p:.2f} ms, with one {c:.2f} ms: {c / p:.2f}x"
          f" (wall {med(wall['plain']):.2f} / {med(wall['calendar']):.2f} ms; each open removed {med(removed):.0f} files and rewrote 1 task)")

    # A refill writing 14 days into an empty folder (the default weekdays): fresh databases, the calendar's
    # rows forgotten and the folder emptied before each.
    plain, cal = os.path.join(tmp, "plain2.db"), os.path.join(tmp, "calendar2.db")
    run(["config", "set", "calendar-folder", folder, "calendar-days", "14", "--db", cal, "--now", "2026-11-23T08:00"])
    run(["refill", "--db", plain, "--now", "2026-11-23T08:00"])
    fills = {"plain": [], "calendar": []}
    counts = []
    for i in range(max(runs // 3, 10)):
        now = f"2026-11-23T08:{i % 60:02d}"
        shutil.rmtree(folder); os.mkdir(folder)
        with sqlite3.connect(cal) as con:
            con.execute("DELETE FROM calendar_file")
        order = [("plain", plain), ("calendar", cal)] if i % 2 == 0 else [("calendar", cal), ("plain", plain)]
        for name, db in order:
            fills[name].append(run(["refill", "--db", db, "--now", now]))
        counts.append(len(os.listdir(folder)))
    pc, pw = med([x[0] for x in fills["plain"]]), med([x[1] for x in fills["plain"]])
    cc, cw = med([x[0] for x in fills["calendar"]]), med([x[1] for x in fills["calendar"]])
    print(f"refill writing 14 days ({med(counts):.0f} files), median of {len(counts)}: wall {cw:.1f} ms, CPU {cc:.1f} ms;"
          f" the same refill without a calendar folder: wall {pw:.1f} ms, CPU {pc:.1f} ms")
