"""`open` at midday on a database with 64 pending, without folders, with a sync folder, with a calendar folder,
and each folder again with a live ticker's sign held (as setup installs a ticker; a stand-in holds the sign,
see start_ticker): two binaries and every kind interleaved (RUNS rounds, default 60; a fresh database each run),
median wall time and CPU (the command and its children: the folder child included), then the median peak RSS
of RSS_RUNS more rounds (default 15).

    python3 bench/folder_open_bench.py OLD_BINARY NEW_BINARY
    RUNS=100 KINDS="sync sync+ticker" python3 bench/folder_open_bench.py OLD_BINARY NEW_BINARY
"""
import fcntl, os, shutil, struct, subprocess, sys, tempfile, time
WORK = tempfile.mkdtemp(prefix="folder-open-bench.")
bins = {"old": sys.argv[1], "new": sys.argv[2]}
env = dict(os.environ, TZ="Asia/Seoul")
RUNS = int(os.environ.get("RUNS", "60"))
KINDS = os.environ.get("KINDS", "plain sync cal sync+ticker cal+ticker").split()
def prep(name, kind):
    d = f"{WORK}/{name}-{kind}"; shutil.rmtree(d, ignore_errors=True); os.makedirs(d + "/F"); os.makedirs(d + "/C")
    db = d + "/p.db"
    args = {"plain": [], "sync": ["sync-folder", d + "/F", "device-name", "x"], "cal": ["calendar-folder", d + "/C"]}[kind.split("+")[0]]
    if args: subprocess.run([bins[name], "config", "set", *args, "--db", db, "--now", "2026-11-23T08:00"], env=env, check=True, capture_output=True)
    subprocess.run([bins[name], "refill", "--db", db, "--now", "2026-11-23T08:00"], env=env, check=True, capture_output=True)
    # On disk, as four hours after the refill that wrote them: unlinking a file whose blocks are only in the
    # page cache frees nothing on disk (24 of a day's files: 0.4-0.5 ms of CPU, against 1.0-1.6 ms once
    # written back, bench/CALENDAR_OPEN.md), so a bench right after the refill made removing files look cheap.
    os.sync()
    return db
def start_ticker(name, db):
    """What `open` looks for (TickerLock.liveTickerWatches): the live ticker's sign on its lock file, held by a
    stand-in. A real ticker would run its pass at the real time and change the plan `open --now` then sees;
    Tests/EndToEndTests/OpenLeavesFoldersTests.swift shows a real one doing the folders after the open."""
    fd = os.open(db + ".tick.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 1, 0))
    return fd
# How a binary's file was written decides its page-cache folios, and a fault maps a whole folio (bench/RESULTS.md:
# the same bytes peaked 1 MiB higher copied by cp than by dd bs=4k). Each binary is dropped from the page cache
# first and read back the same way, by its own faults; for peak RSS before every run (below).
def drop_cached(path):
    fd = os.open(path, os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
for path in bins.values():
    drop_cached(path)
res = {(name, kind): [] for kind in KINDS for name in bins}
rss = {(name, kind): [] for kind in KINDS for name in bins}
# Every kind and binary in each round, so a busier minute of this shared machine weighs on all alike.
for i in range(RUNS):
    for kind in KINDS:
        for name in bins:
            db = prep(name, kind)
            ticker = start_ticker(name, db) if kind.endswith("+ticker") else None
            t0 = time.perf_counter()
            child = subprocess.Popen([bins[name], "open", "--db", db, "--now", "2026-11-23T12:00"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # wait4: this run's own CPU, its reaped folder children included.
            _, status, usage = os.wait4(child.pid, 0)
            t1 = time.perf_counter()
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode != 0: sys.exit(f"{bins[name]} open ({kind}) failed: {status}")
            res[(name, kind)].append((t1 - t0, usage.ru_utime + usage.ru_stime))
            if ticker is not None: os.close(ticker)
# Peak RSS in runs of their own, through /usr/bin/time: a child of this script counts the Python it was forked
# from in its ru_maxrss (the kernel keeps the larger of the two address spaces' high-water marks at exec).
# Each from a cold page cache: what the runs before left there decided what a run mapped (800 KiB apart).
for i in range(int(os.environ.get("RSS_RUNS", "15"))):
    for kind in KINDS:
        for name in bins:
            db = prep(name, kind)
            drop_cached(bins[name])
            ticker = start_ticker(name, db) if kind.endswith("+ticker") else None
            out = subprocess.run(["/usr/bin/time", "-f", "%M", bins[name], "open", "--db", db, "--now", "2026-11-23T12:00"],
                                 env=env, check=True, capture_output=True, text=True)
            rss[(name, kind)].append(int(out.stderr.split()[-1]))
            if ticker is not None: os.close(ticker)
import statistics as st
for kind in KINDS:
    line = [kind]
    for name in bins:
        w = st.median(x[0] for x in res[(name, kind)]) * 1000; c = st.median(x[1] for x in res[(name, kind)]) * 1000
        plain = st.median(x[1] for x in res[(name, "plain")]) * 1000 if "plain" in KINDS else None
        line.append(f"{name}: wall {w:.1f} ms cpu {c:.1f} ms" + (f" ({c / plain:.2f}x plain)" if plain else "")
                    + f" peak RSS {st.median(rss[(name, kind)]):,.0f} KiB")
    print(" | ".join(line))
