#!/usr/bin/python3
"""scripts/calendar-check's body (run by it with Debian's /usr/bin/python3, after it installed what it needs).

The path to a phone, end to end, at fixed times in Europe/Berlin around the 25 October 2026 change:
a real Radicale (scripts/caldav-server), real vdirsyncer with contrib/vdirsyncer.config (only its url
changed), the planner binary under test, and phone.py (python3-caldav + python3-icalendar) as the phone.

Everything asserted about study reminders is asserted on what a calendar app shows: the expansion
(occurrences.py, the independent oracle) of today's events of their own and of every occurrence of every
`planner-series-HHMM` (the later study days), each named by the per-slot UID it had as an event of its own.
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
sys.path.insert(0, HERE)
import occurrences  # noqa: E402  (the expansion every reminder is checked on)

ZONE = "Europe/Berlin"
T0 = "2026-10-22T12:10"   # Thursday: refill, open
T1 = "2026-10-23T10:00"   # Friday: the phone ticked the day at 09:55
T2 = "2026-10-26T09:40"   # Monday after the change: a conflict, the phone's tick wins
OWN_UID = "phone-own-1"


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
    """The slot a study reminder's per-slot UID names, as Python's zoneinfo places it in the plan's zone."""
    return occurrences.slot_of(uid, ZONE)


def events(items):
    """The planner's VEVENTs as the server holds them (items: an event of its own or a series), by UID: an
    override of one occurrence (RECURRENCE-ID, a phone's "this event only" edit) is among its series' occurrences."""
    return {i["uid"]: i for i in items if i["kind"] == "VEVENT" and i["uid"].startswith("planner-") and not i.get("override")}


def reminders(items, once=False):
    """Every reminder of the planner's a calendar app shows, by its per-slot UID (occurrences.py): today's
    events of their own and each occurrence of each series. `once`: fail on a reminder shown twice."""
    broken = [(i["uid"], i["occurrences_error"]) for i in events(items).values() if i.get("occurrences_error")]
    if broken:
        fail(f"{len(broken)} planner events cannot be expanded as RFC 5545 says, e.g. {broken[0][0]}: {broken[0][1]}")
    found, twice = occurrences.flatten(events(items).values())
    if once and twice:
        fail(f"{len(twice)} reminders are shown twice (an event of its own and a series' occurrence?), e.g. {twice[0]}")
    return found


def folder_reminders(w, uid_prefix="planner-"):
    """The same expanded from the planner's own files in the folder (not through the server)."""
    found = {}
    for name in sorted(os.listdir(w.folder)):
        if name.startswith(uid_prefix) and name.endswith(".ics") and not name.startswith("planner-day-"):
            with open(os.path.join(w.folder, name), "rb") as f:
                try:
                    found.update({o["key"]: o for o in occurrences.expand_text(f.read())})
                except occurrences.FormatError as error:
                    fail(f"{name} in the folder cannot be expanded: {error}")
    return found


def seen(o):
    """What a reminder is to the person: when, what it says, how it rings."""
    return o["start"], o["summary"], o["description"], json.dumps(o["alarms"], sort_keys=True)


def tasks(items):
    return {i["uid"]: i for i in items if i["kind"] == "VTODO"}


