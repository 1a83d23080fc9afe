#!/usr/bin/env python3
"""Builds the template databases of bench/open_bench.sh in bench/out/:

  fresh.db   64 pending at Monday 2026-11-23 11:50 Asia/Seoul, no history
  year.db    the same after about a year of weekdays   (~6,500 request rows)
  decade.db  the same after about ten years of weekdays (~65,000 request rows)

History is made by driving the real planner binary over past days (`refill` and `open` with a
stepped --now), so every row is one the planner wrote itself: slots become cancelled (open) or
missed (refill past the grace period). The planner has no ticker yet, so deliveries are simulated
with one UPDATE pending -> delivered, as `planner tick` would do (the schema allows that transition).
Every template ends with the same `planner refill --now 2026-11-23T11:50`, so each leaves the same
64 pending and `planner open --now 2026-11-23T12:00` does the same work on all three.

usage: TZ=Asia/Seoul bench/make_history.py PLANNER_BINARY OUT_DIR [NAME...]   (only the templates named)
"""
import datetime as dt
import os
import random
import sqlite3
import subprocess
import sys
import zoneinfo

PLANNER, OUT = sys.argv[1], sys.argv[2]
ZONE = zoneinfo.ZoneInfo("Asia/Seoul")
MONDAY = dt.date(2026, 11, 23)
FINAL_REFILL = "2026-11-23T11:50"


def planner(command, db, when):
    subprocess.run([PLANNER, command, "--db", db, "--now", when.strftime("%Y-%m-%dT%H:%M")],
                   check=True, env={**os.environ, "TZ": "Asia/Seoul"})


def deliver(con, until):
    """A simulated ticker: every pending request due by `until` reached the user, a little late."""
    ms = int(until.replace(tzinfo=ZONE).timestamp() * 1000)
    con.execute("""UPDATE request SET state = 'delivered', reason = 'delivered',
                          delivered_at_ms = fire_at_ms + 1500, changed_at_ms = fire_at_ms + 1500
                   WHERE state = 'pending' AND fire_at_ms <= ?""", (ms,))


def build(name, days):
    db = os.path.join(OUT, name + ".db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    rng = random.Random(name)  # deterministic: the same templates every run
    start = MONDAY - dt.timedelta(days=days)
    if days:
        planner("refill", db, dt.datetime.combine(start, dt.time(8, 0)))  # creates the database
        history(db, start, days, rng)
    planner("refill", db, dt.datetime.fromisoformat(FINAL_REFILL))
    return db


def history(db, start, days, rng):
    con = sqlite3.connect(db, isolation_level=None)  # autocommit: never holds a lock while the planner runs
    for n in range(days):
        day = start + dt.timedelta(days=n)
        if day.isoweekday() <= 5:
            ticker_on = rng.random() < 0.85                  # some days the ticker did not run: slots go missed
            opened = rng.random() < 0.6                      # most days the app was opened at some point
            at = dt.datetime.combine(day, dt.time(9, 0)) + dt.timedelta(minutes=rng.randrange(13 * 60))
            if ticker_on:
                deliver(con, at if opened else dt.datetime.combine(day, dt.time(21, 30)))
            if opened:
                planner("open", db, at)                       # cancels the rest of the day's slots
        planner("refill", db, dt.datetime.combine(day, dt.time(23, 0)))  # the nightly cron refill
    deliver(con, dt.datetime.combine(MONDAY, dt.time(11, 30)))          # Monday morning's slots went out
    con.close()


os.makedirs(OUT, exist_ok=True)
for name, days in (("fresh", 0), ("year", 365), ("decade", 3652)):
    if sys.argv[3:] and name not in sys.argv[3:]:
        continue
    db = build(name, days)
    con = sqlite3.connect(db)
    states = dict(con.execute("SELECT state, count(*) FROM request GROUP BY state"))
    total = con.execute("SELECT count(*) FROM request").fetchone()[0]
    opens = con.execute("SELECT count(*) FROM app_open").fetchone()[0]
    con.close()
    print(f"{name:7} {os.path.getsize(db):>10,} bytes  request={total:,} {states}  app_open={opens:,}")
    assert states.get("pending") == 64, f"{name}: expected 64 pending"
    assert not os.path.exists(db + "-wal"), f"{name}: WAL left beside the template"
