#!/usr/bin/python3
"""scripts/calendar-first-day's body (issue 30): a new user's first day with the phone, on the cron path (no
systemd user manager), in the order docs/phone.md gives, against a real Radicale and a real vdirsyncer, with
the live ticker started exactly as the autostart entry setup wrote says. Measured and checked:

1. `config set calendar-folder` makes the folder; `vdirsyncer discover planner` then asks one question;
2. `setup --calendar --install` fills the server at once (no cron round), and says how many items went up;
3. a "Study today" ticked on the phone silences the computer within the bounds docs/phone.md states
   (the ticker asks the server once a minute while the day is not yet opened): the day opened (origin
   calendar), its later reminders cancelled, and their events gone from the server;
4. a change on the computer (a new title) reaches the server within seconds (the ticker carries it);
5. `setup --uninstall` with the folder not mounted leaves the server alone; with it, no planner item is
   left on the server and the user's own event stays.

The plan's window is put around the real clock (the ticker follows it), in UTC.
"""
import datetime
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts/calendar-check.d"))
import check as base  # noqa: E402  (World, the phone, contrib's config)

OWN_UID = "phone-own-first-day"
# What docs/phone.md promises, checked here (seconds).
PULL_BOUND = 120     # a tick on the phone, once on the server, silences the computer within this
PUSH_BOUND = 15      # a change on the computer reaches the server within this
SETUP_BOUND = 60     # the server holds the plan this long after setup --calendar --install began


def ok(message):
    print(f"calendar-first-day: ok — {message}", flush=True)


def fail(message):
    raise base.CheckError(message)


def window_around(now):
    """A window from the half hour at least 60 min before now to 3 h after it (it may cross midnight)."""
    start = (now - datetime.timedelta(minutes=60)).replace(second=0, microsecond=0)
    start -= datetime.timedelta(minutes=start.minute % 30)
    end = start + datetime.timedelta(hours=4)
    return f"{start:%H:%M}-{end:%H:%M}"


def wait_for(what, bound, test, every=0.5):
    began = time.monotonic()
    while True:
        result = test()
        if result:
            return time.monotonic() - began, result
        if time.monotonic() - began > bound:
            fail(f"{what}: not within {bound} s")
        time.sleep(every)


