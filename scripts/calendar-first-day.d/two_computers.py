#!/usr/bin/python3
"""Issue 30, several computers and one phone: two planner databases (a laptop and a desktop) sharing a folder
through two real Syncthing instances (scripts/syncthing-pair), each carrying the same server calendar with
its own vdirsyncer (its own home: folder and status) and its own live ticker on the cron path
(`--calendar-job vdirsyncer`). A "Study today" ticked on the phone must silence both within the phone's own
sync + 2 minutes; afterwards nothing flaps between them: the server's items stop changing.
"""
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
import importlib.util  # noqa: E402


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Both folders have a check.py: calendar-check's World and phone, and calendar-first-day's window.
sys.path.insert(0, os.path.join(ROOT, "scripts/calendar-check.d"))
base = load("calendar_check", os.path.join(ROOT, "scripts/calendar-check.d/check.py"))
first_day = load("first_day", os.path.join(HERE, "check.py"))
CheckError = base.CheckError

BOUND = 120


def ok(message):
    print(f"calendar-two-computers: ok — {message}", flush=True)


def main(planner):
    work = tempfile.mkdtemp(prefix="calendar-two.")
    pair = os.path.join(work, "pair")
    server = os.path.join(work, "server")
    tickers, started_pair, started_server = [], False, False
    try:
        r = subprocess.run([os.path.join(ROOT, "scripts/syncthing-pair"), "start", pair], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise CheckError(f"syncthing-pair start: {r.stderr.strip()[-300:]}")
        started_pair = True
        shared = dict(re.findall(r"^(\w+)='([^']*)'", r.stdout, re.M))
        r = subprocess.run([os.path.join(ROOT, "scripts/caldav-server"), "start", server], capture_output=True, text=True, timeout=60)
        started_server = True
        url = re.search(r"^CALDAV_URL='([^']*)'", r.stdout, re.M).group(1)
        now = datetime.datetime.now(datetime.timezone.utc)
        window = first_day.window_around(now)
        computers = []
        for side in ("A", "B"):
            w = base.World(planner, os.path.join(work, side))
            os.makedirs(w.work)
            w.env.update({"TZ": "UTC", "PLANNER_DB": w.db})
            w.url = url
            os.makedirs(os.path.join(w.home, ".config/vdirsyncer"))
            config = base.contrib_config(url)
            w.user = base.user_of_config(config)
            with open(os.path.join(w.home, ".config/vdirsyncer/config"), "w") as f:
                f.write(config)
            with open(os.path.join(w.home, ".config/vdirsyncer/password"), "w") as f:
                f.write("unused\n")
            w.run([planner, "config", "set", "zone", "UTC", "days", "daily", "window", window, "device-name", f"computer-{side}",
                   "sync-folder", shared[f"{side}_FOLDER"], "calendar-folder", w.folder], f"{side}: config set")
            w.vdirsyncer("discover", "planner")
            w.run([planner, "calendar-sync"], f"{side}: calendar-sync")
            log = open(os.path.join(work, f"{side}.tick.log"), "w")
            tickers.append(subprocess.Popen([planner, "tick", "--sink", "stdout", "--calendar-job", shutil.which("vdirsyncer")],
                                            env=w.env, cwd=w.work, stdout=log, stderr=subprocess.STDOUT))
            computers.append(w)
        a, b = computers
        # Both carry the same calendar: the server holds one copy of each item, and the two folders agree byte for byte.
        time.sleep(5)
        names = lambda w: sorted(n for n in os.listdir(w.folder) if n.startswith("planner-"))
        if names(a) != names(b):
            raise CheckError(f"the two folders differ: {len(names(a))} and {len(names(b))} planner files")
        # B's first sync found every item on the server already (A's, as Radicale serves it: reordered): it
        # takes them as its own (the same content), never puts them back as revisions of its own.
        revised = [n for w in (a, b) for n in names(w) if b"SEQUENCE:" in open(os.path.join(w.folder, n), "rb").read()]
        if revised:
            raise CheckError(f"{len(revised)} items were put back as revisions (one computer took the other's copy for an edit), e.g. {revised[0]}")
        ok(f"two computers carry one calendar: the same {len(names(a))} items in both folders, none put back as a revision")
        day = a.sql("SELECT local_date FROM request WHERE kind = 'slot' AND state = 'pending' ORDER BY fire_at_ms LIMIT 1")[0][0]
        ticked = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        a.phone("complete", f"planner-day-{day}", ticked.isoformat())
        began = time.monotonic()
        seen = {}
        while len(seen) < 2:
            for w, side in ((a, "A"), (b, "B")):
                if side not in seen and w.sql("SELECT count(*) FROM app_open WHERE local_date = ?", day)[0][0] > 0 \
                        and w.sql("SELECT count(*) FROM request WHERE local_date = ? AND state = 'pending'", day)[0][0] == 0:
                    seen[side] = time.monotonic() - began
            if time.monotonic() - began > BOUND:
                raise CheckError(f"the phone's tick silenced {sorted(seen)} only within {BOUND} s")
            time.sleep(0.5)
        origins = {side: w.sql("SELECT origin FROM app_open WHERE local_date = ?", day) for w, side in ((a, "A"), (b, "B"))}
        ok(f"a tick on the phone silenced computer A after {seen['A']:.0f} s and B after {seen['B']:.0f} s "
           f"(bound {BOUND} s; opens {origins})")
        # Then nothing flaps: for 70 s (more than a minute's ask), the server's items stay as they are.
        time.sleep(10)
        before = {i["uid"]: i for i in a.items()}
        time.sleep(70)
        after = {i["uid"]: i for i in a.items()}
        changed = [u for u in set(before) | set(after) if before.get(u) != after.get(u)]
        if changed:
            raise CheckError(f"{len(changed)} items on the server changed again after the tick settled, e.g. {sorted(changed)[0]}")
        ok(f"then nothing changed on the server for 70 s ({len(after)} items): the two computers do not rewrite each other")
        # A shared change reaches the other computer within a second: both rewrite the same items and both
        # carry them out within seconds. A round that loses the race (HTTP 412) is tried again at once.
        a.run([planner, "config", "set", "title", "Lesson time"], "A: config set title")
        began = time.monotonic()
        while True:
            items = a.items()
            titled = [i for i in items if i.get("summary") == "Lesson time"]
            events_left = [i for i in items if i.get("kind", "VEVENT") == "VEVENT" and i.get("summary") not in (None, "Lesson time")]
            if titled and not events_left:
                break
            if time.monotonic() - began > 60:
                raise CheckError(f"the new title reached {len(titled)} of the server's items only within 60 s")
            time.sleep(1)
        ok(f"a title changed on A reached the server's {len(titled)} items in {time.monotonic() - began:.0f} s, both computers carrying it")
        for w, side in ((a, "A"), (b, "B")):
            w.run([planner, "calendar-sync"], f"{side}: calendar-sync after the title change")
            status = json.loads(w.run([planner, "status", "--json"], f"{side}: status").stdout)
            if status["calendar_round_failure"] is not None:
                raise CheckError(f"{side}'s calendar job failed after the title change: {status['calendar_round_failure']}")
        ok("and neither computer's calendar job is failing (status --json: calendar_round_failure is null)")
        # The server's calendar emptied elsewhere (another computer's uninstall by a planner before 0.2.0, or
        # by hand): the next round of a computer that still carries it puts every item back.
        count = len(a.items())
        a.phone("empty")
        r = a.run([planner, "calendar-sync"], "A: calendar-sync after the server was emptied")
        back = len(a.items())
        if back != count:
            raise CheckError(f"after the server was emptied, A's round put back {back} of {count} items: {r.stdout.strip()}")
        status = json.loads(a.run([planner, "status", "--json"], "A: status").stdout)
        if status["calendar_round_failure"] is not None:
            raise CheckError(f"A's calendar job fails after the server was emptied: {status['calendar_round_failure']}")
        ok(f"the server's calendar emptied by hand: A's next round put all {back} items back ({r.stdout.strip()})")
        # B retires the documented way (setup --calendar --install, later setup --uninstall; the cron path,
        # its crontab a file): A still carries the calendar (its sync file says so), so the phone keeps its
        # alarms: the server's items stay, and B stops writing its folder.
        shim = os.path.join(work, "B-shim")
        os.makedirs(shim)
        table = os.path.join(work, "B-crontab.txt")
        with open(os.path.join(shim, "crontab"), "w") as f:
            f.write(f"#!/bin/sh\nif [ \"$1\" = -l ]; then [ -f {table} ] && exec cat {table}; echo 'no crontab for you' >&2; exit 1; fi\n"
                    f"[ \"$1\" = - ] && exec cat > {table}\n[ \"$1\" = -r ] && exec rm -f {table}\nexit 2\n")
        os.chmod(os.path.join(shim, "crontab"), 0o755)
        b.env["PATH"] = f"{shim}:/usr/bin:/bin"
        b.env["XDG_RUNTIME_DIR"] = os.path.join(work, "B-no-runtime")
        b.run([planner, "setup", "--calendar", "--install", "--scheduler", "cron"], "B: setup --calendar --install")
        held = len(a.items())
        r = b.run([planner, "setup", "--uninstall"], "B: setup --uninstall")
        said = [line for line in r.stdout.splitlines() if "planner's items" in line]
        if len(a.items()) != held or not said or not said[0].startswith("left the planner's items") or "computer-A" not in said[0]:
            raise CheckError(f"B's setup --uninstall: the server holds {len(a.items())} items, {held} before; it said: {said or r.stdout[-400:]}")
        if json.loads(b.run([planner, "status", "--json"], "B: status").stdout)["calendar_folder"] is not None:
            raise CheckError("B still writes its calendar folder after setup --uninstall")
        a.run([planner, "calendar-sync"], "A: calendar-sync after B's uninstall")
        status = json.loads(a.run([planner, "status", "--json"], "A: status").stdout)
        if status["calendar_round_failure"] is not None or len(a.items()) != held:
            raise CheckError(f"after B's uninstall A's round: {status['calendar_round_failure']}; the server holds {len(a.items())} of {held}")
        ok(f"B's setup --uninstall left the server's {held} items for A (it said: {said[0][:150]}…), and A's next round is clean")
    finally:
        for t in tickers:
            t.terminate()
        for t in tickers:
            try:
                t.wait(timeout=10)
            except subprocess.TimeoutExpired:
                t.kill()
        if started_server:
            subprocess.run([os.path.join(ROOT, "scripts/caldav-server"), "stop", server])
        if started_pair:
            subprocess.run([os.path.join(ROOT, "scripts/syncthing-pair"), "stop", pair])
        if sys.exc_info()[0] is not None:
            for side in ("A", "B"):
                path = os.path.join(work, f"{side}.tick.log")
                if os.path.exists(path):
                    sys.stderr.write(f"--- {side}'s ticker:\n" + open(path, errors="replace").read()[-1500:])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        main(os.path.realpath(sys.argv[1]))
    except CheckError as error:
        print(f"calendar-two-computers: error: {error}", file=sys.stderr)
        sys.exit(1)
