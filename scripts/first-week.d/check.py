#!/usr/bin/python3
"""scripts/first-week's body: the desktop (systemd path, Anki), the laptop (cron path) and the phone (Radicale,
python3-caldav, a second Anki collection through Anki's sync server), set up in the order README.md,
docs/anki.md, docs/sync.md and docs/phone.md give, then used as issue 49 saw a first week go wrong:

setup  the desktop's `setup --install` starts the ticker with the session and finds Anki's collection; its
       `setup --calendar --install` restarts that ticker, so it carries the calendar from then on (it did not);
       the laptop's `setup --install` on the cron path starts its live ticker at once (it started none);
1 Anki a card answered in Anki on the phone closes the day on the desktop once the desktop's Anki syncs, and
       `status` says when that was; the laptop, logged out meanwhile, logs in just after a reminder fell due:
       it shows nothing (it showed the late reminder before it read the desktop's open);
2 phone a shared change (zone and window, a new study day) made on the laptop while both computers carry the
       calendar: neither computer's calendar job is left failing (they made each other's fail); a "Study
       today" ticked on the phone then silences both computers within two minutes and leaves none of that
       day's reminders to show (the desktop showed one six minutes later); the tick both read is one event;
3 retire the laptop's `setup --uninstall` leaves the server's items to the desktop, whose next round is clean
       (it emptied the server for good); the desktop's, the last, takes them off.
"""
import datetime
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from zoneinfo import ZoneInfo

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts/calendar-check.d"))
import check as base  # noqa: E402  (contrib's vdirsyncer config, its user)
import occurrences  # noqa: E402  (what a calendar app shows: events and every series' occurrence)

U, H, RUN, WORK = (os.environ[k] for k in ("FW_USER", "FW_HOME", "FW_RUN", "FW_WORK"))
ANKI_PY = os.path.join(WORK, "anki-venv/bin/python3")
ANKI_FIXTURE = os.path.join(WORK, "bin/anki-fixture")
PAIR = os.path.join(WORK, "bin/syncthing-pair")
PULL_BOUND = 120   # docs/phone.md: a tick on the phone silences a computer within two minutes
ANKI_BOUND = 10    # docs/anki.md: within a second of the collection's change (a margin for a loaded machine)


class CheckError(Exception):
    pass


def ok(message):
    print(f"first-week: ok — {message}", flush=True)


def fail(message):
    raise CheckError(message)


def wait_for(what, bound, test, every=0.5):
    began = time.monotonic()
    while True:
        result = test()
        if result:
            return time.monotonic() - began
        if time.monotonic() - began > bound:
            fail(f"{what}: not within {bound} s")
        time.sleep(every)


def as_user(argv, env, what, input=None, timeout=180, expect_ok=True, cwd=None):
    command = ["setpriv", f"--reuid={U}", f"--regid={U}", "--init-groups", "env", "-i",
               *(f"{k}={v}" for k, v in env.items()), *argv]
    try:
        r = subprocess.run(command, input=input, capture_output=True, text=True, timeout=timeout, cwd=cwd or env["HOME"])
    except subprocess.TimeoutExpired:
        fail(f"{what}: no answer within {timeout} s")
    if expect_ok and r.returncode != 0:
        said = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["(nothing)"])[-1]
        fail(f"{what} exited {r.returncode}: {said}")
    return r