def later_events_of(items, day, after):
    """The reminders of `day` (the slot's own date) after `after` a calendar app shows, standalone or not."""
    return sorted(key for key in reminders(items) if slot_of(key) and slot_of(key).date().isoformat() == day
                  and slot_of(key) > after)


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
    rem = reminders(items, once=True)
    if not rem:
        fail("the server holds no planner reminder after refill + vdirsyncer sync")
    today = T0[:10]
    days, own, in_series = set(), 0, 0
    for key, o in rem.items():
        slot = slot_of(key)
        if slot is None:
            continue  # a one-off (none in this plan)
        where = f"{key} ({'an occurrence of ' + o['uid'] if o['series'] else 'an event of its own'})"
        days.add(slot.date().isoformat())
        if o["tzid"] != ZONE or ZONE not in o["vtimezones"]:
            fail(f"{where}: DTSTART's TZID is {o['tzid']!r}, VTIMEZONEs {o['vtimezones']} (expected {ZONE})")
        if o["start"] != utc_text(slot):
            fail(f"{where}: starts at {o['start']} UTC, zoneinfo puts {slot.isoformat()} at {utc_text(slot)}")
        alarms = o["alarms"]
        if len(alarms) != 1 or alarms[0]["action"] != "DISPLAY" or alarms[0]["trigger_s"] != 0 \
                or alarms[0]["related"] != "START" or not alarms[0]["description"]:
            fail(f"{where}: alarms {alarms} (expected one ACTION:DISPLAY with a DESCRIPTION, TRIGGER 0 from START)")
        if o["duration_s"] != 300:
            fail(f"{where}: lasts {o['duration_s']} s (DURATION:PT5M expected)")
        # Today's study day: an event per slot, as before; a later day's: its time's series, unless the zone's
        # offset changes within a day of it or between today and it (then an event of its own).
        wanted = occurrences.expected_series(slot, datetime.date.fromisoformat(today), ZONE)
        if slot.date().isoformat() <= today and o["series"]:
            fail(f"{where}: a reminder of today's study day ({today}) in a series (expected an event of its own)")
        if slot.date().isoformat() > today and not o["series"] and wanted is not None:
            fail(f"{where}: a later day's reminder as an event of its own (expected an occurrence of {wanted})")
        if o["series"] and o["uid"] != wanted:
            fail(f"{where}: in {o['uid']} (expected {wanted or 'an event of its own: within a day of a clock change'})")
        in_series += o["series"]
        own += not o["series"]
    # The planner's own words: every pending reminder is shown at its planned instant with its text.
    pending = {row[0]: row[1:] for row in w.sql(
        "SELECT identifier, fire_at_ms, title, body FROM pending_requests WHERE kind = 'slot'")}
    missing = sorted("planner-" + p for p in pending if "planner-" + p not in rem)
    if missing:
        fail(f"{len(missing)} pending reminders are not shown by the server's calendar, e.g. {missing[0]}")
    for p, (fire_at_ms, title, body) in sorted(pending.items()):
        o = rem["planner-" + p]
        planned = utc_text(datetime.datetime.fromtimestamp(fire_at_ms / 1000, datetime.timezone.utc))
        if (o["start"], o["summary"], o["description"]) != (planned, title, body):
            fail(f"planner-{p} ({o['uid']}): shown at {o['start']} as {o['summary']!r} / {o['description']!r}; "
                 f"the planner planned it at {planned} as {title!r} / {body!r}")
    if "2026-10-26" not in days or "2026-10-22" not in days:
        fail(f"the reminders' days {sorted(days)} do not span 2026-10-22 to after the 25 October change")
    if not in_series:
        fail("no reminder of a later study day is in a planner-series-HHMM event")
    # The folder as the planner wrote it: each series in the documented form; the server shows the same.
    series_files = sorted(n for n in os.listdir(w.folder) if n.startswith("planner-series-") and n.endswith(".ics"))
    for name in series_files:
        with open(os.path.join(w.folder, name), "rb") as f:
            problems = occurrences.series_problems(f.read(), ZONE)
        if problems:
            fail(f"{name} in the folder: {'; '.join(problems)}")
    mine = folder_reminders(w)
    differ = sorted(k for k in set(mine) | set(rem) if k not in mine or k not in rem or seen(mine[k]) != seen(rem[k]))
    if differ:
        k = differ[0]
        fail(f"{len(differ)} reminders differ between the folder and the server, e.g. {k}: folder "
             f"{mine.get(k) and seen(mine[k])}, server {rem.get(k) and seen(rem[k])}")
    ts = tasks(items)
    bare = sorted(uid[len("planner-day-"):] for uid in ts if uid.startswith("planner-day-") and uid[len("planner-day-"):] not in days)
    if bare:
        fail(f"no reminder is shown on {len(bare)} study days with a 'Study today' task, e.g. {bare[0]} (a series cut short?)")
    for day in days:
        t = ts.get(f"planner-day-{day}")
        if t is None:
            fail(f"no 'Study today' task for {day} on the server")
        if t["status"] != "NEEDS-ACTION" or t.get("due_tzid") != ZONE:
            fail(f"planner-day-{day}: STATUS {t['status']}, DUE's TZID {t.get('due_tzid')!r}")
    winter = rem.get("planner-Noti_AppOpenPromotion_2026_10_26_09_30")
    ok(f"the server holds {len(evs)} planner events ({own} reminders of their own, {len(series_files)} series with "
       f"{in_series} occurrences): {len(rem)} reminders on {len(days)} days ({min(days)} to {max(days)}), each once, with "
       f"one DISPLAY alarm at the slot's time (26 Oct 09:30 = {winter and winter['start']} UTC, "
       f"{winter and winter['uid']}, after the change), the same as the folder's; all {len(pending)} pending reminders "
       f"among them at their planned instants; the series in the documented form; {len(ts)} 'Study today' tasks")
    return rem


