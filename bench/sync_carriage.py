#!/usr/bin/env python3
"""What the real Syncthing does with the planner's files (bench/SYNC_RESULTS.md), on two instances started by
scripts/syncthing-pair on 127.0.0.1:

  carriage   time from an append in A's folder to the file renamed into place in B's (inotify IN_MOVED_TO),
             with the folder watcher alone (fsWatcherDelayS 1), then with POST /rest/db/scan right after the append
  names      every inotify event in B's folder while one append is carried, and whether the inode changed
  conflict   the same file appended on both sides while B is stopped, then B started again: the names on each
             side and what each holds (once with B's append later, once with A's later)

  python3 bench/sync_carriage.py [--appends 20] [--dir DIR] [--delay S --carriage-only]

--delay sets the folder's fsWatcherDelayS on both sides (through the REST API) before measuring.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PAIR = os.path.join(HERE, "..", "scripts", "syncthing-pair")
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "sync-check.d"))
import inotify  # noqa: E402

WATCH = (inotify.IN_CREATE | inotify.IN_MODIFY | inotify.IN_CLOSE_WRITE | inotify.IN_MOVED_FROM
         | inotify.IN_MOVED_TO | inotify.IN_DELETE | inotify.IN_ATTRIB)


def pair(*args):
    return subprocess.run([PAIR, *args], check=True, capture_output=True, text=True).stdout


def append(path, text):
    with open(path, "a") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def scan(env, side):
    request = urllib.request.Request(f"{env[side + '_API']}/rest/db/scan?folder=planner", method="POST",
                                     headers={"X-API-Key": env[side + "_KEY"]})
    urllib.request.urlopen(request, timeout=10).read()


def wait_moved_to(watcher, name, deadline_s=30):
    """Seconds until NAME is renamed into place in the watched folder, and every event seen on the way."""
    seen, end = [], time.monotonic() + deadline_s
    while time.monotonic() < end:
        for event in watcher.read(end - time.monotonic()):
            seen.append(event)
            if event[1] & inotify.IN_MOVED_TO and event[2] == name:
                return event[0], seen
    raise SystemExit(f"sync_carriage: {name} did not arrive in {deadline_s} s; events: {seen}")


def carriage(env, watcher, name, appends, with_scan):
    a_file, b_file = (os.path.join(env[s + "_FOLDER"], name) for s in "AB")
    times = []
    for i in range(appends):
        time.sleep(1.0 + random.random() * 0.5)   # the previous carriage's index exchange is over
        watcher.read(0)                            # drop what came since
        line = f"{name} append {i} {'scan' if with_scan else 'watcher'}\n"
        t0 = time.monotonic()
        append(a_file, line)
        if with_scan:
            scan(env, "A")
        t1, _ = wait_moved_to(watcher, name)
        with open(b_file) as f:
            if not f.read().endswith(line):
                raise SystemExit(f"sync_carriage: {b_file} renamed into place without append {i}")
        times.append((t1 - t0) * 1000)
    return times


def summary(label, times):
    return (f"{label}: n={len(times)} median {statistics.median(times):.0f} ms, min {min(times):.0f} ms, "
            f"max {max(times):.0f} ms; all: {' '.join(f'{t:.0f}' for t in times)}")


def names_of_one_carriage(env, watcher):
    name = "names.events"
    a_file, b_file = (os.path.join(env[s + "_FOLDER"], name) for s in "AB")
    append(a_file, "first\n")
    wait_moved_to(watcher, name)
    time.sleep(1.5)
    inode_before = os.stat(b_file).st_ino
    watcher.read(0)
    append(a_file, "second\n")
    t1, seen = wait_moved_to(watcher, name)
    seen += watcher.read(0.3)
    inode_after = os.stat(b_file).st_ino
    lines = [f"  {(t - seen[0][0]) * 1000:7.1f} ms  {inotify.describe(mask):<22} {n}" for t, mask, n, _ in seen]
    return lines, inode_before, inode_after


def conflict(env, top, name, later):
    """A and B both append to NAME while B is stopped; `later` appends second (a newer modification time)."""
    a_file, b_file = (os.path.join(env[s + "_FOLDER"], name) for s in "AB")
    append(a_file, "common line\n")
    scan(env, "A")
    deadline = time.monotonic() + 30
    while not (os.path.exists(b_file) and open(b_file).read() == "common line\n"):
        if time.monotonic() > deadline:
            raise SystemExit(f"sync_carriage: {name} not carried before the conflict")
        time.sleep(0.05)
    pair("settle", top)
    pair("pause", top, "b")
    first, second = ("A", "B") if later == "B" else ("B", "A")
    append(a_file if first == "A" else b_file, f"appended on {first} (first)\n")
    time.sleep(2.1)   # whole seconds apart in the modification times
    append(a_file if second == "A" else b_file, f"appended on {second} (later)\n")
    pair("resume", top, "b")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        copies = {s: sorted(f for f in os.listdir(env[s + "_FOLDER"]) if f.startswith(name.split(".")[0] + ".sync-conflict"))
                  for s in "AB"}
        if copies["A"] and copies["B"]:
            break
        time.sleep(0.2)
    pair("settle", top)
    out = []
    for side in "AB":
        folder = env[side + "_FOLDER"]
        for entry in sorted(os.listdir(folder)):
            if entry.startswith(name.split(".")[0]):
                with open(os.path.join(folder, entry)) as f:
                    body = f.read().strip().replace("\n", " / ")
                out.append(f"  {side}: {entry}: {body}")
    return out


def rss_mib(top, name):
    """Resident MiB of the monitor `syncthing serve` leaves running and of the syncthing it starts."""
    with open(os.path.join(top, "pair.json")) as f:
        sid = json.load(f)[name]["pid"]
    sizes = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[3]) != sid:
                    continue
            with open(f"/proc/{entry}/status") as f:
                kib = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
            sizes["monitor" if int(entry) == sid else "syncthing"] = round(kib / 1024, 1)
        except (OSError, StopIteration):
            pass
    return sizes


def set_delay(env, seconds):
    for side in "AB":
        request = urllib.request.Request(f"{env[side + '_API']}/rest/config/folders/planner", method="PATCH",
                                         data=json.dumps({"fsWatcherDelayS": seconds}).encode(),
                                         headers={"X-API-Key": env[side + "_KEY"]})
        urllib.request.urlopen(request, timeout=10).read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--dir")
    parser.add_argument("--delay", type=int, default=1)
    parser.add_argument("--carriage-only", action="store_true")
    args = parser.parse_args()
    top = args.dir or tempfile.mkdtemp(prefix="sync-carriage-")
    env, ok = {}, False
    try:
        started = time.monotonic()
        for line in pair("start", top).splitlines():
            key, value = line.split("=", 1)
            env[key] = value.strip("'")
        print(f"pair started and probed in {time.monotonic() - started:.1f} s ({top}); "
              f"A is {env['A_ID'][:7]}, B is {env['B_ID'][:7]} (the short ids a conflict copy's name uses)")
        if args.delay != 1:
            set_delay(env, args.delay)
            pair("settle", top)
        watcher = inotify.Inotify()
        watcher.watch(env["B_FOLDER"], WATCH)
        # Each measured file exists on both sides first: a file's first carriage is not an append's.
        for name in ("watcher.events", "scan.events"):
            append(os.path.join(env["A_FOLDER"], name), "created\n")
            wait_moved_to(watcher, name)
        print(summary(f"append -> renamed into place on B, watcher only (fsWatcherDelayS {args.delay})",
                      carriage(env, watcher, "watcher.events", args.appends, with_scan=False)))
        if not args.carriage_only:
            print(summary("append + POST /rest/db/scan -> renamed into place on B",
                          carriage(env, watcher, "scan.events", args.appends, with_scan=True)))
            lines, before, after = names_of_one_carriage(env, watcher)
            print(f"one append carried, B's folder as inotify sees it (inode {before} -> {after}):")
            print("\n".join(lines))
            print("sockets of both instances during the run:")
            print(pair("sockets", top).rstrip())
            for later in ("B", "A"):
                print(f"conflict, B stopped, both append, {later}'s append later, B started again:")
                print("\n".join(conflict(env, top, f"conflict{later}.events", later)))
            print(f"resident memory (MiB): A {rss_mib(top, 'a')}, B {rss_mib(top, 'b')}")
            with open("/proc/loadavg") as f:
                print(f"load average at the end: {' '.join(f.read().split()[:3])}")
        ok = True
    finally:
        pair("stop", top)
    if ok and not args.dir:
        shutil.rmtree(top)   # kept on failure: the instances' logs are in it


if __name__ == "__main__":
    main()