def spawn_user(argv, env, log):
    return subprocess.Popen(["setpriv", f"--reuid={U}", f"--regid={U}", "--init-groups", "env", "-i",
                             *(f"{k}={v}" for k, v in env.items()), *argv],
                            cwd=env["HOME"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def mkdir_user(path, mode=0o755):
    os.makedirs(path, mode=mode, exist_ok=True)
    os.chown(path, *uid_gid())
    os.chmod(path, mode)


def uid_gid():
    import pwd
    p = pwd.getpwnam(U)
    return p.pw_uid, p.pw_gid


def write_user(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chown(path, *uid_gid())
    os.chmod(path, mode)


class Computer:
    """One of the person's computers: its environment, its planner, its database (read as the user, so that no
    file next to it is ever made by root)."""

    def __init__(self, name, env):
        self.name, self.env = name, env
        self.home = env["HOME"]
        self.planner_path = os.path.join(self.home, ".local/bin/planner")
        self.db = os.path.join(self.home, ".local/share/planner/planner.db")
        self.folder = os.path.join(self.home, ".local/share/planner/calendars/planner")

    def planner(self, *args, expect_ok=True, timeout=180):
        return as_user([self.planner_path, *args], self.env, f"{self.name}: planner {' '.join(args[:3])}",
                       expect_ok=expect_ok, timeout=timeout)

    def sql(self, query):
        r = as_user(["sqlite3", "-readonly", "-json", self.db, query], self.env, f"{self.name}: sqlite3")
        return json.loads(r.stdout or "[]")

    def status(self):
        return json.loads(self.planner("status", "--json").stdout)


def install_planner(binary, home):
    mkdir_user(os.path.join(home, ".local"))
    mkdir_user(os.path.join(home, ".local/bin"))
    target = os.path.join(home, ".local/bin/planner")
    subprocess.run(["install", "-o", U, "-g", U, "-m", "755", binary, target], check=True)


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def zones(now):
    """Phase 1's zone (local time between 01:00 and 23:00: its window, starting a minute or two from now, on
    the date of now) and phase 2's (local time after 02:00: its window, starting an hour or so before now, on
    another date; it may cross midnight), each as near noon as can be."""
    best = None
    for o1 in range(-12, 15):
        local1 = now + datetime.timedelta(hours=o1)
        if not 1 <= local1.hour < 23:
            continue
        for o2 in range(-12, 15):
            local2 = now + datetime.timedelta(hours=o2)
            if local2.hour < 2 or local2.date() == local1.date():
                continue
            cost = abs(local1.hour - 12) + abs(local2.hour - 12)
            if best is None or cost < best[0]:
                best = (cost, o1, o2)
    if best is None:
        fail(f"no two zones fit {now:%H:%M} UTC")
    name = lambda o: "UTC" if o == 0 else (f"Etc/GMT-{o}" if o > 0 else f"Etc/GMT+{-o}")
    return name(best[1]), name(best[2])


def window_from(start):
    return f"{start:%H:%M}-{start + datetime.timedelta(hours=4):%H:%M}"


def main(planner):
    now = datetime.datetime.now(datetime.timezone.utc)
    zone1, zone2 = zones(now)
    z1, z2 = ZoneInfo(zone1), ZoneInfo(zone2)
    display_a, display_b = os.environ["FW_DISPLAY_A"], os.environ["FW_DISPLAY_B"]
    base_env = {"USER": U, "SHELL": "/bin/bash", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TZ": zone1}
    desktop = Computer("desktop", {**base_env, "HOME": H, "XDG_RUNTIME_DIR": RUN, "DBUS_SESSION_BUS_ADDRESS": f"unix:path={RUN}/bus",
                                   "DISPLAY": display_a, "PATH": f"{H}/.local/bin:/usr/bin:/bin"})
    L = os.path.join(WORK, "laptop")
    laptop = Computer("laptop", {**base_env, "HOME": L, "XDG_RUNTIME_DIR": f"{L}/run", "DBUS_SESSION_BUS_ADDRESS": f"unix:path={L}/run/bus",
                                 "DISPLAY": display_b, "PATH": f"{L}/bin:{L}/.local/bin:/usr/bin:/bin"})
    logs = open(os.path.join(WORK, "background.log"), "a")

    # The servers elsewhere: the phone's calendar server, Anki's sync server.
    r = subprocess.run([os.path.join(ROOT, "scripts/caldav-server"), "start", os.path.join(WORK, "server")],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail(f"caldav-server: {r.stderr.strip()[-300:]}")
    url = re.search(r"^CALDAV_URL='([^']*)'", r.stdout, re.M).group(1)
    config = base.contrib_config(url)
    caldav_user = base.user_of_config(config)

    def phone(*args):
        r = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/calendar-check.d/phone.py"), url, caldav_user, *args],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            fail(f"phone {args[0]}: {r.stderr.strip()[-300:]}")
        return r.stdout

    def items():
        return json.loads(phone("items"))

    anki_port = free_port()
    anki_base = os.path.join(WORK, "anki-server")
    os.makedirs(anki_base)
    server = subprocess.Popen([ANKI_PY, "-m", "anki.syncserver"], stdout=logs, stderr=subprocess.STDOUT, cwd=anki_base,
                              env={"SYNC_USER1": "u:p", "SYNC_BASE": anki_base, "SYNC_HOST": "127.0.0.1", "SYNC_PORT": str(anki_port),
                                   "PATH": "/usr/bin:/bin", "HOME": anki_base})
    with open(os.path.join(WORK, "anki-server.pid"), "w") as f:
        f.write(str(server.pid))

    def anki_up():
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{anki_port}/health", timeout=1)
            return True
        except OSError:
            return False
    wait_for("Anki's sync server answering", 30, anki_up, every=0.2)
    anki_sync = ["--endpoint", f"http://127.0.0.1:{anki_port}/", "--user", "u", "--password", "p"]

    # The two computers' Syncthing, as the user (the planner reads only its own user's files there).
    pair = os.path.join(WORK, "pair")
    mkdir_user(pair)
    r = as_user(["/usr/bin/python3", PAIR, "start", pair], desktop.env, "syncthing-pair start")
    shared = dict(re.findall(r"^(\w+)='([^']*)'", r.stdout, re.M))

    # The desktop: Anki has a collection (made here, synced up: the phone's Anki then downloads it).
    collection = os.path.join(H, ".local/share/Anki2/User 1/collection.anki2")
    for d in (".local", ".local/share", ".local/share/Anki2", ".local/share/Anki2/User 1"):
        mkdir_user(os.path.join(H, d))
    as_user([ANKI_PY, ANKI_FIXTURE, "create", collection, "--notes", "20"], desktop.env, "anki-fixture create (desktop)")
    as_user([ANKI_PY, ANKI_FIXTURE, "sync", collection, *anki_sync], desktop.env, "anki-fixture sync (desktop, first)")
    phone_anki = os.path.join(WORK, "phone-anki/collection.anki2")
    os.makedirs(os.path.dirname(phone_anki))
    anki_env = {"PATH": "/usr/bin:/bin", "HOME": os.path.dirname(phone_anki)}
    subprocess.run([ANKI_PY, ANKI_FIXTURE, "create", phone_anki, "--notes", "0"], env=anki_env, check=True, capture_output=True, timeout=120)
    subprocess.run([ANKI_PY, ANKI_FIXTURE, "sync", phone_anki, *anki_sync], env=anki_env, check=True, capture_output=True, timeout=120)

    # README: install, then `planner setup --install` (the systemd path: a user manager runs).
    install_planner(planner, H)
    r = desktop.planner("setup", "--install")
    if "enabled planner-refill.timer and planner-tick.service" not in r.stdout:
        fail(f"desktop: setup --install did not enable the units: {r.stdout[-400:]}")
    if collection not in r.stdout:
        fail(f"desktop: setup --install did not find Anki's collection: {r.stdout[-600:]}")
    tick_active = lambda: as_user(["systemctl", "--user", "is-active", "--quiet", "planner-tick.service"], desktop.env,
                                  "systemctl", expect_ok=False).returncode == 0
    wait_for("desktop: the ticker started with the session", 10, tick_active)
    # docs/sync.md: the folder Syncthing shares, a name; the plan's days and zone (shared from here).
    desktop.planner("config", "set", "zone", zone1, "days", "daily", "window", window_from(now.astimezone(z1) - datetime.timedelta(hours=1)),
                    "device-name", "desktop", "sync-folder", shared["A_FOLDER"])
    # docs/phone.md: vdirsyncer's config (contrib/vdirsyncer.config, the server's url), the folder, discover, setup.
    for d in (".config", ".config/vdirsyncer"):
        mkdir_user(os.path.join(H, d))
    write_user(os.path.join(H, ".config/vdirsyncer/config"), config)
    write_user(os.path.join(H, ".config/vdirsyncer/password"), "unused\n", 0o600)
    desktop.planner("config", "set", "calendar-folder", desktop.folder)
    as_user(["vdirsyncer", "discover", "planner"], desktop.env, "desktop: vdirsyncer discover", input="y\n" * 5)
    r = desktop.planner("setup", "--calendar", "--install")
    if "restarted the running ticker" not in r.stdout:
        fail(f"desktop: setup --calendar --install left the running ticker as it was: {r.stdout[-600:]}")
    ok("desktop (systemd): setup --install started the ticker with the session and set Anki's collection; "
       "setup --calendar --install restarted it to carry the calendar")

    # The laptop: no user manager (its own runtime folder), a desktop session of its own (display, bus, dunst).
    for d in ("", "/bin", "/run", "/.config", "/.config/vdirsyncer"):
        mkdir_user(L + d, 0o700 if d == "/run" else 0o755)
    table = os.path.join(L, "crontab.txt")
    write_user(os.path.join(L, "bin/crontab"),
               f"#!/bin/sh\nif [ \"$1\" = -l ]; then [ -f {table} ] && exec cat {table}; echo 'no crontab for you' >&2; exit 1; fi\n"
               f"[ \"$1\" = - ] && exec cat > {table}\n[ \"$1\" = -r ] && exec rm -f {table}\nexit 2\n", 0o755)
    spawn_user(["dbus-daemon", "--session", f"--address=unix:path={L}/run/bus", "--nofork", "--nopidfile"], laptop.env, logs)
    spawn_user(["dunst"], laptop.env, logs)
    wait_for("the laptop's dunst", 15, lambda: as_user(
        ["dbus-send", "--session", "--print-reply", "--reply-timeout=1000", "--dest=org.freedesktop.Notifications",
         "/org/freedesktop/Notifications", "org.freedesktop.Notifications.GetServerInformation"], laptop.env, "dbus-send",
        expect_ok=False).returncode == 0)
    install_planner(planner, L)
    as_user(["/usr/bin/python3", PAIR, "settle", pair], desktop.env, "syncthing-pair settle")
    laptop.planner("config", "set", "sync-folder", shared["B_FOLDER"], "device-name", "laptop")
    r = laptop.planner("setup", "--install")
    if "cron" not in r.stdout or "started the live ticker now" not in r.stdout:
        fail(f"laptop: setup --install on the cron path did not start the live ticker: {r.stdout[-600:]}")
    laptop_ticker = lambda: as_user(["pgrep", "-u", U, "-f", f"^{laptop.planner_path} tick"], laptop.env, "pgrep",
                                    expect_ok=False).stdout.split()
    wait_for("laptop: a live ticker running", 5, laptop_ticker)
    write_user(os.path.join(L, ".config/vdirsyncer/config"), config)
    write_user(os.path.join(L, ".config/vdirsyncer/password"), "unused\n", 0o600)
    laptop.planner("config", "set", "calendar-folder", laptop.folder)
    as_user(["vdirsyncer", "discover", "planner"], laptop.env, "laptop: vdirsyncer discover", input="y\n" * 5)
    r = laptop.planner("setup", "--calendar", "--install")
    if "restarted the live ticker" not in r.stdout:
        fail(f"laptop: setup --calendar --install left the running ticker as it was: {r.stdout[-600:]}")
    if desktop.status()["zone"] != zone1 or laptop.status()["zone"] != zone1:
        fail(f"the laptop did not take the shared zone {zone1}: {laptop.status()['zone']}")
    ok(f"laptop (cron): setup --install started the live ticker at once; it joined the desktop's plan (zone {zone1}) "
       "and carries the calendar too")

    # 1. Anki on the phone. A window whose first reminder falls due 140-200 s from now, on both computers: what
    #    follows until the laptop's login (the window carried, the ticker stopped, three Anki runs, the desktop's
    #    open, Syncthing settled) must fit before it.
    s1 = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=200)).astimezone(z1).replace(second=0, microsecond=0)
    day1 = s1.date().isoformat()
    desktop.planner("config", "set", "window", window_from(s1))
    slot1 = f"Noti_AppOpenPromotion_{s1:%Y_%m_%d_%H_%M}"
    for c in (desktop, laptop):
        wait_for(f"{c.name}: the new window's first reminder planned", 30,
                 lambda: c.sql(f"SELECT state FROM request WHERE identifier = '{slot1}'") == [{"state": "pending"}])
    # The laptop is shut: its ticker stops (Syncthing keeps the folder up to date, as a service does).
    for pid in laptop_ticker():
        try:
            os.kill(int(pid), signal.SIGTERM)
        except ProcessLookupError:
            pass  # gone between pgrep and here (an old ticker ending as the restarted one took over)
    wait_for("laptop: the ticker stopped", 10, lambda: not laptop_ticker())
    # A card answered in Anki on the phone, synced; then the desktop's Anki syncs.
    subprocess.run([ANKI_PY, ANKI_FIXTURE, "answer", phone_anki], env=anki_env, check=True, capture_output=True, timeout=120)
    subprocess.run([ANKI_PY, ANKI_FIXTURE, "sync", phone_anki, *anki_sync], env=anki_env, check=True, capture_output=True, timeout=120)
    as_user([ANKI_PY, ANKI_FIXTURE, "sync", collection, *anki_sync], desktop.env, "anki-fixture sync (desktop)")
    synced = time.time()
    took = wait_for("desktop: the phone's review, synced by Anki, opening the day", ANKI_BOUND,
                    lambda: desktop.sql(f"SELECT origin FROM app_open WHERE local_date = '{day1}'") == [{"origin": "anki"}], every=0.1)
    status = desktop.status()
    if status["anki_synced_at"] is None or status["anki_last_review_at"] is None:
        fail(f"desktop: status does not say when Anki last synced: {status['anki_synced_at']}, {status['anki_last_review_at']}")
    said = [l for l in desktop.planner("status").stdout.splitlines() if l.lstrip().startswith("anki synced")]
    if not said:
        fail("desktop: status has no 'anki synced' row")
    ok(f"a card answered in Anki on the phone closed {day1} on the desktop {took:.1f} s after the desktop's Anki synced "
       f"(origin anki); status says: {said[0].strip()}")
    # The laptop logs in just after its first reminder fell due (late, within its grace): its ticker starts
    # as the autostart entry says and shows nothing, since the folder already holds the desktop's open.
    due = s1.timestamp() + 3
    if time.time() > due:
        fail(f"the set-up took too long: {slot1} fell due {time.time() - due + 3:.0f} s before the laptop's login")
    as_user(["/usr/bin/python3", PAIR, "settle", pair], desktop.env, "syncthing-pair settle")
    time.sleep(max(0.0, due - time.time()))
    with open(os.path.join(L, ".config/autostart/planner-tick.desktop")) as f:
        exec_line = next(line for line in f.read().splitlines() if line.startswith("Exec="))[5:]
    spawn_user(shlex.split(exec_line), laptop.env, logs)
    wait_for("laptop: the desktop's open read at login", 10,
             lambda: desktop.sql(f"SELECT origin FROM app_open WHERE local_date = '{day1}'") == [{"origin": "anki"}]
             and laptop.sql(f"SELECT count(*) AS n FROM app_open WHERE local_date = '{day1}'") == [{"n": 1}])
    time.sleep(3)
    for c in (desktop, laptop):
        shown = c.sql(f"SELECT identifier FROM request WHERE local_date = '{day1}' AND state IN ('delivering', 'delivered', 'failed')")
        if shown:
            fail(f"{c.name} showed {shown[0]['identifier']} on {day1}, studied in Anki at {synced:.0f}")
        left = c.sql(f"SELECT count(*) AS n FROM request WHERE local_date = '{day1}' AND state = 'pending'")[0]["n"]
        if left:
            fail(f"{c.name} still has {left} reminders pending on {day1}")
    ok(f"the laptop logged in 3 s after {slot1} fell due: it showed nothing (the folder's open read first); "
       f"neither computer showed a reminder on {day1}")

    # 2. A shared change on the laptop: another zone and window (another study day), while both carry the calendar.
    now2 = datetime.datetime.now(datetime.timezone.utc).astimezone(z2)
    w2_start = (now2 - datetime.timedelta(minutes=60)).replace(second=0, microsecond=0)
    w2_start -= datetime.timedelta(minutes=w2_start.minute % 30)
    day2 = w2_start.date().isoformat()
    changed = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    laptop.planner("config", "set", "zone", zone2, "window", window_from(w2_start))
    task = f"planner-day-{day2}"

    def phone_sees_day2():
        # Its reminders as the phone's calendar shows them (occurrences.py): today's events of their own, a later
        # day's occurrences of its time's series; each named by its per-slot UID. The study day's later slots by
        # the laptop's rows (`local_date` is the study day): past midnight in a window across it, their
        # identifiers carry the next date (at 11:45 UTC phase 2's zone is Etc/GMT+12 at 23:45: every later slot
        # of its study day is dated the day after).
        later = [r["identifier"] for r in laptop.sql(
            f"SELECT identifier FROM request WHERE local_date = '{day2}' AND kind = 'slot' AND state = 'pending'")]
        now_items = items()
        shown, _ = occurrences.flatten(i for i in now_items if i["kind"] == "VEVENT" and i["uid"].startswith("planner-"))
        return task in [i["uid"] for i in now_items] and any(
            key.startswith(f"planner-{identifier}") for identifier in later for key in shown)
    wait_for(f"the phone seeing {day2}'s 'Study today' and its later events", 60, phone_sees_day2, every=1)
    # Each computer's calendar job has run a round since the change (not only before it), and it worked.
    for c in (desktop, laptop):
        def round_since(c=c):
            at = c.status()["calendar_round_at"]
            return at is not None and datetime.datetime.fromisoformat(at.replace("Z", "+00:00")) >= changed
        wait_for(f"{c.name}: a calendar round after the shared change", 120, round_since, every=2)
        time.sleep(10)  # a round that lost a race (HTTP 412) is run again within 2-8 s: its last word counts
        failure = c.status()["calendar_round_failure"]
        if failure is not None:
            fail(f"{c.name}'s calendar job failed after the shared change: {failure}")
    ok(f"a zone and window set on the laptop ({zone2}, {day2}) reached the phone, and neither computer's calendar job is failing")
    ticked = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    phone("complete", task, ticked.isoformat())
    seen = {}
    began = time.monotonic()
    while len(seen) < 2:
        for c in (desktop, laptop):
            if c.name not in seen and c.sql(f"SELECT count(*) AS n FROM app_open WHERE local_date = '{day2}'")[0]["n"] \
                    and not c.sql(f"SELECT count(*) AS n FROM request WHERE local_date = '{day2}' AND state = 'pending'")[0]["n"]:
                seen[c.name] = time.monotonic() - began
        if time.monotonic() - began > PULL_BOUND:
            fail(f"the phone's tick silenced {sorted(seen) or 'no computer'} only within {PULL_BOUND} s")
        time.sleep(0.5)
    for c in (desktop, laptop):
        shown = c.sql(f"SELECT identifier FROM request WHERE local_date = '{day2}' AND state IN ('delivering', 'delivered', 'failed') "
                      f"AND fire_at_ms >= {int(ticked.timestamp() * 1000)}")
        if shown:
            fail(f"{c.name} showed {shown[0]['identifier']} after {day2} was ticked on the phone")
    for c in (desktop, laptop):
        conflicts = c.sql("SELECT count(*) AS n FROM event_conflict")[0]["n"]
        if conflicts:
            fail(f"{c.name} holds {conflicts} events that arrived with two different contents (the tick read by both computers?)")
    ok(f"'Study today' ticked on the phone silenced the desktop after {seen['desktop']:.0f} s and the laptop after "
       f"{seen['laptop']:.0f} s (bound {PULL_BOUND} s); nothing left to show on {day2}")

    # 3. The laptop retires; the desktop keeps the phone's alarms.
    held_uids = {i["uid"] for i in items() if i["uid"].startswith("planner-")}
    held = len(held_uids)
    r = laptop.planner("setup", "--uninstall")
    if r.stderr.strip():
        print(f"first-week: laptop's setup --uninstall said on stderr: {r.stderr.strip()}", file=sys.stderr)
    said = [line for line in r.stdout.splitlines() if "planner's items" in line]
    if not said or not said[0].startswith("left the planner's items") or "desktop" not in said[0]:
        fail(f"laptop: setup --uninstall did not leave the server's items to the desktop: {said or r.stdout[-400:]}")
    as_user(["systemctl", "--user", "start", "planner-calendar.service"], desktop.env, "desktop: planner-calendar.service")
    # Every item stays (the day may turn meanwhile and bring a new day's: more is fine, fewer is not).
    gone = held_uids - {i["uid"] for i in items()}
    failure = desktop.status()["calendar_round_failure"]
    if gone or failure is not None:
        fail(f"after the laptop's uninstall {len(gone)} of the server's {held} planner items are gone (e.g. {sorted(gone)[:1]}); "
             f"the desktop's round: {failure}")
    ok(f"the laptop's setup --uninstall left the server's {held} items to the desktop, whose next round is clean")
    # The laptop's word that it no longer carries the calendar has reached the desktop (docs/phone.md says what
    # to do when two computers are uninstalled before it could).
    as_user(["/usr/bin/python3", PAIR, "settle", pair], desktop.env, "syncthing-pair settle")
    r = desktop.planner("setup", "--uninstall")
    left = [i["uid"] for i in items() if i["uid"].startswith("planner-")]
    if left:
        import glob as _g
        for c in (desktop, laptop):
            try:
                print("first-week: state at the failure:", c.name, c.sql("SELECT id, name, is_self, calendar, last_event_ms, first_seen_ms FROM device"), file=sys.stderr)
                print("first-week: state at the failure:", c.name, c.sql("SELECT name, size, consumed, problem FROM sync_file"), file=sys.stderr)
            except Exception as e:
                print("first-week: state at the failure: sql failed", c.name, e, file=sys.stderr)
        for f in _g.glob("/home/**/*.events", recursive=True) + _g.glob(os.environ.get("FW_WORK", "/tmp") + "/**/*.events", recursive=True):
            try:
                lines = open(f, encoding="utf-8", errors="replace").read().splitlines()
                print("first-week: state at the failure: file", f, [l[:160] for l in lines if l.startswith("planner-device")][-3:], len(lines), "lines", os.path.getsize(f), "bytes", file=sys.stderr)
            except Exception as e:
                print("first-week: state at the failure: file unreadable", f, e, file=sys.stderr)
        print("first-week: state at the failure: the uninstall said", r.stdout, r.stderr, file=sys.stderr)
        fail(f"the last computer's setup --uninstall left {len(left)} planner items on the server: {r.stdout[-400:]} {r.stderr[-400:]}")
    ok("the desktop's setup --uninstall, the last, took every planner item off the server")


if __name__ == "__main__":
    try:
        main(os.path.realpath(sys.argv[1]))
    except (CheckError, subprocess.CalledProcessError) as error:
        print(f"first-week: error: {error}", file=sys.stderr)
        log = os.path.join(WORK, "background.log")
        if os.path.exists(log):
            sys.stderr.write("--- background log:\n" + open(log, errors="replace").read()[-2500:])
        sys.exit(1)
