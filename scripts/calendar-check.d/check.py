#!/usr/bin/python3
"""scripts/calendar-check's body (run by it with Debian's /usr/bin/python3, after it installed what it needs).

The path to a phone, end to end, at fixed times in Europe/Berlin around the 25 October 2026 change:
a real Radicale (scripts/caldav-server), real vdirsyncer with contrib/vdirsyncer.config (only its url
changed), the planner binary under test, and phone.py (python3-caldav + python3-icalendar) as the phone.
"""
import datetime
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from zoneinfo import ZoneInfo

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ZONE = "Europe/Berlin"
T0 = "2026-10-22T12:10"   # Thursday: refill, open
T1 = "2026-10-23T10:00"   # Friday: the phone ticked the day at 09:55
T2 = "2026-10-26T09:40"   # Monday after the change: a conflict, the phone's tick wins
OWN_UID = "phone-own-1"
SLOT = re.compile(r"^planner-Noti_AppOpenPromotion_(\d{4})_(\d\d)_(\d\d)_(\d\d)_(\d\d)$")


class CheckError(Exception):
    pass


def ok(message):
    print(f"calendar-check: ok — {message}", flush=True)


def fail(message):
    raise CheckError(message)


class World:
    def __init__(self, planner, work):
        self.planner_binary = planner
        self.work = work
        self.home = os.path.join(work, "home")
        self.db = os.path.join(work, "plan.db")
        self.folder = os.path.join(self.home, ".local/share/planner/calendars/planner")
        self.env = {"HOME": self.home, "TZ": ZONE, "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        self.url = None
        self.user = None

    def run(self, args, what, env=None, input=None, expect_ok=True, timeout=120):
        try:
            r = subprocess.run(args, env={**self.env, **(env or {})}, input=input, capture_output=True, text=True,
                               timeout=timeout, cwd=self.work)
        except subprocess.TimeoutExpired:
            fail(f"{what}: no answer within {timeout} s")
        if expect_ok and r.returncode != 0:
            said = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["(nothing)"])[-1]
            fail(f"{what} exited {r.returncode}: {said}")
        return r

    def planner(self, now, *args):
        return self.run([self.planner_binary, *args, "--db", self.db, "--now", now], f"planner {args[0]} --now {now}")

    def vdirsyncer(self, *args, env=None, expect_ok=True):
        r = self.run(["vdirsyncer", *args], f"vdirsyncer {' '.join(args)}", env=env, input="y\n" * 5,
                     expect_ok=expect_ok)
        if os.environ.get("CALENDAR_CHECK_VERBOSE"):
            sys.stderr.write("".join(f"  vdirsyncer: {l}\n" for l in r.stderr.splitlines() if "Syncing" not in l))
        return r

    def phone(self, *args):
        r = self.run(["/usr/bin/python3", os.path.join(HERE, "phone.py"), self.url, self.user, *args], f"phone {args[0]}")
        return r.stdout

    def items(self):
        return json.loads(self.phone("items"))

    def sql(self, query, *params):
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as c:
            return c.execute(query, params).fetchall()

    def own_bytes(self):
        path = os.path.join(self.folder, OWN_UID + ".ics")
        if not os.path.exists(path):
            fail(f"the user's own event {OWN_UID} is not in the folder")
        with open(path, "rb") as f:
            return f.read()


def local(text):
    return datetime.datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(ZONE))


def utc_text(moment):
    return moment.astimezone(datetime.timezone.utc).isoformat()


def slot_of(uid):
    """The slot a study reminder's UID names, as Python's zoneinfo places it in the plan's zone."""
    m = SLOT.match(uid)
    return None if m is None else datetime.datetime(*map(int, m.groups()), tzinfo=ZoneInfo(ZONE))


def events(items):
    return {i["uid"]: i for i in items if i["kind"] == "VEVENT" and i["uid"].startswith("planner-")}


def tasks(items):
    return {i["uid"]: i for i in items if i["kind"] == "VTODO"}


def later_events_of(items, day, after):
    return sorted(uid for uid in events(items) if slot_of(uid) and slot_of(uid).date().isoformat() == day
                  and slot_of(uid) > after)


