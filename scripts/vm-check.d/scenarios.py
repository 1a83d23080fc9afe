"""The clock scenarios: what the guest does (shell, run by /init) and what the host then expects.

Every expected identifier and time is computed here from the scenario's own wall-clock times with Python's
zoneinfo and the README's slot rule (the first slot at the window's start, then every interval) — never by
asking the planner. The guest's clock is set with `date -s @EPOCH`, so both sides agree to the second.
"""
from datetime import datetime
from zoneinfo import ZoneInfo

ZONE = "Asia/Kolkata"  # +05:30: a plan mixing up UTC and local time gets every identifier wrong
TZ = ZoneInfo(ZONE)
# How long after the clock step (or the resume) a due request may reach the delivery program, in guest
# seconds: the README says "at once"; TCG on a loaded machine is slow, hence two seconds.
PROMPT = 2


def instant(text):
    """'2026-11-30 10:07:00' in the plan's zone -> Unix seconds."""
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=TZ).timestamp())


def slot_id(epoch):
    return datetime.fromtimestamp(epoch, TZ).strftime("Noti_AppOpenPromotion_%Y_%m_%d_%H_%M")


def at(epoch):
    """A `planner add --at` instant with the zone's offset."""
    return datetime.fromtimestamp(epoch, TZ).isoformat()


def slots(first, last, interval):
    """Slot times from `first` to `last` inclusive, `interval` minutes apart (Unix seconds)."""
    return list(range(first, last + 1, interval * 60))


def add(epoch, ident):
    return f"planner add --at {at(epoch)} --id {ident} --title 'one-off {ident}'"


class Scenario:
    """`guest` is shell run in the VM; `expect(result)` returns the expectations, or a failure string."""
    name = ""
    title = ""
    guest = ""

    def expect(self, result):
        raise NotImplementedError


class ClockForward(Scenario):
    """Monday 10:07, slots every 5 minutes, grace 14 minutes; the clock jumps to 12:08. No slot or
    one-off sits near the grace boundary at 11:54, where a few milliseconds would decide."""
    name, title = "forward", "clock forward 2 h"
    start = instant("2026-11-30 10:07:00")
    land = instant("2026-11-30 12:08:00")
    once = {  # one-offs due during the jump: 11:00 is past grace at 12:08, the others within it
        "vm_once_1100": instant("2026-11-30 11:00:00"),
        "vm_once_1156": instant("2026-11-30 11:56:00"),
        "vm_once_1204": instant("2026-11-30 12:04:00"),
        "vm_once_120815": instant("2026-11-30 12:08:15"),  # after the landing: at its own time
        "vm_once_1230": instant("2026-11-30 12:30:00"),  # still ahead when the scenario ends
    }
    guest = f"""
begin forward
date -s @{start} >/dev/null
planner config set interval 5m grace 14m
planner refill
{chr(10).join(add(t, i) for i, t in once.items())}
start_ticker
mark before_jump "$(date +%s)"
date -s @{land} >/dev/null
mark after_jump "$(date +%s)"
wait_delivered vm_once_120815 40
sleep 2
stop_ticker
dump
"""

    def expect(self, r):
        if r.mark("before_jump") >= instant("2026-11-30 10:10:00"):
            return "the guest took more than 3 minutes to set up: the first slot came due before the jump"
        skipped = slots(instant("2026-11-30 10:10:00"), instant("2026-11-30 11:50:00"), 5)
        return {
            # The latest slot within grace (12:05) is delivered at once; 11:55 and 12:00, also within
            # grace, are superseded by it; 10:10–11:50 are past grace. One nudge, never a burst.
            "delivered": {slot_id(instant("2026-11-30 12:05:00")): (self.land, self.land + PROMPT),
                          "vm_once_1156": (self.land, self.land + PROMPT),
                          "vm_once_1204": (self.land, self.land + PROMPT),
                          "vm_once_120815": (self.once["vm_once_120815"], self.once["vm_once_120815"] + PROMPT)},
            "missed": [slot_id(t) for t in skipped]
            + [slot_id(instant("2026-11-30 11:55:00")), slot_id(instant("2026-11-30 12:00:00")), "vm_once_1100"],
            "pending": [slot_id(instant("2026-11-30 12:10:00")), "vm_once_1230"],
        }


