"""Anki's first read of a long history: what one `planner refill` costs when the collection is read for the
first time, against a plain first `refill` (no collection set), for one planner or side by side with BASELINE.

A real collection made by Anki's own backend (scripts/anki-fixture), YEARS years of daily study written into
its review log (a session a day, REVIEWS_PER_DAY reviews). For each planner, RUNS fresh databases (medians):

  plain        the first `refill` of a fresh database with no collection set
  first        the first `refill` after `config set anki-collection`: every past day's first review recorded
  cpu ratio    first / plain (the goal: <= 30x)
  requests     request rows in the database after the first read (none should be per past day)
  db KiB       the database file (with its -wal folded in) after the first read
  refills      how many `refill` runs the whole history took (each command reads it in slices)

    python3 bench/anki_first_read.py PLANNER [YEARS] [RUNS] [REVIEWS_PER_DAY]
    BASELINE=/path/to/old/planner python3 bench/anki_first_read.py PLANNER ...
    (Anki's Python: .build/anki-venv/bin/python3, made by scripts/test, or $PLANNER_ANKI_PYTHON)
"""
import os, random, resource, shutil, sqlite3, statistics as st, subprocess, sys, tempfile, time

planner = os.path.abspath(sys.argv[1])
years = int(sys.argv[2]) if len(sys.argv) > 2 else 5
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
per_day = int(sys.argv[4]) if len(sys.argv) > 4 else 100
baseline = os.environ.get("BASELINE")
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
python = os.environ.get("PLANNER_ANKI_PYTHON") or f"{root}/.build/anki-venv/bin/python3"
work = tempfile.mkdtemp(prefix="anki-first.")
env = dict(os.environ, TZ="Asia/Seoul")
NOW_MS = 1_795_402_800_000  # Monday 2026-11-23 12:00 +09:00 (03:00Z)
NOW = "2026-11-23T12:00"

collection = f"{work}/collection.anki2"
subprocess.run([python, f"{root}/scripts/anki-fixture", "create", collection, "--notes", "5"], check=True, capture_output=True)
con = sqlite3.connect(collection)
cid = con.execute("SELECT id FROM cards LIMIT 1").fetchone()[0]
rng = random.Random(48)
days = years * 365
rows, midnight = [], NOW_MS - 12 * 3_600_000  # today's 00:00 in Seoul
for d in range(days, 0, -1):  # the days before today, each studied between 08:00 and 22:00
    t = midnight - d * 86_400_000 + rng.randrange(8 * 3_600_000, 22 * 3_600_000)
    for k in range(per_day):
        rows.append((t + k * 7_000, cid, -1, 3, 1, 1, 2500, 6000, 1))
con.executemany("INSERT OR IGNORE INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (?,?,?,?,?,?,?,?,?)", rows)
con.commit()
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
con.close()


def cpu_of(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(args, env=env, capture_output=True, text=True)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{args[0]} {args[1]} exited {p.returncode}: {p.stderr.strip()}")
    return (t1 - t0, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime), p.stdout)


def measure(binary, run):
    d = f"{work}/{os.path.basename(os.path.dirname(binary))}-{run}"
    os.makedirs(d)
    plain = cpu_of([binary, "refill", "--db", f"{d}/plain.db", "--now", NOW])
    own = f"{d}/collection.anki2"
    shutil.copy2(collection, own)
    db = f"{d}/p.db"
    subprocess.run([binary, "config", "set", "anki-collection", own, "--db", db, "--now", NOW], env=env, check=True, capture_output=True)
    first = cpu_of([binary, "refill", "--db", db, "--now", NOW])
    # Later refills until the history is in (a planner that reads it in slices needs more than one).
    refills, total_cpu = 1, first[1]
    while True:
        c = sqlite3.connect(db)
        opens = c.execute("SELECT count(*) FROM app_open WHERE origin = 'anki'").fetchone()[0]
        more = c.execute("SELECT coalesce(max(more), 0) FROM anki_read").fetchone()[0]
        c.close()
        if not more or refills >= 200:
            break
        refills += 1
        total_cpu += cpu_of([binary, "refill", "--db", db, "--now", NOW])[1]
    c = sqlite3.connect(db)
    requests = c.execute("SELECT count(*) FROM request").fetchone()[0]
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    return dict(plain=plain[1], first=first[1], wall=first[0], total=total_cpu, opens=opens, requests=requests,
                kib=os.path.getsize(db) / 1024, refills=refills)


binaries = ([baseline] if baseline else []) + [planner]
results = {b: [] for b in binaries}
for run in range(runs):
    for b in binaries:  # interleaved: the machine's load falls on both alike
        results[b].append(measure(os.path.abspath(b), run))

print(f"collection: {os.path.getsize(collection) / 2**20:.1f} MiB, {len(rows)} reviews on {days} days ({years} years); "
      f"{runs} fresh databases each; `planner refill` at {NOW}; medians")
print(f"{'planner':40} {'plain ms':>9} {'first ms':>9} {'ratio':>7} {'all ms':>8} {'refills':>7} {'opens':>6} {'requests':>8} {'db KiB':>8}")
for b in binaries:
    r = results[b]
    med = lambda k: st.median(x[k] for x in r)
    print(f"{b[-40:]:40} {med('plain') * 1000:9.1f} {med('first') * 1000:9.1f} {med('first') / med('plain'):6.1f}x "
          f"{med('total') * 1000:8.1f} {med('refills'):7.0f} {med('opens'):6.0f} {med('requests'):8.0f} {med('kib'):8.0f}")
shutil.rmtree(work)