def contrib_config(url, resolution=True):
    with open(os.path.join(ROOT, "contrib/vdirsyncer.config")) as f:
        text = f.read()
    placeholder = 'url = "https://dav.example.com/"\n'
    if text.count(placeholder) != 1:
        fail("contrib/vdirsyncer.config has no single `url = \"https://dav.example.com/\"` line to point at the server")
    text = text.replace(placeholder, f'url = "{url}"\n')
    if not resolution:
        line = 'conflict_resolution = "b wins"\n'
        if text.count(line) != 1:
            fail("contrib/vdirsyncer.config has no single `conflict_resolution = \"b wins\"` line")
        text = text.replace(line, "")
    return text


def user_of_config(text):
    m = re.search(r'^username = "([^"]*)"', text, re.M)
    return m.group(1)


def check_refilled(w, items):
    evs = events(items)
    if not evs:
        fail("the server holds no planner event after refill + vdirsyncer sync")
    days = set()
    for uid, e in evs.items():
        slot = slot_of(uid)
        if slot is None:
            continue  # a one-off (none in this plan)
        days.add(slot.date().isoformat())
        if e.get("dtstart_tzid") != ZONE or ZONE not in e["vtimezones"]:
            fail(f"{uid}: DTSTART's TZID is {e.get('dtstart_tzid')!r}, VTIMEZONEs {e['vtimezones']} (expected {ZONE})")
        if e.get("dtstart") != utc_text(slot):
            fail(f"{uid}: DTSTART is {e.get('dtstart')} UTC, zoneinfo puts {slot.isoformat()} at {utc_text(slot)}")
        alarms = e["alarms"]
        if len(alarms) != 1 or alarms[0]["action"] != "DISPLAY" or alarms[0]["trigger_s"] != 0 \
                or alarms[0]["related"] != "START" or not alarms[0]["description"]:
            fail(f"{uid}: alarms {alarms} (expected one ACTION:DISPLAY with a DESCRIPTION, TRIGGER 0 from START)")
    pending = {row[0] for row in w.sql("SELECT identifier FROM pending_requests WHERE kind = 'slot'")}
    missing = sorted("planner-" + p for p in pending if "planner-" + p not in evs)
    if missing:
        fail(f"{len(missing)} pending reminders have no event on the server, e.g. {missing[0]}")
    if "2026-10-26" not in days or "2026-10-22" not in days:
        fail(f"the events' days {sorted(days)} do not span 2026-10-22 to after the 25 October change")
    ts = tasks(items)
    for day in days:
        t = ts.get(f"planner-day-{day}")
        if t is None:
            fail(f"no 'Study today' task for {day} on the server")
        if t["status"] != "NEEDS-ACTION" or t.get("due_tzid") != ZONE:
            fail(f"planner-day-{day}: STATUS {t['status']}, DUE's TZID {t.get('due_tzid')!r}")
    winter = evs.get("planner-Noti_AppOpenPromotion_2026_10_26_09_30")
    ok(f"the server holds {len(evs)} events on {len(days)} days ({min(days)} to {max(days)}) each with one DISPLAY "
       f"alarm at the slot's time (26 Oct 09:30 = {winter and winter['dtstart']} UTC, after the change), "
       f"all {len(pending)} pending reminders among them, and {len(ts)} 'Study today' tasks")
    return evs


def check_opened(w, before, items, day, opened_at, what):
    evs = events(items)
    left = later_events_of(items, day, opened_at)
    if left:
        fail(f"after {what} and a sync, {len(left)} later events of {day} are still on the server, e.g. {left[0]}")
    gone = [uid for uid in before if uid not in evs]
    other_days = [uid for uid in gone if slot_of(uid) and slot_of(uid).date().isoformat() != day]
    if other_days:
        fail(f"after {what}, events of other days went too, e.g. {other_days[0]}")
    task = tasks(items).get(f"planner-day-{day}")
    if task is None or task["status"] != "COMPLETED":
        fail(f"after {what}, the task planner-day-{day} on the server is {task and task['status']} (expected COMPLETED)")
    if task.get("completed") != utc_text(opened_at):
        fail(f"planner-day-{day}: COMPLETED {task.get('completed')}, the open was at {utc_text(opened_at)}")
    return len(gone)


