"""`open` at midday on a database with 64 pending, without folders, with a sync folder, with a calendar folder:
two binaries interleaved (60 runs each, a fresh database each run), median wall time and CPU (the command and
its children: the folder child included).

    python3 bench/folder_open_bench.py OLD_BINARY NEW_BINARY
"""
import os, resource, shutil, subprocess, sys, tempfile, time
WORK = tempfile.mkdtemp(prefix="folder-open-bench.")
bins = {"old": sys.argv[1], "new": sys.argv[2]}
env = dict(os.environ, TZ="Asia/Seoul")
def prep(name, kind):
    d = f"{WORK}/{name}-{kind}"; shutil.rmtree(d, ignore_errors=True); os.makedirs(d + "/F"); os.makedirs(d + "/C")
    db = d + "/p.db"
    args = {"plain": [], "sync": ["sync-folder", d + "/F", "device-name", "x"], "cal": ["calendar-folder", d + "/C"]}[kind]
    if args: subprocess.run([bins[name], "config", "set", *args, "--db", db, "--now", "2026-11-23T08:00"], env=env, check=True, capture_output=True)
    subprocess.run([bins[name], "refill", "--db", db, "--now", "2026-11-23T08:00"], env=env, check=True, capture_output=True)
    return db
res = {}
for kind in ["plain", "sync", "cal"]:
    for name in bins: res[(name, kind)] = []
    for i in range(60):
        for name in bins:
            db = prep(name, kind)
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
            subprocess.run([bins[name], "open", "--db", db, "--now", "2026-11-23T12:00"], env=env, check=True, capture_output=True)
            t1 = time.perf_counter(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            res[(name, kind)].append((t1 - t0, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)))
import statistics as st
for kind in ["plain", "sync", "cal"]:
    line = [kind]
    for name in bins:
        w = st.median(x[0] for x in res[(name, kind)]) * 1000; c = st.median(x[1] for x in res[(name, kind)]) * 1000
        line.append(f"{name}: wall {w:.1f} ms cpu {c:.1f} ms")
    print(" | ".join(line))