class ClockBack(Scenario):
    """Tuesday, slots every 59 minutes from 08:00 (…, 09:58, 10:57, 11:56): 10:57 is delivered, then the
    clock goes back exactly one hour to 09:57 and cron's refill runs. 09:58 never ran its course, so it is
    planned and delivered at its wall-clock time a minute later; 10:57 is never planned or shown again."""
    name, title = "back", "clock back 1 h"
    start = instant("2026-12-01 10:56:50")
    first = instant("2026-12-01 10:57:00")
    next = instant("2026-12-01 09:58:00")
    guest = f"""
begin back
date -s @{start} >/dev/null
planner config set interval 59m window 08:00-20:00 grace 12m
planner refill
start_ticker
wait_delivered {slot_id(first)} 30
sleep 1
now=$(date +%s)
mark before_back "$now"
date -s @$((now - 3600)) >/dev/null
mark after_back "$(date +%s)"
planner refill
wait_delivered {slot_id(next)} 120
sleep 3
stop_ticker
dump
"""

    def expect(self, r):
        if r.mark("before_back") - r.mark("after_back") not in (3599, 3600, 3601):
            return f"the guest's clock did not go back one hour ({r.mark('before_back')} -> {r.mark('after_back')})"
        return {
            "delivered": {slot_id(self.first): (self.first, self.first + PROMPT),
                          slot_id(self.next): (self.next, self.next + PROMPT)},
            "missed": [],
            "pending": [slot_id(instant("2026-12-01 11:56:00"))],
        }


class RealSuspend(Scenario):
    """Wednesday, slots every 5 minutes, grace 10 minutes. The guest's clock is set to 10:04:40 and it
    suspends to RAM for 30 s across the 10:05 slot and two one-offs; the host wakes it. The guest's wall
    clock runs on through a qemu S3 suspend (the kernel adds the time slept, read from the RTC), so all
    three are due at resume and each is delivered at once."""
    name, title = "suspend", "suspend 30 s across a slot"
    seconds = 30
    setup = instant("2026-12-02 10:00:10")
    start = instant("2026-12-02 10:04:40")
    once = {"vm_once_100450": instant("2026-12-02 10:04:50"), "vm_once_100510": instant("2026-12-02 10:05:10")}
    guest = f"""
begin suspend
date -s @{setup} >/dev/null
planner config set interval 5m grace 10m
planner refill
{chr(10).join(add(t, i) for i, t in once.items())}
date -s @{start} >/dev/null
start_ticker
mark suspended "$(date +%s)"
suspend_for {seconds}
mark resumed "$(date +%s)"
sleep 4
stop_ticker
dump
"""

    def expect(self, r):
        if r.mark("suspended") >= self.once["vm_once_100450"]:
            return "the guest was not suspended before 10:04:50 (the ticker took too long to start)"
        slept = r.mark("resumed") - r.mark("suspended")
        if abs(slept - r.host_suspended) > 3:
            return (f"the guest's clock moved {slept} s across a {r.host_suspended:.0f} s suspend: "
                    "this scenario assumes it runs on through a suspend")
        resumed = r.mark("resumed")
        due = (resumed - 1, resumed + PROMPT)
        return {
            "delivered": {slot_id(instant("2026-12-02 10:05:00")): due, "vm_once_100450": due, "vm_once_100510": due},
            "missed": [],
            "pending": [slot_id(instant("2026-12-02 10:10:00"))],
        }


class LongSleep(Scenario):
    """Thursday, slots every 5 minutes, grace 13 minutes; 10:07 and then a sleep to about 10:47.

    A real suspend of 40 minutes would make the check that long, and qemu's suspended guest gains only
    the real time it slept. So the ticker is stopped (SIGSTOP: it sees nothing, as a process frozen for
    suspend sees nothing), the clock is stepped to 10:46:30, the guest suspends to RAM for real for 20 s,
    and on resume the ticker is continued: it wakes to what a 40-minute sleep leaves it — a cancelled timer
    and the clock 40 minutes on."""
    name, title = "sleep", "suspend past several slots"
    seconds = 20
    start = instant("2026-12-03 10:07:00")
    step = instant("2026-12-03 10:46:30")
    once = {"vm_once_1030": instant("2026-12-03 10:30:00"), "vm_once_1040": instant("2026-12-03 10:40:00"),
            "vm_once_1044": instant("2026-12-03 10:44:00")}
    guest = f"""
begin sleep
date -s @{start} >/dev/null
planner config set interval 5m grace 13m
planner refill
{chr(10).join(add(t, i) for i, t in once.items())}
start_ticker
kill -STOP "$TICKER"
date -s @{step} >/dev/null
mark suspended "$(date +%s)"
suspend_for {seconds}
mark resumed "$(date +%s)"
kill -CONT "$TICKER"
mark continued "$(date +%s)"
wait_delivered vm_once_1044 20
sleep 3
stop_ticker
dump
"""

    def expect(self, r):
        woke = r.mark("continued")
        # The expectations below hold for a wake-up between 10:45 (the 10:45 slot due) and 10:48 (10:35
        # still within 13 minutes' grace).
        if not instant("2026-12-03 10:45:00") <= woke < instant("2026-12-03 10:48:00"):
            return f"the ticker was continued at {at(woke)}, outside 10:45–10:48: the suspend was not as planned"
        due = (woke, woke + PROMPT)
        return {
            "delivered": {slot_id(instant("2026-12-03 10:45:00")): due, "vm_once_1040": due, "vm_once_1044": due},
            "missed": [slot_id(t) for t in slots(instant("2026-12-03 10:10:00"), instant("2026-12-03 10:40:00"), 5)]
            + ["vm_once_1030"],
            "pending": [slot_id(instant("2026-12-03 10:50:00"))],
        }


