#!/usr/bin/env python3
"""Many writers on one database: real planner processes for SECONDS, mixing open, refill, add,
tick --once and list, checked during and after.

usage: concurrency.py PLANNER [--workers 10] [--seconds 40]

Every process passes --now from one shared simulated clock running 2,880x faster than real time
(a real second is 48 simulated minutes, so 40 s cover more than a day of slots and opens), plus a
small random jitter either way, so the commands see varied, overlapping times.
Checked during the run (a reader samples every 50 ms): pending <= 64, no identifier pending twice.
Checked after: every command exited 0 (no SQLITE_BUSY reached a user), no study slot delivered twice,
no slot of a date claimed for delivery after that date's first app-open committed (real commit order,
from a test-only audit trigger), no slot pending on an opened date, integrity_check ok.
Prints one JSON line of figures; exits 1 if any check failed.
"""
import argparse, datetime as dt, json, os, random, sqlite3, subprocess, sys, tempfile, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("planner")
parser.add_argument("--workers", type=int, default=10)
parser.add_argument("--seconds", type=float, default=40)
args = parser.parse_args()

folder = tempfile.mkdtemp(prefix="planner-concurrency-")
db = os.path.join(folder, "planner.db")
env = {**os.environ, "TZ": "Asia/Seoul"}
START = dt.datetime(2026, 11, 23, 7, 0, tzinfo=dt.timezone(dt.timedelta(hours=9)))  # Monday 07:00
SPEED = 2880
t0 = time.monotonic()


def sim_now(jitter_s=0.0):
    t = START + dt.timedelta(seconds=(time.monotonic() - t0) * SPEED + jitter_s)
    return t.isoformat(timespec="milliseconds")


stats = {"commands": 0, "failures": [], "by_command": {}}
lock = threading.Lock()


def run(argv):
    r = subprocess.run([args.planner] + argv, env=env, capture_output=True, text=True)
    with lock:
        stats["commands"] += 1
        stats["by_command"][argv[0]] = stats["by_command"].get(argv[0], 0) + 1
        if r.returncode != 0:
            stats["failures"].append({"argv": argv, "status": r.returncode, "stderr": r.stderr.strip()})


def worker(n):
    rng = random.Random(n)
    while time.monotonic() - t0 < args.seconds:
        jitter = rng.uniform(-120, 120)  # up to two simulated minutes either way
        choice = rng.random()
        base = ["--db", db, "--now", sim_now(jitter)]
        if choice < 0.30:
            run(["tick"] + base + ["--once", "--sink", "stdout"])
        elif choice < 0.50:
            run(["refill"] + base)
        elif choice < 0.60:
            run(["open"] + base)
        elif choice < 0.75:
            run(["add"] + base + ["--in", f"{rng.randint(1, 90)}m", "--title", f"w{n}", "--id", f"oneoff-{rng.randint(0, 30)}"])
        else:
            run([rng.choice(["list", "status", "history"])] + base)


samples = {"count": 0, "max_pending": 0, "violations": []}


def sampler():
    while time.monotonic() - t0 < args.seconds:
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
            pending, distinct = con.execute(
                "SELECT count(*), count(DISTINCT identifier) FROM request WHERE state = 'pending'").fetchone()
            con.close()
            samples["count"] += 1
            samples["max_pending"] = max(samples["max_pending"], pending)
            if pending > 64 or distinct != pending:
                samples["violations"].append({"pending": pending, "distinct": distinct})
        except sqlite3.OperationalError as e:  # the file may not exist yet
            if "unable to open" not in str(e):
                samples["violations"].append({"error": str(e)})
        time.sleep(0.05)


run(["refill", "--db", db, "--now", sim_now()])  # creates the database
# An audit of our own (AFTER triggers writing only a table of our own: what guide.md allows and
# BadInputTests.anAuditTriggerOfYourOwnIsAllowed pins): writes are serialized (BEGIN IMMEDIATE), so the
# audit's rowid is the real commit order of opens and claims, which the jittered simulated times are not.
con = sqlite3.connect(db)
con.executescript("""
    CREATE TABLE bench_audit (what TEXT, identifier TEXT, local_date TEXT);
    CREATE TRIGGER bench_audit_open AFTER INSERT ON app_open
    BEGIN INSERT INTO bench_audit VALUES ('open', NULL, NEW.local_date); END;
    CREATE TRIGGER bench_audit_claim AFTER UPDATE OF state ON request WHEN NEW.state = 'delivering'
    BEGIN INSERT INTO bench_audit VALUES ('claim', NEW.identifier, NEW.local_date); END;
""")
con.close()
threads = [threading.Thread(target=worker, args=(n,)) for n in range(args.workers)] + [threading.Thread(target=sampler)]
for t in threads:
    t.start()
for t in threads:
    t.join()

con = sqlite3.connect(db)
q = lambda sql: con.execute(sql).fetchall()
after = {
    "integrity": q("PRAGMA integrity_check")[0][0],
    "pending": q("SELECT count(*) FROM request WHERE state = 'pending'")[0][0],
    "rows_by_state": dict(q("SELECT state, count(*) FROM request GROUP BY state")),
    "app_opens": q("SELECT count(*) FROM app_open")[0][0],
    # A study slot is one identifier: delivered at most once, whatever re-planning happened.
    "slots_delivered_twice": q("""SELECT identifier FROM request WHERE state = 'delivered' AND kind = 'slot'
                                  GROUP BY identifier HAVING count(*) > 1"""),
    # Claimed (and so delivered) after the first open of its date had committed.
    "claimed_after_that_dates_open": q("""
        SELECT c.identifier FROM bench_audit c
        JOIN (SELECT local_date, min(rowid) AS first_open FROM bench_audit WHERE what = 'open' GROUP BY local_date) o
          ON o.local_date = c.local_date
        WHERE c.what = 'claim' AND c.identifier LIKE 'Noti_AppOpenPromotion_%' AND c.rowid > o.first_open"""),
    "claims_audited": q("SELECT count(*) FROM bench_audit WHERE what = 'claim'")[0][0],
    "pending_on_opened_dates": q("""SELECT identifier FROM request WHERE state = 'pending' AND kind = 'slot'
                                   AND local_date IN (SELECT local_date FROM app_open)"""),
}
con.close()
ok = (not stats["failures"] and not samples["violations"] and after["integrity"] == "ok" and after["pending"] <= 64
      and not after["slots_delivered_twice"] and not after["claimed_after_that_dates_open"] and not after["pending_on_opened_dates"])
print(json.dumps({"ok": ok, "workers": args.workers, "seconds": args.seconds, "commands": stats["commands"],
                  "by_command": stats["by_command"], "failures": stats["failures"][:5], "failure_count": len(stats["failures"]),
                  "samples": samples["count"], "max_pending_seen": samples["max_pending"], "sample_violations": samples["violations"][:5],
                  **after}))
sys.exit(0 if ok else 1)
