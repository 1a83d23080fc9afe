#!/usr/bin/python3
"""What a vdirsyncer round costs on the path to a phone (issue 22): a real Radicale on 127.0.0.1
(scripts/caldav-server), vdirsyncer with contrib/vdirsyncer.config (only its url changed), the planner's
calendar folder with about 150 items (calendar-days 8, Mon-Fri, Asia/Seoul). Measured, wall time and CPU
(user+sys of vdirsyncer and its children, from wait4):
  1. the first upload (`vdirsyncer sync` right after `discover`, every item new on the server);
  2. a round with nothing changed (median of --runs);
  3. a round after `planner open` (each run opens the next study day at 09:40, refilled beforehand so the
     open removes that day's later events and completes its task; median of --runs).
Usage: bench/caldav_round.py PLANNER [--runs N]   (run with Debian's /usr/bin/python3)"""
import datetime as dt
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
planner = os.path.abspath(sys.argv[1])
runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5


def timed(args, env, stdin=None):
    start = time.perf_counter()
    p = subprocess.Popen(args, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    out, err = p.communicate(stdin.encode() if stdin else None)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} exited {p.returncode}: {err.decode()[-400:]}")
    return wall * 1000, err.decode()


def children_cpu():
    r = os.times()
    return (r.children_user + r.children_system) * 1000


def measure(args, env, stdin=None):
    before = children_cpu()
    wall, err = timed(args, env, stdin)
    return wall, children_cpu() - before, err


def study_days(start, count):
    day, out = start, []
    while len(out) < count:
        if day.weekday() < 5:
            out.append(day)
        day += dt.timedelta(days=1)
    return out


work = tempfile.mkdtemp(prefix="caldav-round.")
server = os.path.join(work, "server")
try:
    started = subprocess.run([os.path.join(ROOT, "scripts/caldav-server"), "start", server], capture_output=True,
                             text=True, check=True).stdout
    url = re.search(r"^CALDAV_URL='([^']*)'", started, re.M).group(1)
    home = os.path.join(work, "home")
    os.makedirs(os.path.join(home, ".config/vdirsyncer"))
    with open(os.path.join(ROOT, "contrib/vdirsyncer.config")) as f:
        config = f.read().replace('url = "https://dav.example.com/"', f'url = "{url}"')
    with open(os.path.join(home, ".config/vdirsyncer/config"), "w") as f:
        f.write(config)
    with open(os.path.join(home, ".config/vdirsyncer/password"), "w") as f:
        f.write("unused\n")
    folder = os.path.join(home, ".local/share/planner/calendars/planner")
    os.makedirs(folder)
    env = {"HOME": home, "TZ": "Asia/Seoul", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    db = os.path.join(work, "plan.db")
    days = study_days(dt.date(2026, 11, 23), runs + 1)
    now = f"{days[0]}T08:00"
    subprocess.run([planner, "config", "set", "calendar-folder", folder, "calendar-days", "8", "--db", db, "--now", now],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([planner, "refill", "--db", db, "--now", now], env=env, check=True, stdout=subprocess.DEVNULL)
    items = len([n for n in os.listdir(folder) if n.endswith(".ics")])
    measure(["vdirsyncer", "discover", "planner"], env, stdin="y\ny\n")
    first = measure(["vdirsyncer", "sync"], env)
    idle, opened, removed = [], [], []
    for day in days[1:]:
        idle.append(measure(["vdirsyncer", "sync"], env))
        # The morning's state: refilled before the window, then opened at 09:40.
        subprocess.run([planner, "refill", "--db", db, "--now", f"{day}T08:00"], env=env, check=True, stdout=subprocess.DEVNULL)
        measure(["vdirsyncer", "sync"], env)
        before = len(os.listdir(folder))
        subprocess.run([planner, "open", "--db", db, "--now", f"{day}T09:40"], env=env, check=True, stdout=subprocess.DEVNULL)
        removed.append(before - len(os.listdir(folder)))
        opened.append(measure(["vdirsyncer", "sync"], env))
    on_server = len([n for n in os.listdir(os.path.join(server, "collections/collection-root/you@example.com/planner"))
                     if n.endswith(".ics")])

    def row(name, values):
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        return f"| {name} | {len(values)} | {wall:.0f} ms | {cpu:.0f} ms |"

    print(f"vdirsyncer {subprocess.run(['vdirsyncer', '--version'], capture_output=True, text=True, env=env).stdout.split()[-1]}, "
          f"Radicale {subprocess.run(['radicale', '--version'], capture_output=True, text=True).stdout.strip()}; "
          f"{items} items in the folder after the first refill, {on_server} on the server at the end; "
          f"each open removed {statistics.median(removed):.0f} files (median)")
    print("| round | runs | wall (median) | CPU, vdirsyncer (median) |")
    print("|---|---|---|---|")
    print(row("first upload (every item new)", [first]))
    print(row("nothing changed", idle))
    print(row("after `planner open` (a day's events removed, its task rewritten)", opened))
finally:
    subprocess.run([os.path.join(ROOT, "scripts/caldav-server"), "stop", server])
    shutil.rmtree(work, ignore_errors=True)