ALL = [ClockForward(), ClockBack(), RealSuspend(), LongSleep()]


def check(scenario, r):
    """The failures of one scenario, each a sentence naming the request and what happened to it."""
    failures = [f"the guest reported: {e}" for e in r.errors]
    try:
        expected = scenario.expect(r)
    except KeyError as missing:
        return failures + [missing.args[0]]
    if isinstance(expected, str):
        return failures + [expected]
    seen = {}
    for ident, _fire, epoch in r.deliveries:
        seen.setdefault(ident, []).append(epoch)
    # A burst: study reminders shown within a minute of each other.
    study = sorted((e[0], i) for i, e in seen.items() if i.startswith("Noti_AppOpenPromotion_"))
    for (t1, a), (t2, b) in zip(study, study[1:]):
        if t2 - t1 < 60:
            failures.append(f"a burst: study reminders {a} and {b} were both shown at {at(t1)[11:19]}–{at(t2)[11:19]}")
    for ident, epochs in seen.items():
        if len(epochs) > 1:
            failures.append(f"{ident} reached the delivery program {len(epochs)} times (at {', '.join(map(at, epochs))})")
        if ident not in expected["delivered"]:
            failures.append(f"{ident} was delivered at {at(epochs[0])}, but should not have been")
    for ident, (lo, hi) in expected["delivered"].items():
        if ident not in seen:
            failures.append(f"{ident} was never delivered (expected between {at(lo)} and {at(hi)})")
        elif not lo <= seen[ident][0] <= hi:
            failures.append(f"{ident} was delivered at {at(seen[ident][0])}, expected between {at(lo)} and {at(hi)}")
    rows = {}
    for row in r.requests:
        rows.setdefault(row["identifier"], []).append(row)
    for ident in rows:
        delivered = [x for x in rows[ident] if x["state"] == "delivered"]
        if len(delivered) > 1:
            failures.append(f"{ident} has {len(delivered)} delivered rows")
    want = {i: "delivered" for i in expected["delivered"]}
    want.update({i: "missed" for i in expected["missed"]})
    want.update({i: "pending" for i in expected["pending"]})
    for ident, state in want.items():
        states = [x["state"] for x in rows.get(ident, [])]
        if states != [state]:
            failures.append(f"{ident} should be one row, {state}; the database has {states or 'no row'}"
                            f" ({'; '.join(str(x['reason']) for x in rows.get(ident, []) if x['reason'])})")
    return failures


def summary(scenario, r):
    """What happened, for the log: the guest's clock at each step, every request that came due and what
    became of it, and when (guest clock) each delivery reached the program."""
    out = ["  guest clock: " + ", ".join(f"{k} {at(v)}" for k, v in r.marks.items())]
    if r.host_suspended is not None:
        out.append(f"  the host kept the VM suspended {r.host_suspended:.1f} s")
    delivered = {ident: epoch for ident, _fire, epoch in r.deliveries}
    for row in r.requests:
        if row["state"] in ("pending", "retired", "displaced"):
            continue
        when = f"reached the program at {at(delivered[row['identifier']])[11:19]}" if row["identifier"] in delivered else ""
        out.append(f"  {row['identifier']:<40} {at(row['fire_at_ms'] // 1000)}  {row['state']:<9} {row['reason'] or ''} {when}")
    return out