def main(planner):
    work = tempfile.mkdtemp(prefix="calendar-first-day.")
    w = base.World(planner, work)
    w.env["TZ"] = "UTC"
    server = os.path.join(work, "server")
    shim = os.path.join(work, "bin")
    ticker = None
    started = False
    try:
        r = w.run([os.path.join(ROOT, "scripts/caldav-server"), "start", server], "caldav-server start")
        started = True
        w.url = re.search(r"^CALDAV_URL='([^']*)'", r.stdout, re.M).group(1)
        os.makedirs(os.path.join(w.home, ".config/vdirsyncer"))
        config = base.contrib_config(w.url)
        w.user = base.user_of_config(config)
        with open(os.path.join(w.home, ".config/vdirsyncer/config"), "w") as f:
            f.write(config)
        with open(os.path.join(w.home, ".config/vdirsyncer/password"), "w") as f:
            f.write("unused\n")
        os.chmod(os.path.join(w.home, ".config/vdirsyncer/password"), 0o600)
        # The cron path: no systemctl on PATH, and a crontab that keeps the table in a file (this check must
        # not edit the machine's real crontab; setup-check runs the real cron).
        os.makedirs(shim)
        table = os.path.join(work, "crontab.txt")
        with open(os.path.join(shim, "crontab"), "w") as f:
            f.write(f"#!/bin/sh\nif [ \"$1\" = -l ]; then [ -f {table} ] && exec cat {table}; echo 'no crontab for you' >&2; exit 1; fi\n"
                    f"[ \"$1\" = - ] && exec cat > {table}\n[ \"$1\" = -r ] && exec rm -f {table}\nexit 2\n")
        os.chmod(os.path.join(shim, "crontab"), 0o755)
        w.env["PATH"] = f"{shim}:/usr/bin:/bin"
        w.env["XDG_RUNTIME_DIR"] = os.path.join(work, "no-runtime")
        w.env["PLANNER_DB"] = w.db
        now = datetime.datetime.now(datetime.timezone.utc)

        # 1. The documented order: the folder is set before it exists; the planner makes it.
        r = w.run([planner, "config", "set", "zone", "UTC", "days", "daily", "window", window_around(now),
                   "calendar-folder", w.folder], "planner config set calendar-folder")
        if r.stderr.strip():
            fail(f"config set calendar-folder said: {r.stderr.strip()}")
        if not os.path.isdir(w.folder):
            fail(f"config set calendar-folder did not make {w.folder}")
        r = w.vdirsyncer("discover", "planner")
        asked = (r.stdout + r.stderr).count("Should vdirsyncer attempt to create it?")
        if asked != 1:
            fail(f"vdirsyncer discover asked {asked} times (expected once: the server's side only)")
        ok(f"config set calendar-folder made the folder; vdirsyncer discover asked once (to create the server's calendar)")
        w.phone("add", OWN_UID)

        # 2. setup --calendar --install: the server holds the plan when it returns.
        began = time.monotonic()
        r = w.run([planner, "setup", "--calendar", "--install", "--scheduler", "cron"], "planner setup --calendar --install")
        took = time.monotonic() - began
        said = re.search(r"calendar synced with the server: vdirsyncer copied (\d+) item", r.stdout)
        if not said:
            fail(f"setup --calendar --install did not say the first sync: {r.stdout.strip()[-400:]}")
        files = [n for n in os.listdir(w.folder) if n.startswith("planner-") and n.endswith(".ics")]
        items = w.items()
        ours = [i for i in items if i["uid"].startswith("planner-")]
        if len(ours) != len(files) or took > SETUP_BOUND:
            fail(f"after setup ({took:.1f} s) the server holds {len(ours)} planner items, the folder {len(files)}")
        # What the phone shows is what the folder says: every reminder once (today's events, the later days'
        # series expanded: calendar-check.d/occurrences.py), at the same instant, with the same text and alarm.
        mine, shown = base.folder_reminders(w), base.reminders(items, once=True)
        differ = sorted(k for k in set(mine) | set(shown) if k not in mine or k not in shown or base.seen(mine[k]) != base.seen(shown[k]))
        if differ or not shown:
            fail(f"the server shows {len(shown)} reminders, the folder holds {len(mine)}; {len(differ)} differ, e.g. {differ[:1]}")
        with open(table) as f:
            cron = f.read()
        if " calendar-sync --quiet " not in cron:
            fail(f"the crontab has no calendar-sync line: {cron}")
        ok(f"setup --calendar --install took {took:.1f} s and left the server holding all {len(ours)} planner items "
           f"({len(shown)} reminders when expanded, {sum(o['series'] for o in shown.values())} of them series' occurrences, "
           f"as the folder has them) (it said: vdirsyncer copied {said.group(1)}); the cron line every 15 minutes is the "
           f"fallback when no ticker runs")

        # 3. The live ticker as the autostart entry starts it.
        with open(os.path.join(w.home, ".config/autostart/planner-tick.desktop")) as f:
            exec_line = next(l for l in f.read().splitlines() if l.startswith("Exec="))[5:]
        argv = shlex.split(exec_line)
        if "--calendar-job" not in argv:
            fail(f"the autostart entry does not carry the calendar: {exec_line}")
        log = open(os.path.join(work, "ticker.log"), "w")
        ticker = subprocess.Popen(argv + ["--sink", "stdout"], env=w.env, cwd=work, stdout=log, stderr=subprocess.STDOUT)
        day = w.sql("SELECT local_date FROM request WHERE kind = 'slot' AND state = 'pending' ORDER BY fire_at_ms LIMIT 1")[0][0]
        ticked = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        time.sleep(3)  # the ticker's first run has started (it asks at once inside the window)
        w.phone("complete", f"planner-day-{day}", ticked.isoformat())
        pulled, _ = wait_for("the phone's tick opening the day on the computer", PULL_BOUND,
                             lambda: w.sql("SELECT origin FROM app_open WHERE local_date = ?", day) == [("calendar",)])
        pending = w.sql("SELECT count(*) FROM request WHERE local_date = ? AND state = 'pending'", day)[0][0]
        if pending:
            fail(f"{day} opened from the phone but {pending} of its reminders are still pending")

        def later_gone():
            # The day's reminders a calendar app shows (calendar-check.d/occurrences.py: today's are events of
            # their own; a series' occurrence would count too), by the per-slot UID each is named by.
            left = [key for key, o in base.reminders(w.items()).items()
                    if key.startswith(f"planner-Noti_AppOpenPromotion_{day.replace('-', '_')}") and o["start"] > ticked.isoformat()]
            return not left
        cleared, _ = wait_for("the day's later events leaving the server", PUSH_BOUND + 5, later_gone, every=1)
        ok(f"a tick of 'Study today' on the phone opened {day} on the computer {pulled:.0f} s after it reached the "
           f"server (bound {PULL_BOUND} s: one ask a minute), and the day's later events left the server {cleared:.0f} s later")

        # 4. A change on the computer goes out within seconds.
        title = "Time for Korean"
        w.run([planner, "config", "set", "title", title], "planner config set title")
        pushed, _ = wait_for("the new title reaching the server", PUSH_BOUND,
                             lambda: any(i.get("summary") == title for i in w.items() if i["kind"] == "VEVENT"), every=1)
        ok(f"a new title set on the computer reached the server's events in {pushed:.1f} s (bound {PUSH_BOUND} s)")
        ticker.send_signal(signal.SIGTERM)
        ticker.wait(timeout=10)
        ticker = None

        # 5. Uninstall with the folder not there (an unmounted mount point: an empty folder in its place): the
        #    server is left alone — before, vdirsyncer was forced and emptied the server, the user's own included.
        os.rename(w.folder, w.folder + ".away")
        os.mkdir(w.folder)
        held = len(w.items())
        r = w.run([planner, "setup", "--uninstall"], "planner setup --uninstall (folder not mounted)")
        if len(w.items()) != held or OWN_UID not in [i["uid"] for i in w.items()]:
            fail(f"setup --uninstall with an empty folder changed the server: {held} items before, {len(w.items())} after; it said: {r.stdout.strip()[-600:]}")
        os.rmdir(w.folder)
        os.rename(w.folder + ".away", w.folder)
        ok(f"setup --uninstall with the folder not mounted left the server's {held} items alone "
           f"(it said: {[l for l in r.stdout.splitlines() if 'calendar folder' in l][:1]})")
        w.run([planner, "setup", "--calendar", "--install", "--scheduler", "cron"], "planner setup --calendar --install (again)")

        # 6. Uninstall: the phone stops ringing; the user's own event stays.
        r = w.run([planner, "setup", "--uninstall"], "planner setup --uninstall")
        left = [i["uid"] for i in w.items() if i["uid"].startswith("planner-")]
        own = [i["uid"] for i in w.items() if i["uid"] == OWN_UID]
        if left or not own:
            fail(f"after setup --uninstall the server holds {len(left)} planner items (e.g. {left[:1]}) and the user's own: {own}; "
                 f"setup said: {r.stdout.strip()[-500:]}")
        said = [l for l in r.stdout.splitlines() if "of the planner's items" in l]
        ok(f"setup --uninstall took every planner item off the server, the user's own event stayed (it said: {said[:1]})")
    finally:
        if ticker is not None:
            ticker.kill()
        if started:
            subprocess.run([os.path.join(ROOT, "scripts/caldav-server"), "stop", server])
        if sys.exc_info()[0] is not None:
            path = os.path.join(work, "ticker.log")
            if os.path.exists(path):
                sys.stderr.write("--- the ticker's log:\n" + open(path, errors="replace").read()[-3000:])
        if os.environ.get("CALENDAR_CHECK_KEEP"):
            print(f"calendar-first-day: kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        main(os.path.realpath(sys.argv[1]))
    except base.CheckError as error:
        print(f"calendar-first-day: error: {error}", file=sys.stderr)
        sys.exit(1)
