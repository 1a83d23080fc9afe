"""What reading Anki's collection costs a writing command (`planner refill`), against no collection set.

A real collection made by Anki's own backend (scripts/anki-fixture), then REVIEWS review rows over YEARS years
written into it with sqlite3 while Anki is closed (the ids are what Anki writes: epoch milliseconds, a study
session a day). Interleaved runs, medians of wall time and CPU (the command and its children: the copy child):

  none       no anki-collection set
  unchanged  set, nothing changed since the last read (a look at the files, no copy)
  wal        a review appended to the WAL by a running Anki (the WAL copied, every day's first review found)
  whole      the database itself changed (a checkpoint, Anki closed): copied whole, every day found
  first      the first read of the whole history (once: every past day becomes an open)

    python3 bench/anki_bench.py PLANNER [REVIEWS] [YEARS] [RUNS]
    (Anki's Python: .build/anki-venv/bin/python3, made by scripts/test, or $PLANNER_ANKI_PYTHON)
"""
import json, os, random, resource, shutil, sqlite3, statistics as st, subprocess, sys, tempfile, time

planner = os.path.abspath(sys.argv[1])
reviews = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
years = int(sys.argv[3]) if len(sys.argv) > 3 else 5
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 15
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
python = os.environ.get("PLANNER_ANKI_PYTHON") or f"{root}/.build/anki-venv/bin/python3"
fixture = [python, f"{root}/scripts/anki-fixture"]
work = tempfile.mkdtemp(prefix="anki-bench.")
env = dict(os.environ, TZ="Asia/Seoul")
NOW_MS = 1_795_392_000_000 + 12 * 3_600_000  # Monday 2026-11-23 12:00 +09:00
NOW = "2026-11-23T12:00"

collection = f"{work}/Anki2/User 1/collection.anki2"
subprocess.run(fixture + ["create", collection, "--notes", "5"], check=True, capture_output=True)
con = sqlite3.connect(collection)
cid = con.execute("SELECT id FROM cards LIMIT 1").fetchone()[0]
rng = random.Random(32)
days = years * 365
per_day = max(1, reviews // days)
rows, start = [], NOW_MS - days * 86_400_000
for d in range(days):
    t = start + d * 86_400_000 + rng.randrange(8 * 3_600_000, 22 * 3_600_000)
    for k in range(per_day):
        rows.append((t + k * 7_000, cid, -1, 3, 1, 1, 2500, 6000, 1))
con.executemany("INSERT OR IGNORE INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (?,?,?,?,?,?,?,?,?)", rows)
con.commit()
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
con.close()
size = os.path.getsize(collection)

def db_for(kind):
    """A database and, for each case, a collection of its own (a copy of the one made above)."""
    d = f"{work}/{kind}"
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    db = f"{d}/p.db"
    if kind != "none":
        own = f"{d}/Anki2/User 1/collection.anki2"
        os.makedirs(os.path.dirname(own))
        shutil.copy2(collection, own)
        subprocess.run([planner, "config", "set", "anki-collection", own, "--db", db, "--now", NOW], env=env, check=True, capture_output=True)
    return db

def timed(db, now=NOW):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
    subprocess.run([planner, "refill", "--db", db, "--now", now], env=env, check=True, capture_output=True)
    t1 = time.perf_counter(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (t1 - t0, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime))

# The first read, once (a fresh database each time would import it again: that is `first`).
first = [timed(db_for("first")) for _ in range(3)]
opens = sqlite3.connect(f"{work}/first/p.db").execute("SELECT count(*) FROM app_open WHERE origin = 'anki'").fetchone()[0]

dbs = {"none": db_for("none"), "unchanged": db_for("unchanged"), "wal": db_for("wal"), "whole": db_for("whole")}
for kind in ["unchanged", "wal", "whole"]:
    timed(dbs[kind])  # the first read, not measured here
timed(dbs["none"])
holder = subprocess.Popen(fixture + ["hold", f"{work}/wal/Anki2/User 1/collection.anki2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
assert json.loads(holder.stdout.readline()).get("ready")
res = {k: [] for k in dbs}
next_ms = NOW_MS - 3_600_000
for i in range(runs):
    for kind in ["none", "unchanged", "wal", "whole"]:
        if kind == "wal":
            next_ms += 1
            holder.stdin.write(f"review {next_ms}\n"); holder.stdin.flush()
            assert "id" in json.loads(holder.stdout.readline())
        if kind == "whole":
            # The database file itself changed (what a checkpoint or Anki's close does): its times move.
            os.utime(f"{work}/whole/Anki2/User 1/collection.anki2")
        res[kind].append(timed(dbs[kind]))
holder.stdin.write("close\n"); holder.stdin.flush(); holder.wait()

print(f"collection: {size / 2**20:.1f} MiB, {len(rows)} reviews on {days} days ({years} years); {runs} interleaved runs; `planner refill` at {NOW}")
print(f"first read: {opens} opens recorded; wall {', '.join(f'{w * 1000:.0f}' for w, _ in first)} ms (3 fresh databases)")
print(f"{'case':10} {'wall ms':>8} {'cpu ms':>8} {'wall vs none':>13}")
base = st.median(w for w, _ in res["none"])
for kind in ["none", "unchanged", "wal", "whole"]:
    wall = st.median(w for w, _ in res[kind]); cpu = st.median(c for _, c in res[kind])
    print(f"{kind:10} {wall * 1000:8.1f} {cpu * 1000:8.1f} {wall / base:12.2f}x")
shutil.rmtree(work)
