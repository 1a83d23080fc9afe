#!/usr/bin/env python3
"""kill -9 at random moments, twice over.

1. A live `planner tick` is killed with SIGKILL (KILLS times; half at random moments, half aimed at
   the few milliseconds after a request falls due) while one-off
   requests fall due every 100-200 ms, and restarted each time. Every delivery is a line on stdout
   (a file all tickers append to). The guarantee is at most once: no identifier may appear twice.
   Lost reminders are counted and explained: claimed then killed before the outcome (recorded
   failed), or due while no ticker ran long enough (missed/superseded).
2. `planner open` and `planner refill` are killed with SIGKILL after a random delay inside their
   run (TRANSACTION_KILLS times each), on a copy of the same database each time: the result must
   be exactly the state before or exactly the state after a complete run, never in between.

usage: crash.py PLANNER [--kills 60] [--transaction-kills 150]
Prints one JSON line of figures; exits 1 if a check failed.
"""
import argparse, datetime as dt, json, os, random, shutil, signal, sqlite3, subprocess, sys, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("planner")
parser.add_argument("--kills", type=int, default=60)
parser.add_argument("--transaction-kills", type=int, default=150)
args = parser.parse_args()
env = {**os.environ, "TZ": "Asia/Seoul"}
rng = random.Random(7)
folder = tempfile.mkdtemp(prefix="planner-crash-")


def planner(*argv, check=True):
    return subprocess.run([args.planner, *argv], env=env, capture_output=True, text=True, check=check)


def iso(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ---- 1. the live ticker, killed and restarted ------------------------------------------------------
db = os.path.join(folder, "tick.db")
out_path = os.path.join(folder, "deliveries.txt")
planner("list", "--db", db)  # creates the database
next_due = time.time() + 1.0
added = 0
due_times = []


def feed(until):
    """Keeps requests coming every 100-200 ms, a little ahead of time (at most 64 pending)."""
    global next_due, added
    while next_due < until:
        planner("add", "--db", db, "--at", iso(next_due), "--title", f"r{added}", "--id", f"r{added:05d}")
        due_times.append(next_due)
        added += 1
        next_due += rng.uniform(0.10, 0.20)


kills = 0
with open(out_path, "ab", buffering=0) as out:
    while kills < args.kills:
        feed(time.time() + 3)
        ticker = subprocess.Popen([args.planner, "tick", "--db", db, "--sink", "stdout"], env=env, stdout=out,
                                  stderr=subprocess.DEVNULL)
        if kills % 2:
            time.sleep(rng.uniform(0.02, 0.6))  # a random moment: mostly asleep
        else:
            # Aimed at the few milliseconds after a request falls due: claiming, writing, recording.
            upcoming = [t for t in due_times if t > time.time() + 0.05]
            time.sleep(max(0.0, upcoming[0] - time.time()) + rng.uniform(0, 0.004))
        ticker.send_signal(signal.SIGKILL)
        ticker.wait()
        kills += 1
    feed(time.time() + 2)
    ticker = subprocess.Popen([args.planner, "tick", "--db", db, "--sink", "stdout"], env=env, stdout=out, stderr=subprocess.DEVNULL)
    time.sleep(max(0, next_due - time.time()) + 1.5)  # a last, undisturbed ticker delivers what remains due
    ticker.send_signal(signal.SIGTERM)
    ticker_status = ticker.wait()

# Claims left 'delivering' by a killed ticker are recorded failed once they cannot be in progress.
last_fire = next_due
planner("tick", "--db", db, "--once", "--sink", "stdout", "--now", iso(last_fire + 20 * 60 + 2))
lines = [l.split("\t")[0] for l in open(out_path).read().splitlines() if l]
con = sqlite3.connect(db)
states = dict(con.execute("SELECT state, count(*) FROM request GROUP BY state"))
delivered_rows = {r[0] for r in con.execute("SELECT identifier FROM request WHERE state = 'delivered'")}
orphans = {r[0] for r in con.execute("SELECT identifier FROM request WHERE state = 'failed' AND error LIKE 'the ticker stopped%'")}
tick_integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
con.close()
shown = set(lines)
doubled = sorted({i for i in lines if lines.count(i) > 1})
lost = added - len(shown)
ticker_result = {
    "kills": kills, "requests": added, "shown_to_user": len(shown), "doubled": doubled, "lost": lost,
    "lost_explained": {"claimed_then_killed": len(orphans - shown), "missed_or_superseded": states.get("missed", 0)},
    "shown_but_recorded_failed": len(orphans & shown),  # killed after the line, before the outcome commit
    "states": states, "last_ticker_exit": ticker_status, "integrity": tick_integrity,
}

# ---- 2. open and refill killed inside their transaction --------------------------------------------
template = os.path.join(folder, "template.db")
planner("refill", "--db", template, "--now", "2026-11-23T08:00")
planner("list", "--db", template)  # checkpointed and closed: a self-contained file


def snapshot(path):
    con = sqlite3.connect(path)
    rows = (con.execute("SELECT id, identifier, state, fire_at_ms FROM request ORDER BY id").fetchall(),
            con.execute("SELECT id, local_date FROM app_open ORDER BY id").fetchall(),
            con.execute("SELECT last_refill_at_ms FROM plan").fetchall(),
            con.execute("PRAGMA integrity_check").fetchone()[0])
    con.close()
    return rows


def reference(command, now):
    path = os.path.join(folder, f"ref-{command}.db")
    shutil.copy(template, path)
    planner(command, "--db", path, "--now", now)
    return snapshot(path)


cases = {"open": "2026-11-23T12:00", "refill": "2026-11-24T13:00"}
transaction_result = {}
for command, now in cases.items():
    before, after = snapshot(template), reference(command, now)
    assert before != after, "the command must change something for the test to mean anything"
    outcome = {"before": 0, "after": 0, "between": 0, "exited_before_kill": 0}
    work = os.path.join(folder, f"work-{command}.db")

    def fresh_work():
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(work + suffix):
                os.remove(work + suffix)
        shutil.copy(template, work)

    # Kills are spread over 0..1.2x the time an uninterrupted run takes here (start to exit, median of
    # 5), so they land before, inside and after the commit on this machine whatever its speed.
    durations = []
    for _ in range(5):
        fresh_work()
        started = time.monotonic()
        subprocess.run([args.planner, command, "--db", work, "--now", now], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        durations.append(time.monotonic() - started)
    window = 1.2 * sorted(durations)[2]
    outcome["kill_window_ms"] = round(window * 1000, 2)
    for i in range(args.transaction_kills):
        fresh_work()
        p = subprocess.Popen([args.planner, command, "--db", work, "--now", now], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, window))
        p.send_signal(signal.SIGKILL)
        if p.wait() == 0:
            outcome["exited_before_kill"] += 1
        state = snapshot(work)  # opening it recovers from the WAL, as the next planner run would
        outcome["before" if state == before else "after" if state == after else "between"] += 1
    transaction_result[command] = outcome

ok = (not doubled and ticker_result["integrity"] == "ok" and ticker_status == 0
      and all(o["between"] == 0 for o in transaction_result.values()))
print(json.dumps({"ok": ok, "ticker": ticker_result, "killed_in_transaction": transaction_result}))
sys.exit(0 if ok else 1)