def main(planner):
    work = tempfile.mkdtemp(prefix="calendar-check.")
    w = World(planner, work)
    server = os.path.join(work, "server")
    started = False
    try:
        r = w.run([os.path.join(ROOT, "scripts/caldav-server"), "start", server], "caldav-server start")
        started = True
        w.url = re.search(r"^CALDAV_URL='([^']*)'", r.stdout, re.M).group(1)
        os.makedirs(os.path.join(w.home, ".config/vdirsyncer"))
        config = contrib_config(w.url)
        w.user = user_of_config(config)
        with open(os.path.join(w.home, ".config/vdirsyncer/config"), "w") as f:
            f.write(config)
        with open(os.path.join(w.home, ".config/vdirsyncer/password"), "w") as f:
            f.write("unused\n")
        os.chmod(os.path.join(w.home, ".config/vdirsyncer/password"), 0o600)
        os.makedirs(w.folder)

        # 1. Refill writes the folder; vdirsyncer (contrib's config) makes the calendar and uploads it all.
        w.planner(T0, "config", "set", "calendar-folder", w.folder)
        w.planner(T0, "refill")
        w.vdirsyncer("discover", "planner")
        w.vdirsyncer("sync")
        refilled = check_refilled(w, w.items())

        # 2. The user's own event, made on the phone, comes into the folder.
        w.phone("add", OWN_UID)
        w.vdirsyncer("sync")
        own = w.own_bytes()
        ok(f"the user's own event made on the phone is in the folder ({OWN_UID}.ics, {len(own)} bytes)")

        # 3. An open on the computer: today's later events leave the server, today's task is ticked there.
        w.planner(T0, "open")
        w.vdirsyncer("sync")
        gone = check_opened(w, refilled, w.items(), T0[:10], local(T0), "planner open")
        ok(f"planner open + vdirsyncer sync: {gone} later events of {T0[:10]} gone from the server, its task COMPLETED at the open")
        if w.own_bytes() != own:
            fail("the user's own event changed in the folder after planner open")

        # 4. The phone ticks Friday off: vdirsyncer brings it in, `planner sync` opens that day.
        before = events(w.items())
        ticked = "2026-10-23T09:55"
        w.phone("complete", "planner-day-2026-10-23", local(ticked).isoformat())
        w.vdirsyncer("sync")
        w.planner(T1, "sync")
        opens = w.sql("SELECT origin, opened_at_ms FROM app_open WHERE local_date = '2026-10-23'")
        if opens != [("calendar", int(local(ticked).timestamp() * 1000))]:
            fail(f"after the phone's tick and planner sync, app_open for 2026-10-23 is {opens} (expected one, origin calendar, at {ticked})")
        pending = w.sql("SELECT count(*) FROM request WHERE local_date = '2026-10-23' AND state = 'pending'")[0][0]
        cancelled = w.sql("SELECT count(*) FROM request WHERE local_date = '2026-10-23' AND state = 'cancelled'")[0][0]
        if pending or not cancelled:
            fail(f"2026-10-23 still has {pending} pending reminders ({cancelled} cancelled) after the phone's tick")
        ok(f"the phone ticked 'Study today' (23 Oct 09:55) + vdirsyncer sync + planner sync: that day opened in the planner "
           f"(app_open origin calendar at 09:55), its {cancelled} reminders cancelled")
        w.vdirsyncer("sync")
        left = later_events_of(w.items(), "2026-10-23", local(ticked))
        if left:
            fail(f"the next vdirsyncer sync left {len(left)} later events of 2026-10-23 on the server, e.g. {left[0]}")
        ok(f"the next vdirsyncer sync removed 2026-10-23's later events from the server "
           f"({len([u for u in before if u not in events(w.items())])} gone)")
        if w.own_bytes() != own:
            fail("the user's own event changed in the folder after the phone's tick was applied")

        # 5. Both sides change: the phone ticks Monday off and moves a Tuesday event while the computer changes
        #    the window (which rewrites every task's DUE). Without conflict_resolution vdirsyncer stops.
        moved = "planner-Noti_AppOpenPromotion_2026_10_27_10_00"
        w.phone("move", moved, "45")
        ticked = "2026-10-26T09:35"
        w.phone("complete", "planner-day-2026-10-26", local(ticked).isoformat())
        task_file = os.path.join(w.folder, "planner-day-2026-10-26.ics")
        with open(task_file, "rb") as f:
            task_before = f.read()
        w.planner(T2, "config", "set", "window", "09:30-21:00")
        with open(task_file, "rb") as f:
            if f.read() == task_before:
                fail("planner config set window did not rewrite planner-day-2026-10-26.ics: no conflict to show")
        strict = os.path.join(work, "strict.config")
        with open(strict, "w") as f:
            f.write(contrib_config(w.url, resolution=False))
        r = w.vdirsyncer("sync", env={"VDIRSYNCER_CONFIG": strict}, expect_ok=False)
        said = [line for line in r.stderr.splitlines() if "changed on both sides" in line]
        if r.returncode == 0 or not said or "Item ID: planner-day-2026-10-26" not in r.stderr:
            fail(f"without conflict_resolution vdirsyncer exited {r.returncode} and did not name the conflict: {r.stderr.strip()[-300:]}")
        ok(f"without conflict_resolution vdirsyncer stops on planner-day-2026-10-26 (exit {r.returncode}): {said[0].strip()}")
        w.vdirsyncer("sync")
        with open(task_file) as f:
            if "STATUS:COMPLETED" not in f.read():
                fail("with conflict_resolution = \"b wins\" the phone's tick did not come into the folder")
        w.planner(T2, "sync")
        opens = w.sql("SELECT origin, opened_at_ms FROM app_open WHERE local_date = '2026-10-26'")
        if opens != [("calendar", int(local(ticked).timestamp() * 1000))]:
            fail(f"the tick that won the conflict did not open 2026-10-26: app_open {opens}")
        w.vdirsyncer("sync")
        items = w.items()
        left = later_events_of(items, "2026-10-26", local(ticked))
        if left:
            fail(f"2026-10-26's later events are still on the server after the tick won, e.g. {left[0]}")
        ok("with conflict_resolution = \"b wins\" the phone's tick survives the planner's rewrite: 26 Oct opened "
           "(origin calendar at 09:35), its later events gone from the server")
        e = events(items).get(moved)
        if e is None or e.get("dtstart") != utc_text(slot_of(moved)):
            fail(f"the event the phone moved is at {e and e.get('dtstart')} UTC on the server, the plan says {utc_text(slot_of(moved))}")
        ok("an event moved on the phone is put back at the planned time (27 Oct 10:00) by the next planner sync: "
           "the plan wins")

        # 6. A tick that arrives while the planner rewrites the folder (issue 29): vdirsyncer renames the ticked
        #    task in while `config set window` rewrites every task of the folder. Whichever lands first, the
        #    tick is applied and the server keeps it COMPLETED.
        for n, day in enumerate(["2026-10-28", "2026-10-29", "2026-10-30"]):
            now, ticked = f"{day}T10:00", f"{day}T09:50"
            w.phone("complete", f"planner-day-{day}", local(ticked).isoformat())
            window = "09:30-21:15" if n % 2 == 0 else "09:30-21:00"
            rewrite = subprocess.Popen([w.planner_binary, "config", "set", "window", window, "--db", w.db, "--now", now],
                                       env=w.env, cwd=w.work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            w.vdirsyncer("sync")
            if rewrite.wait(timeout=60) != 0:
                fail(f"planner config set window --now {now} failed")
            w.planner(now, "sync")
            w.vdirsyncer("sync")
            opened = w.sql("SELECT origin FROM app_open WHERE local_date = ?", day)
            task = tasks(w.items()).get(f"planner-day-{day}")
            if opened != [("calendar",)] or not task or task.get("status") != "COMPLETED":
                fail(f"a tick that came in during a rewrite was lost on {day}: app_open {opened}, the server's task "
                     f"{task and task.get('status')}")
        ok("a tick vdirsyncer brought in while the planner rewrote the folder (3 days): each day opened from the "
           "calendar, its task still COMPLETED on the server")
        if w.own_bytes() != own:
            fail("the user's own event changed in the folder")
        leftovers = [n for n in os.listdir(w.folder) if n.startswith(".planner-")]
        if leftovers:
            fail(f"temporary files left in the folder: {leftovers}")
        ok(f"the user's own event is byte-identical in the folder after every step; no temporary file left")
    finally:
        if started:
            subprocess.run([os.path.join(ROOT, "scripts/caldav-server"), "stop", server])
        if sys.exc_info()[0] is not None and os.path.exists(os.path.join(server, "radicale.log")):
            with open(os.path.join(server, "radicale.log"), errors="replace") as f:
                tail = [l for l in f.readlines() if "WARNING" in l or "ERROR" in l][-5:]
            if tail:
                sys.stderr.write("--- Radicale's last warnings:\n" + "".join(tail))
        if os.environ.get("CALENDAR_CHECK_KEEP"):
            print(f"calendar-check: kept {work} (CALENDAR_CHECK_KEEP)", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: calendar-check PLANNER_BINARY", file=sys.stderr)
        sys.exit(64)
    try:
        main(os.path.realpath(sys.argv[1]))
    except CheckError as error:
        print(f"calendar-check: error: {error}", file=sys.stderr)
        sys.exit(1)
