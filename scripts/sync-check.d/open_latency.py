#!/usr/bin/env python3
"""A's `planner open` → B's live ticker closes today, timed (scripts/sync-check).

Runs `planner open --db A.db` and watches, from the moment it starts:
  published  A's planner appended to its file in A's folder (IN_CLOSE_WRITE / IN_MODIFY there)
  carried    Syncthing renamed a planner file into place in B's folder (IN_MOVED_TO: Syncthing writes a
             temporary name and renames it, also for a new file; an IN_CLOSE_WRITE there is B's own planner)
  applied    B.db has one more app_open row (B's ticker applied the open)
  cancelled  B.db has more cancelled requests (B's ticker took the rest of today off)
B.db is read-only here: queried every 20 ms, and at once whenever its WAL or the file changes (inotify on
its folder), so a row is seen within about a millisecond of its commit. Prints one JSON object; exit 1
when B has not applied the open within --timeout seconds (what was seen is still printed).
"""
import argparse
import fnmatch
import json
import os
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inotify  # noqa: E402

PLANNER_FILE = "planner-*.events"


def counts(db, today):
    row = db.execute(
        "SELECT (SELECT count(*) FROM app_open),"
        " (SELECT count(*) FROM request WHERE state = 'cancelled'),"
        " (SELECT count(*) FROM request WHERE state = 'pending' AND kind = 'slot' AND local_date = ?)",
        (today,)).fetchone()
    return {"opens": row[0], "cancelled": row[1], "pending_today": row[2]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--planner", required=True)
    parser.add_argument("--a-db", required=True)
    parser.add_argument("--b-db", required=True)
    parser.add_argument("--a-folder", required=True)
    parser.add_argument("--b-folder", required=True)
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()
    today = time.strftime("%Y-%m-%d")   # in TZ, the plan's zone (sync-check sets both)

    watcher = inotify.Inotify()
    a_wd = watcher.watch(args.a_folder, inotify.IN_CLOSE_WRITE | inotify.IN_MODIFY | inotify.IN_MOVED_TO)
    b_wd = watcher.watch(args.b_folder, inotify.IN_MOVED_TO)
    watcher.watch(os.path.dirname(os.path.abspath(args.b_db)), inotify.IN_MODIFY | inotify.IN_CLOSE_WRITE)
    db = sqlite3.connect(f"file:{os.path.abspath(args.b_db)}?mode=ro", uri=True, timeout=5,
                         isolation_level=None)
    before = counts(db, today)

    t0 = time.monotonic()
    opener = subprocess.Popen([args.planner, "open", "--db", args.a_db], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    seen = {}

    def note(what, when):
        seen.setdefault(what, round((when - t0) * 1000, 1))

    deadline = t0 + args.timeout
    done = False
    while not done and time.monotonic() < deadline:
        for when, mask, name, path in watcher.read(min(0.02, deadline - time.monotonic())):
            if not fnmatch.fnmatch(name, PLANNER_FILE):
                continue
            if path == watcher.paths[a_wd]:
                note("published", when)
            elif path == watcher.paths[b_wd]:
                note("carried", when)
        if opener.poll() is not None:
            note("open_exited", time.monotonic())
        now = counts(db, today)
        if now["opens"] > before["opens"]:
            note("applied", time.monotonic())
        if now["cancelled"] > before["cancelled"]:
            note("cancelled", time.monotonic())
        # Nothing of today was pending on B (the day's last slot has passed): the open row is the whole change.
        done = "applied" in seen and ("cancelled" in seen or before["pending_today"] == 0) and "open_exited" in seen
    try:
        _, err = opener.communicate(timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        opener.kill()
        _, err = opener.communicate()
        err += "\n(killed: still running at the deadline)"
    after = counts(db, today)
    report = {
        "ms_from_open": seen,
        "open_exit_status": opener.returncode,
        "b_before": before,
        "b_after": after,
        "open_stderr": err.strip(),
    }
    if "carried" in seen and "applied" in seen:
        report["carriage_ms"] = round(seen["carried"] - seen.get("published", 0), 1)
        report["planner_share_ms"] = round(seen["applied"] - seen["carried"], 1)
    print(json.dumps(report))
    return 0 if done and opener.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
