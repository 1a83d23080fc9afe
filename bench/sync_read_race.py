#!/usr/bin/env python3
"""B's planner reading the folder while Syncthing replaces A's file in it, over and over (bench/SYNC_RESULTS.md).

Syncthing 1.19 replaces a received file by unlinking the old name, then renaming its temporary file to it:
for 0.2-0.3 ms the name is missing. A planner that lists the folder, then opens each name, could see
ENOENT there and warn about a good file. Here A changes its title and asks its Syncthing to scan at once
(a carriage every ~60 ms) while `planner sync --db B.db --json` runs back to back; every "problems" entry
is counted. At the end, after the pair settles, B must hold A's last title and a last sync must report
no problem.

  python3 bench/sync_read_race.py PLANNER_BINARY [--seconds 60]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request

PAIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "syncthing-pair")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("planner")
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    planner = os.path.abspath(args.planner)
    top = tempfile.mkdtemp(prefix="sync-read-race-")
    os.environ["TZ"] = "Asia/Seoul"
    env = {}
    for line in subprocess.run([PAIR, "start", top], check=True, capture_output=True, text=True).stdout.splitlines():
        key, value = line.split("=", 1)
        env[key] = value.strip("'")
    a_db, b_db = os.path.join(top, "A.db"), os.path.join(top, "B.db")
    ok = False
    try:
        for db, side in ((a_db, "A"), (b_db, "B")):
            subprocess.run([planner, "config", "set", "--db", db, "sync-folder", env[side + "_FOLDER"],
                            "device-name", side], check=True, capture_output=True)
        stop = time.monotonic() + args.seconds
        written = []

        def writer():
            while time.monotonic() < stop:
                title = f"T{len(written) + 1}"
                subprocess.run([planner, "config", "set", "--db", a_db, "title", title], check=True,
                               capture_output=True)
                request = urllib.request.Request(env["A_API"] + "/rest/db/scan?folder=planner", method="POST",
                                                 headers={"X-API-Key": env["A_KEY"]})
                urllib.request.urlopen(request, timeout=10).read()
                written.append(title)
                time.sleep(0.05)

        thread = threading.Thread(target=writer)
        thread.start()
        syncs, problems = 0, []
        while time.monotonic() < stop:
            out = subprocess.run([planner, "sync", "--db", b_db, "--json"], capture_output=True, text=True)
            syncs += 1
            try:
                problems += json.loads(out.stdout)["problems"]
            except (ValueError, KeyError):
                problems.append(f"exit {out.returncode}: {out.stdout.strip()} {out.stderr.strip()}")
        thread.join()
        subprocess.run([PAIR, "settle", top], check=True)
        last = json.loads(subprocess.run([planner, "sync", "--db", b_db, "--json"], check=True, capture_output=True,
                                         text=True).stdout)
        title = subprocess.run([planner, "config", "get", "--db", b_db, "title"], check=True, capture_output=True,
                               text=True).stdout.strip()
        print(f"{len(written)} changes carried with a scan each; {syncs} `planner sync` on B meanwhile; "
              f"{len(problems)} problems reported")
        for problem in sorted(set(problems)):
            print(f"  {problems.count(problem)} x {problem}")
        print(f"after settling: B's title {title!r} (A's last {written[-1]!r}); last sync's problems {last['problems']}")
        ok = title == written[-1] and not last["problems"]
    finally:
        subprocess.run([PAIR, "stop", top])
    if ok:
        shutil.rmtree(top)
    return 0 if ok and not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