def check_opened(w, before, items, day, opened_at, what):
    rem = reminders(items)
    left = later_events_of(items, day, opened_at)
    if left:
        fail(f"after {what} and a sync, {len(left)} later reminders of {day} are still on the server, e.g. {left[0]}")
    gone = [key for key in before if key not in rem]
    other_days = [key for key in gone if slot_of(key) and slot_of(key).date().isoformat() != day]
    if other_days:
        fail(f"after {what}, reminders of other days went too, e.g. {other_days[0]} ({before[other_days[0]]['uid']})")
    # The later days' reminders (the series' occurrences) are all still shown, as they were.
    later = [key for key in before if slot_of(key) and slot_of(key).date().isoformat() > day]
    changed = [key for key in later if seen(rem[key]) != seen(before[key])]
    if not later or changed:
        fail(f"after {what}, {len(later)} reminders of later days, {len(changed)} of them changed "
             f"(e.g. {changed[:1] and (changed[0], seen(rem[changed[0]]), seen(before[changed[0]]))})")
    task = tasks(items).get(f"planner-day-{day}")
    if task is None or task["status"] != "COMPLETED":
        fail(f"after {what}, the task planner-day-{day} on the server is {task and task['status']} (expected COMPLETED)")
    if task.get("completed") != utc_text(opened_at):
        fail(f"planner-day-{day}: COMPLETED {task.get('completed')}, the open was at {utc_text(opened_at)}")
    return len(gone), len(later)


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
        gone, later = check_opened(w, refilled, w.items(), T0[:10], local(T0), "planner open")
        ok(f"planner open + vdirsyncer sync: {gone} later reminders of {T0[:10]} gone from the server, its task COMPLETED "
           f"at the open; the {later} reminders of the later days (the series' occurrences) still shown as they were")
        if w.own_bytes() != own:
            fail("the user's own event changed in the folder after planner open")

        # 4. The phone ticks Friday off: vdirsyncer brings it in, `planner sync` opens that day.
        before = reminders(w.items())
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
            fail(f"the next vdirsyncer sync left {len(left)} later reminders of 2026-10-23 on the server, e.g. {left[0]}")
        ok(f"the next vdirsyncer sync removed 2026-10-23's later reminders from the server "
           f"({len([k for k in before if k not in reminders(w.items())])} gone)")
        if w.own_bytes() != own:
            fail("the user's own event changed in the folder after the phone's tick was applied")

        # 5. Both sides change: the phone ticks Monday off and moves a Tuesday event while the computer changes
        #    the window (which rewrites every task's DUE). Without conflict_resolution vdirsyncer stops.
        #    27 Oct is a later day of the planner's last write (23 Oct, T1): its 10:00 is an occurrence of the
        #    series planner-series-1000, which the phone moves whole, as its "all events" edit does (an event of
        #    its own, were it one, alone).
        moved = "planner-Noti_AppOpenPromotion_2026_10_27_10_00"
        planned = reminders(w.items()).get(moved)
        if planned is None:
            fail(f"no reminder {moved} on the server for the phone to move")
        holder = planned["uid"]
        w.phone("move", holder, "45")
        after_move = reminders(w.items()).get(moved)
        if after_move is not None and after_move["start"] == planned["start"]:
            fail(f"the phone's move of {holder} left {moved} where it was")
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
        # The moved series conflicts too when the window's change rewrote it (its first date moved to 27 Oct).
        conflicts = sorted(set(re.findall(r"Item ID: (\S+)", r.stderr)))
        ok(f"without conflict_resolution vdirsyncer stops on {', '.join(conflicts)} (exit {r.returncode}): {said[0].strip()}")
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
        rem = reminders(items, once=True)
        e = rem.get(moved)
        if e is None or e["start"] != utc_text(slot_of(moved)):
            fail(f"the reminder the phone moved ({holder}) is at {e and e['start']} UTC on the server, the plan says {utc_text(slot_of(moved))}")
        # The whole item back as the planner wrote it: every occurrence the server shows of it is the folder's.
        with open(os.path.join(w.folder, e["uid"] + ".ics"), "rb") as f:
            text = f.read()
        written = {o["key"]: seen(o) for o in occurrences.expand_text(text)}
        shown = {k: seen(o) for k, o in rem.items() if o["uid"] == e["uid"]}
        if shown != written:
            fail(f"{e['uid']} on the server shows {len(shown)} reminders, the planner's file {len(written)}: "
                 f"e.g. {sorted(set(shown) ^ set(written))[:2]}")
        problems = occurrences.series_problems(text, ZONE) if e["uid"].startswith("planner-series-") else []
        if problems or not all(k.endswith("_10_00") for k in shown):
            fail(f"{e['uid']} put back: {'; '.join(problems) or sorted(shown)}")
        ok(f"an event moved on the phone ({holder}, by 45 minutes) is put back by the next planner sync: 27 Oct 10:00 "
           f"at the planned time, and all {len(shown)} reminders of {e['uid']} as the planner's file has them: the plan wins")

        # 5b. The phone edits one occurrence of a series alone ("this event only"): 2 Nov's 11:00 moved by 30
        #     minutes (an override, RECURRENCE-ID, in the series' item) and 3 Nov's deleted (an EXDATE). The
        #     plan wins here too: the next planner sync puts the series back as its file has it.
        series = "planner-series-1100"
        one_moved, one_deleted = "planner-Noti_AppOpenPromotion_2026_11_02_11_00", "planner-Noti_AppOpenPromotion_2026_11_03_11_00"
        rem = reminders(w.items())
        if rem.get(one_moved, {}).get("uid") != series or rem.get(one_deleted, {}).get("uid") != series:
            fail(f"2 and 3 Nov's 11:00 are not occurrences of {series} on the server: {rem.get(one_moved)}, {rem.get(one_deleted)}")
        w.phone("move-one", series, "2026-11-02", "30")
        w.phone("delete-one", series, "2026-11-03")
        rem = reminders(w.items(), once=True)
        if one_deleted in rem or rem.get(one_moved, {}).get("start") != utc_text(slot_of(one_moved) + datetime.timedelta(minutes=30)):
            fail(f"the phone's edits of single occurrences did not show on the server: {rem.get(one_moved)}, {rem.get(one_deleted)}")
        w.vdirsyncer("sync")
        with open(os.path.join(w.folder, series + ".ics")) as f:
            edited = f.read()
        if "RECURRENCE-ID" not in edited or not any(l.startswith("EXDATE") and "20261103T110000" in l for l in re.sub(r"\r?\n ", "", edited).splitlines()):
            fail(f"vdirsyncer did not bring the phone's edits of {series} into the folder")
        w.planner(T2, "sync")
        w.vdirsyncer("sync")
        rem = reminders(w.items(), once=True)
        for key in (one_moved, one_deleted):
            if rem.get(key, {}).get("start") != utc_text(slot_of(key)):
                fail(f"{key}, edited alone on the phone, is at {rem.get(key, {}).get('start')} UTC on the server, the plan says {utc_text(slot_of(key))}")
        with open(os.path.join(w.folder, series + ".ics"), "rb") as f:
            text = f.read()
        written = {o["key"]: seen(o) for o in occurrences.expand_text(text)}
        shown = {k: seen(o) for k, o in rem.items() if o["uid"] == series}
        problems = occurrences.series_problems(text, ZONE)
        if shown != written or problems or "RECURRENCE-ID" in w.phone("raw", series):
            fail(f"{series} put back: the server shows {len(shown)}, the file {len(written)}; {'; '.join(problems)}")
        ok(f"one occurrence moved and one deleted on the phone ({series}, 2 and 3 Nov) are put back by the next planner "
           f"sync: the server's {len(shown)} occurrences are the planner's file's, no override left")

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
