#!/usr/bin/python3
"""The independent oracle for the planner's calendar folder format: every reminder a calendar client sees.

The planner writes today's study reminders as one VEVENT per slot (UID `planner-Noti_AppOpenPromotion_
YYYY_MM_DD_HH_MM`) and every later study day's as one recurring VEVENT per time of day (UID
`planner-series-HHMM`: DTSTART;TZID, DURATION, RRULE:FREQ=DAILY;UNTIL=<UTC>, one EXDATE;TZID=… line with a
comma list), a slot within a day of a clock change being a VEVENT of its own again. What a client sees is
the expansion of all of them; the real-engine checks (scripts/calendar-check, calendar-first-day,
first-week, calendar-systemd-check) assert on that expansion, made here and nowhere else, with Debian's
python3-icalendar (content lines, parameters, escaping) and python3-dateutil (the RRULE), the local times
placed by Python's zoneinfo (the system's tz database): none of the planner's own code.

Each occurrence is a dict (JSON-ready):
  key          the per-slot UID the reminder had before series existed (`planner-Noti_AppOpenPromotion_…`,
               from the occurrence's local date and time), for a planner event; `UID` for any other
               single event, `UID@<UTC ISO>` for another recurring one's occurrence
  uid          the VEVENT's UID (a `planner-series-HHMM` for a series' occurrence)
  series       whether it comes from a recurring VEVENT or a `planner-series-HHMM` (one occurrence: no RRULE)
  start        the instant, UTC ISO (`datetime.isoformat()` of an aware UTC datetime: `…+00:00`)
  local        the local date and time in the DTSTART's zone, ISO without offset
  tzid         DTSTART's TZID ('' for UTC or floating)
  duration_s, summary, description, x_planner_id, alarms (action, description, trigger_s, related)

  python3 occurrences.py --self-test     hand-written calendars expanded and checked (exit 1 on a failure)
  python3 occurrences.py FILE.ics...     the occurrences of the files, as JSON
"""
import datetime
import json
import re
import sys
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import icalendar
from dateutil import rrule

SLOT_PREFIX = "planner-Noti_AppOpenPromotion_"
SLOT = re.compile(r"^planner-Noti_AppOpenPromotion_(\d{4})_(\d\d)_(\d\d)_(\d\d)_(\d\d)$")
SERIES = re.compile(r"^planner-series-(\d\d)(\d\d)(?:-(\d{4}-\d\d-\d\d))?$")
UTC = datetime.timezone.utc
# An expansion never goes further than this many occurrences (a rule without UNTIL or COUNT is a mistake
# here: the planner's are all bounded).
LIMIT = 2000


class FormatError(Exception):
    """A calendar this oracle cannot expand as RFC 5545 says (an unknown zone, a floating UNTIL, …)."""


def slot_key(local):
    """The per-slot UID of a planner reminder at this local date and time."""
    return f"{SLOT_PREFIX}{local:%Y_%m_%d_%H_%M}"


def slot_of(key, zone):
    """The aware local datetime a per-slot UID names, placed in `zone` by zoneinfo; None for another UID."""
    m = SLOT.match(key)
    return None if m is None else datetime.datetime(*map(int, m.groups()), tzinfo=ZoneInfo(zone))


def utc_text(moment):
    return moment.astimezone(UTC).isoformat()


def zone_of(tzid):
    try:
        return ZoneInfo(tzid)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise FormatError(f"TZID {tzid!r} is no zone of the tz database ({error})")


def parse_time(raw, tzid):
    """One DATE or DATE-TIME value as written (`20261023T093000`, `…Z`, `20261023`) with its TZID: an aware
    datetime (UTC for `Z`, zoneinfo for a TZID), a naive one (floating), or a date."""
    raw = raw.strip()
    if re.fullmatch(r"\d{8}", raw):
        return datetime.date(int(raw[:4]), int(raw[4:6]), int(raw[6:]))
    m = re.fullmatch(r"(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)(Z?)", raw)
    if m is None:
        raise FormatError(f"{raw!r} is not a DATE-TIME")
    moment = datetime.datetime(*map(int, m.groups()[:6]))
    if m.group(7):
        return moment.replace(tzinfo=UTC)
    if tzid:
        return moment.replace(tzinfo=zone_of(tzid))
    return moment


def values(component, name):
    """Every value of a property as (raw text, TZID): all its lines, each split at its commas."""
    prop = component.get(name)
    if prop is None:
        return []
    out = []
    for line in prop if isinstance(prop, list) else [prop]:
        tzid = str(line.params.get("TZID", "")) if hasattr(line, "params") else ""
        text = line.to_ical().decode() if hasattr(line, "to_ical") else str(line)
        out += [(v, tzid) for v in text.split(",") if v.strip()]
    return out


def same_moment(a, b):
    """Two values naming one instant: aware ones by their instant, floating ones and dates as written."""
    if isinstance(a, datetime.datetime) and isinstance(b, datetime.datetime):
        if (a.tzinfo is None) != (b.tzinfo is None):
            return False
        return a == b if a.tzinfo is None else a.astimezone(UTC) == b.astimezone(UTC)
    return type(a) is type(b) and a == b


def alarms_of(event):
    out = []
    for a in event.walk("VALARM"):
        trigger = a.get("TRIGGER")
        out.append({"action": str(a.get("ACTION", "")), "description": str(a.get("DESCRIPTION", "")),
                    "trigger_s": trigger.dt.total_seconds() if trigger is not None
                    and isinstance(trigger.dt, datetime.timedelta) else None,
                    "related": str(trigger.params.get("RELATED", "START")) if trigger is not None else None})
    return out


def starts(event):
    """The instances of one VEVENT (its own DTSTART, RRULE, RDATE, EXDATE), in order, as values of
    `parse_time`; whether it recurs."""
    uid = str(event.get("UID", ""))
    dtstart = event.get("DTSTART")
    if dtstart is None or isinstance(dtstart, list):
        raise FormatError(f"{uid}: {'no' if dtstart is None else 'more than one'} DTSTART")
    (raw, tzid), = values(event, "DTSTART")
    first = parse_time(raw, tzid)
    rule = event.get("RRULE")
    if isinstance(rule, list):
        raise FormatError(f"{uid}: more than one RRULE")
    found = []
    if rule is not None:
        if not isinstance(first, datetime.datetime):
            raise FormatError(f"{uid}: an RRULE on a DATE DTSTART (not expanded here)")
        text = rule.to_ical().decode()
        try:
            parsed = rrule.rrulestr(text, dtstart=first)
        except ValueError as error:
            raise FormatError(f"{uid}: RRULE:{text}: {error}")
        for n, moment in enumerate(parsed):
            if n >= LIMIT:
                raise FormatError(f"{uid}: RRULE:{text} has more than {LIMIT} occurrences (no UNTIL or COUNT?)")
            found.append(moment)
        # RFC 5545 3.8.5.3: DTSTART is the first instance whether or not the rule matches it.
        if not any(same_moment(first, m) for m in found):
            found.insert(0, first)
    else:
        found.append(first)
    for raw, tz in values(event, "RDATE"):
        found.append(parse_time(raw, tz))
    excluded = [parse_time(raw, tz) for raw, tz in values(event, "EXDATE")]

    def is_excluded(moment):
        for e in excluded:
            if isinstance(e, datetime.date) and not isinstance(e, datetime.datetime):
                if isinstance(moment, datetime.datetime) and moment.date() == e or moment == e:
                    return True
            elif same_moment(e, moment):
                return True
        return False
    kept = [m for m in found if not is_excluded(m)]
    return kept, rule is not None or bool(values(event, "RDATE"))


def occurrence(event, start, recurring, vtimezones):
    uid = str(event.get("UID", ""))
    (_, tzid), = values(event, "DTSTART")
    if isinstance(start, datetime.datetime) and start.tzinfo is not None:
        local = start.astimezone(zone_of(tzid)) if tzid and tzid.upper() != "UTC" else start.astimezone(UTC)
        instant = utc_text(start)
    else:
        local, instant = start, start.isoformat() + " floating"
    if isinstance(local, datetime.datetime) and SERIES.match(uid):
        key = slot_key(local)
    elif not recurring:
        key = uid
    else:
        key = f"{uid}@{instant}"
    duration = event.get("DURATION")
    if duration is not None:
        duration_s = duration.dt.total_seconds()
    elif event.get("DTEND") is not None:
        (raw, tz), = values(event, "DTEND")
        end = parse_time(raw, tz)
        (sraw, stz), = values(event, "DTSTART")
        duration_s = (end - parse_time(sraw, stz)).total_seconds() if isinstance(end, datetime.datetime) else None
    else:
        duration_s = None
    return {"key": key, "uid": uid, "series": recurring or bool(SERIES.match(uid)), "start": instant,
            "local": local.replace(tzinfo=None).isoformat() if isinstance(local, datetime.datetime) else local.isoformat(),
            "tzid": tzid, "duration_s": duration_s, "summary": str(event.get("SUMMARY", "")),
            "description": str(event.get("DESCRIPTION", "")), "x_planner_id": str(event.get("X-PLANNER-ID", "")),
            "alarms": alarms_of(event), "vtimezones": vtimezones}


def expand_text(text):
    """Every occurrence of every VEVENT of one VCALENDAR text, in order of their instants; an override
    (a VEVENT with RECURRENCE-ID) takes the place of the occurrence it names."""
    if isinstance(text, bytes):
        text = text.decode()
    cal = icalendar.Calendar.from_ical(text)
    zones = [str(z["TZID"]) for z in cal.walk("VTIMEZONE")]
    masters = [e for e in cal.walk("VEVENT") if e.get("RECURRENCE-ID") is None]
    overrides = [e for e in cal.walk("VEVENT") if e.get("RECURRENCE-ID") is not None]
    out = []
    for event in masters:
        kept, recurring = starts(event)
        uid = str(event.get("UID", ""))
        for start in kept:
            replaced = None
            for o in overrides:
                if str(o.get("UID", "")) == uid:
                    (raw, tz), = values(o, "RECURRENCE-ID")
                    if same_moment(parse_time(raw, tz), start):
                        replaced = o
            if replaced is None:
                out.append(occurrence(event, start, recurring, zones))
            else:
                (raw, tz), = values(replaced, "DTSTART")
                moved = occurrence(replaced, parse_time(raw, tz), recurring, zones)
                # An occurrence moved on its own is still the reminder it was (its key), now elsewhere.
                moved["key"] = occurrence(event, start, recurring, zones)["key"]
                out.append(moved)
    return sorted(out, key=lambda o: o["start"])


def flatten(items):
    """The occurrences phone.py's `items` carries (one list per VEVENT), as key -> occurrence, and the keys
    found more than once (a reminder a client would show twice)."""
    found, twice = {}, []
    for item in items:
        for o in item.get("occurrences", []):
            if o["key"] in found:
                twice.append(o["key"])
            found[o["key"]] = o
    return found, sorted(set(twice))


def offset_changes_near(moment, zone):
    """Whether `zone`'s UTC offset changes within a day of `moment` (its offsets a day before, at it and a
    day after differ): the slots the planner keeps out of its series."""
    z = ZoneInfo(zone) if isinstance(zone, str) else zone
    day = datetime.timedelta(days=1)
    at = moment.astimezone(UTC)
    return len({(at + d).astimezone(z).utcoffset() for d in (-day, datetime.timedelta(0), day)}) > 1


def expected_series(moment, today, zone):
    """The UID of the series the planner puts a later day's slot (at `moment`) in, or None when it keeps the
    slot as an event of its own: a series holds one offset, today's or the one from a change after today (the
    first date whose offset at noon is not the day before's) to the next, and a slot whose offset changes
    within a day of it is an event of its own."""
    z = ZoneInfo(zone) if isinstance(zone, str) else zone
    if offset_changes_near(moment, z):
        return None
    def noon(d):
        return datetime.datetime(d.year, d.month, d.day, 12, tzinfo=z).utcoffset()
    local = moment.astimezone(z)
    changes, d = [], today + datetime.timedelta(days=1)
    while d <= local.date() + datetime.timedelta(days=1):
        if noon(d) != noon(d - datetime.timedelta(days=1)):
            changes.append(d)
        d += datetime.timedelta(days=1)
    since = [c for c in changes if c <= local.date()]
    return f"planner-series-{local:%H%M}" + (f"-{since[-1].isoformat()}" if since else "")


def vevent_lines(text):
    """The content lines of a text's VEVENTs, unfolded, without their VALARMs' (and without VTIMEZONE's)."""
    if isinstance(text, bytes):
        text = text.decode()
    lines, depth = [], []
    for line in re.sub(r"\r?\n[ \t]", "", text).replace("\r\n", "\n").split("\n"):
        if line.startswith("BEGIN:"):
            depth.append(line[6:])
        elif line.startswith("END:"):
            depth = depth[:-1]
        elif depth and depth[-1] == "VEVENT":
            lines.append(line)
    return lines


def series_problems(text, zone=None):
    """What in one `planner-series-HHMM.ics`, as the planner wrote it, differs from the documented form
    (empty: nothing). `zone`: the plan's zone, which DTSTART's and EXDATE's TZID must name."""
    problems = []
    try:
        cal = icalendar.Calendar.from_ical(text)
    except ValueError as error:
        return [f"does not parse: {error}"]
    events = cal.walk("VEVENT")
    if len(events) != 1:
        return [f"{len(events)} VEVENTs (expected one)"]
    e = events[0]
    uid = str(e.get("UID", ""))
    m = SERIES.match(uid)
    if m is None:
        return [f"UID {uid!r} is not planner-series-HHMM[-YYYY-MM-DD]"]
    hhmm = m.group(1) + m.group(2)
    since = m.group(3)  # the first date of the offset the series holds (None: today's)
    lines = vevent_lines(text)
    named = lambda name: [l for l in lines if re.match(rf"{name}[;:]", l)]
    start_lines = named("DTSTART")
    m2 = re.fullmatch(r"DTSTART;TZID=([^:;]+):(\d{8}T\d{6})", start_lines[0]) if len(start_lines) == 1 else None
    if m2 is None:
        return [f"DTSTART lines {start_lines} (expected one DTSTART;TZID=<zone>:<local date and time>)"]
    tzid = m2.group(1)
    if zone is not None and tzid != zone:
        problems.append(f"DTSTART's TZID is {tzid} (the plan's zone: {zone})")
    if m2.group(2)[9:13] != hhmm:
        problems.append(f"DTSTART {m2.group(2)} is not at {hhmm}, the time its UID names")
    if named("DURATION") != ["DURATION:PT5M"]:
        problems.append(f"DURATION lines {named('DURATION')} (expected DURATION:PT5M)")
    try:
        occurrences = expand_text(text)
    except FormatError as error:
        return problems + [str(error)]
    if not occurrences:
        return problems + ["no occurrence at all (every date an EXDATE)"]
    first, last = occurrences[0], occurrences[-1]
    rrules = named("RRULE")
    if len(occurrences) == 1:
        if rrules:
            problems.append(f"one occurrence, yet {rrules}")
    else:
        until = datetime.datetime.fromisoformat(last["start"]).strftime("%Y%m%dT%H%M%SZ")
        if rrules != [f"RRULE:FREQ=DAILY;UNTIL={until}"]:
            problems.append(f"RRULE lines {rrules} (expected RRULE:FREQ=DAILY;UNTIL={until}: the last occurrence, in UTC)")
    if first["local"] != f"{m2.group(2)[:4]}-{m2.group(2)[4:6]}-{m2.group(2)[6:8]}T{hhmm[:2]}:{hhmm[2:]}:00":
        problems.append(f"the first occurrence is {first['local']}, not DTSTART")
    exdates = named("EXDATE")
    if len(exdates) > 1:
        problems.append(f"{len(exdates)} EXDATE lines (expected one with a comma list)")
    for line in exdates:
        m3 = re.fullmatch(r"EXDATE;TZID=([^:;]+):(\d{8}T\d{6}(?:,\d{8}T\d{6})*)", line)
        if m3 is None or m3.group(1) != tzid:
            problems.append(f"{line} is not EXDATE;TZID={tzid}:<local date and time>,…")
            continue
        dates = m3.group(2).split(",")
        if dates != sorted(set(dates)):
            problems.append(f"EXDATE values not in order or repeated: {line}")
        for d in dates:
            if d[9:13] != hhmm or d[13:] != "00":
                problems.append(f"EXDATE {d} is not at the series' time {hhmm}")
            iso = f"{d[:4]}-{d[4:6]}-{d[6:8]}T{d[9:11]}:{d[11:13]}:{d[13:15]}"
            if not first["local"] < iso < last["local"]:
                problems.append(f"EXDATE {d} is not between the first and the last occurrence")
    for o in occurrences:
        if not o["local"].endswith(f"T{hhmm[:2]}:{hhmm[2:]}:00"):
            problems.append(f"an occurrence at {o['local']}, not at {hhmm}")
        if offset_changes_near(datetime.datetime.fromisoformat(o["start"]), tzid):
            problems.append(f"the occurrence at {o['local']} is within a day of a change of {tzid}'s offset "
                            "(such a slot is a VEVENT of its own, its date an EXDATE)")
    if str(e.get("TRANSP", "")) != "TRANSPARENT":
        problems.append(f"TRANSP is {e.get('TRANSP')!r}")
    if str(e.get("X-PLANNER-ID", "")) != uid[len("planner-"):]:
        problems.append(f"X-PLANNER-ID is {e.get('X-PLANNER-ID')!r} (expected {uid[len('planner-'):]})")
    # One UTC offset for every occurrence (a series never crosses a change), and one that starts at a change
    # begins on or after it.
    if len({datetime.datetime.fromisoformat(o["start"]).astimezone(ZoneInfo(tzid)).utcoffset() for o in occurrences}) > 1:
        problems.append("its occurrences are at more than one UTC offset")
    if since is not None and first["local"][:10] <= since:
        problems.append(f"it starts on {first['local'][:10]}, not after the change its UID names ({since})")
    if not str(e.get("SUMMARY", "")) or not str(e.get("DESCRIPTION", "")):
        problems.append("no SUMMARY or no DESCRIPTION")
    alarms = alarms_of(e)
    if len(alarms) != 1 or alarms[0]["action"] != "DISPLAY" or alarms[0]["trigger_s"] != 0 or alarms[0]["related"] != "START":
        problems.append(f"alarms {alarms} (expected one ACTION:DISPLAY, TRIGGER;RELATED=START:PT0S)")
    if named("RDATE") or e.get("RECURRENCE-ID") is not None or named("EXRULE"):
        problems.append("an RDATE, EXRULE or RECURRENCE-ID (the planner writes none)")
    return problems


# --- the self-test: calendars written by hand, what a client must see worked out by hand ---

HEAD = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//self-test//EN", "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "DTSTART:19700329T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT", "BEGIN:STANDARD", "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100", "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
        "END:VTIMEZONE"]
TAIL = ["SUMMARY:Time to study?", "DESCRIPTION:Start today's lesson.", "TRANSP:TRANSPARENT", "BEGIN:VALARM",
        "ACTION:DISPLAY", "DESCRIPTION:Time to study?", "TRIGGER;RELATED=START:PT0S", "END:VALARM"]


def calendar(*lines):
    return "\r\n".join(HEAD + list(lines) + ["END:VCALENDAR", ""])


def event(uid, *lines, planner_id=None, tail=True):
    return (["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20261022T000000Z", *lines]
            + (TAIL + [f"X-PLANNER-ID:{planner_id}"] if tail else []) + ["END:VEVENT"])


def self_test():
    failures = []

    def expect(what, got, wanted):
        if got != wanted:
            failures.append(f"{what}:\n    got    {got}\n    wanted {wanted}")

    k = lambda day, hm="09_30": f"planner-Noti_AppOpenPromotion_2026_10_{day}_{hm}"

    # 1. A daily plan in Europe/Berlin across the change of 25 Oct 2026 (03:00 CEST -> 02:00 CET, 01:00 UTC).
    #    24 Oct 09:30 CEST (07:30 UTC, 17.5 h before) and 25 Oct 09:30 CET (08:30 UTC, 7.5 h after) are within
    #    a day of it: EXDATEs of the series, VEVENTs of their own. 26 Oct 09:30 CET is 31.5 h after: in it.
    series = event("planner-series-0930", "DTSTART;TZID=Europe/Berlin:20261023T093000", "DURATION:PT5M",
                   "RRULE:FREQ=DAILY;UNTIL=20261029T083000Z",
                   "EXDATE;TZID=Europe/Berlin:20261024T093000,20261025T093000", planner_id="series-0930")
    text = calendar(*series)
    got = {o["key"]: o["start"] for o in expand_text(text)}
    expect("DST series: its occurrences (UTC by hand)", got, {
        k(23): "2026-10-23T07:30:00+00:00", k(26): "2026-10-26T08:30:00+00:00", k(27): "2026-10-27T08:30:00+00:00",
        k(28): "2026-10-28T08:30:00+00:00", k(29): "2026-10-29T08:30:00+00:00"})
    # Not the planner's form: a series holds one offset (python3-vobject with pytz reads it all at DTSTART's).
    expect("DST series: more than one offset", series_problems(text, "Europe/Berlin"), ["its occurrences are at more than one UTC offset"])
    # The planner's: to the Friday before the change, and from the change's date on (26 Oct 09:30 is 31.5 h
    # after it).
    before = calendar(*event("planner-series-0930", "DTSTART;TZID=Europe/Berlin:20261020T093000", "DURATION:PT5M",
                             "RRULE:FREQ=DAILY;UNTIL=20261023T073000Z", planner_id="series-0930"))
    after = calendar(*event("planner-series-0930-2026-10-25", "DTSTART;TZID=Europe/Berlin:20261026T093000", "DURATION:PT5M",
                            "RRULE:FREQ=DAILY;UNTIL=20261029T083000Z", planner_id="series-0930-2026-10-25"))
    expect("two series around the change: the planner's form",
           series_problems(before, "Europe/Berlin") + series_problems(after, "Europe/Berlin"), [])
    today = datetime.date(2026, 10, 19)
    expect("which series a slot is in", [expected_series(datetime.datetime(2026, 10, d, 9, 30, tzinfo=ZoneInfo("Europe/Berlin")),
                                                         today, "Europe/Berlin") for d in (23, 24, 26, 27)],
           ["planner-series-0930", None, "planner-series-0930-2026-10-25", "planner-series-0930-2026-10-25"])
    one = expand_text(text)[0]
    expect("an occurrence's fields", {f: one[f] for f in ("uid", "series", "local", "tzid", "duration_s", "summary", "alarms")},
           {"uid": "planner-series-0930", "series": True, "local": "2026-10-23T09:30:00", "tzid": "Europe/Berlin",
            "duration_s": 300.0, "summary": "Time to study?",
            "alarms": [{"action": "DISPLAY", "description": "Time to study?", "trigger_s": 0.0, "related": "START"}]})
    # The two near the change as the planner writes them (today's would be the same), and the set a client sees.
    own = [calendar(*event(k(d), f"DTSTART;TZID=Europe/Berlin:202610{d}T093000", "DURATION:PT5M", planner_id=k(d)[8:]))
           for d in ("22", "24", "25")]
    items = [{"occurrences": expand_text(t)} for t in [text] + own]
    seen, twice = flatten(items)
    expect("DST plan: what a client sees", {key: o["start"] for key, o in seen.items()}, {
        k(22): "2026-10-22T07:30:00+00:00", k(23): "2026-10-23T07:30:00+00:00", k(24): "2026-10-24T07:30:00+00:00",
        k(25): "2026-10-25T08:30:00+00:00", k(26): "2026-10-26T08:30:00+00:00", k(27): "2026-10-27T08:30:00+00:00",
        k(28): "2026-10-28T08:30:00+00:00", k(29): "2026-10-29T08:30:00+00:00"})
    expect("DST plan: no reminder twice", twice, [])
    expect("a standalone event is not a series", (seen[k(24)]["series"], seen[k(24)]["uid"]), (False, k(24)))
    # Shown twice when a series still holds a slot that is also an event of its own.
    _, twice = flatten(items + [{"occurrences": expand_text(calendar(*event(
        "planner-series-0930", "DTSTART;TZID=Europe/Berlin:20261029T093000", "DURATION:PT5M", planner_id="series-0930")))}])
    expect("a slot both in a series and on its own", twice, [k(29)])
    # The same series without its EXDATEs: the dates near the change are occurrences, and wrong for the format.
    bad = calendar(*event("planner-series-0930", "DTSTART;TZID=Europe/Berlin:20261023T093000", "DURATION:PT5M",
                          "RRULE:FREQ=DAILY;UNTIL=20261029T083000Z", planner_id="series-0930"))
    expect("no EXDATE: 24 and 25 Oct occur, at 09:30 local",
           [o["start"] for o in expand_text(bad)][1:3], ["2026-10-24T07:30:00+00:00", "2026-10-25T08:30:00+00:00"])
    expect("no EXDATE: two occurrences near the change reported",
           sum("within a day of a change" in p for p in series_problems(bad, "Europe/Berlin")), 2)
    # UNTIL is inclusive, and an UNTIL one minute before the last 09:30 drops it.
    short = calendar(*event("planner-series-0930", "DTSTART;TZID=Europe/Berlin:20261026T093000", "DURATION:PT5M",
                            "RRULE:FREQ=DAILY;UNTIL=20261029T082900Z", planner_id="series-0930"))
    expect("UNTIL a minute early", [o["key"] for o in expand_text(short)], [k(26), k(27), k(28)])
    expect("UNTIL a minute early: the planner's form", [p for p in series_problems(short) if "RRULE" in p],
           ["RRULE lines ['RRULE:FREQ=DAILY;UNTIL=20261029T082900Z'] (expected RRULE:FREQ=DAILY;UNTIL=20261028T083000Z: "
            "the last occurrence, in UTC)"])
    # An UNTIL in local time with a DTSTART in a zone is not RFC 5545: refused, not guessed.
    try:
        expand_text(calendar(*event("planner-series-0930", "DTSTART;TZID=Europe/Berlin:20261026T093000",
                                    "RRULE:FREQ=DAILY;UNTIL=20261029T093000", planner_id="series-0930")))
        failures.append("a floating UNTIL with a DTSTART in a zone was expanded")
    except FormatError:
        pass

    # 2. Mon-Fri at 10:00 over two weeks after the change: the weekends are EXDATEs (one line, comma list);
    #    the same on two EXDATE lines (as another writer may put it) expands alike but is not the planner's form.
    weekdays = ["02", "03", "04", "05", "06", "09", "10", "11", "12", "13"]
    k11 = lambda day: f"planner-Noti_AppOpenPromotion_2026_11_{day}_10_00"
    weekend = calendar(*event("planner-series-1000", "DTSTART;TZID=Europe/Berlin:20261102T100000", "DURATION:PT5M",
                              "RRULE:FREQ=DAILY;UNTIL=20261113T090000Z",
                              "EXDATE;TZID=Europe/Berlin:20261107T100000,20261108T100000", planner_id="series-1000"))
    expect("weekend EXDATEs", [(o["key"], o["start"]) for o in expand_text(weekend)],
           [(k11(d), f"2026-11-{d}T09:00:00+00:00") for d in weekdays])
    expect("weekend EXDATEs: the planner's form", series_problems(weekend, "Europe/Berlin"), [])
    expect("weekend EXDATEs: another zone named", series_problems(weekend, "Asia/Seoul"),
           ["DTSTART's TZID is Europe/Berlin (the plan's zone: Asia/Seoul)"])
    split = weekend.replace("EXDATE;TZID=Europe/Berlin:20261107T100000,20261108T100000",
                            "EXDATE;TZID=Europe/Berlin:20261107T100000\r\nEXDATE;TZID=Europe/Berlin:20261108T100000")
    expect("two EXDATE lines: the same occurrences", [o["key"] for o in expand_text(split)], [k11(d) for d in weekdays])
    expect("two EXDATE lines: not the planner's form", series_problems(split), ["2 EXDATE lines (expected one with a comma list)"])
    # An EXDATE at another time of day excludes nothing (RFC 5545: it must equal an instance).
    off = weekend.replace("20261107T100000,20261108T100000", "20261107T103000,20261108T100000")
    expect("an EXDATE at another time", len(expand_text(off)), 11)
    expect("an EXDATE at another time: reported", [p for p in series_problems(off) if "EXDATE 20261107T103000" in p],
           ["EXDATE 20261107T103000 is not at the series' time 1000"])
    # An EXDATE in UTC names the same instant as the local one.
    utc = weekend.replace("EXDATE;TZID=Europe/Berlin:20261107T100000,20261108T100000", "EXDATE:20261107T090000Z,20261108T090000Z")
    expect("EXDATEs in UTC", [o["key"] for o in expand_text(utc)], [k11(d) for d in weekdays])
    # The phone moved the whole series 45 minutes: its EXDATEs no longer match, UNTIL cuts the last.
    moved = weekend.replace("DTSTART;TZID=Europe/Berlin:20261102T100000", "DTSTART;TZID=Europe/Berlin:20261102T104500")
    got = [o["key"] for o in expand_text(moved)]
    expect("a moved series", (len(got), got[0], k11("13") in got, k11("12").replace("10_00", "10_45") in got),
           (11, k11("02").replace("10_00", "10_45"), False, True))
    # One occurrence moved on its own (RECURRENCE-ID): it keeps its key, at its new time.
    override = weekend.replace("END:VCALENDAR", "\r\n".join(event(
        "planner-series-1000", "RECURRENCE-ID;TZID=Europe/Berlin:20261104T100000",
        "DTSTART;TZID=Europe/Berlin:20261104T104500", "DURATION:PT5M", planner_id="series-1000")) + "\r\nEND:VCALENDAR")
    got = {o["key"]: o["start"] for o in expand_text(override)}
    expect("an overridden occurrence", (len(got), got.get(k11("04"))), (10, "2026-11-04T09:45:00+00:00"))

    # 3. A series with one occurrence: no RRULE, no EXDATE; with an RRULE it would not be the planner's form.
    single = calendar(*event("planner-series-2130", "DTSTART;TZID=Europe/Berlin:20261030T213000", "DURATION:PT5M",
                             planner_id="series-2130"))
    got = expand_text(single)
    expect("a one-occurrence series", [(o["key"], o["start"], o["series"]) for o in got],
           [("planner-Noti_AppOpenPromotion_2026_10_30_21_30", "2026-10-30T20:30:00+00:00", True)])
    expect("a one-occurrence series: the planner's form", series_problems(single, "Europe/Berlin"), [])
    with_rule = single.replace("DURATION:PT5M", "DURATION:PT5M\r\nRRULE:FREQ=DAILY;UNTIL=20261030T203000Z")
    expect("a one-occurrence series with an RRULE", len(expand_text(with_rule)), 1)
    expect("a one-occurrence series with an RRULE: reported", series_problems(with_rule),
           ["one occurrence, yet ['RRULE:FREQ=DAILY;UNTIL=20261030T203000Z']"])

    # 4. After midnight (a window across it): a series at 00:30 names each occurrence by its own date.
    late = calendar(*event("planner-series-0030", "DTSTART;TZID=Europe/Berlin:20261027T003000", "DURATION:PT5M",
                           "RRULE:FREQ=DAILY;UNTIL=20261028T233000Z", planner_id="series-0030"))
    expect("after midnight", [o["key"] for o in expand_text(late)], [k(27, "00_30"), k(28, "00_30"), k(29, "00_30")])
    # 5. UTC as Radicale writes it back (`;TZID=UTC:…Z`), and a folded long line.
    radicale = calendar(*event("planner-series-0900", "DTSTART;TZID=UTC:20261102T090000Z", "DURATION:PT5M",
                               "RRULE:FREQ=DAILY;UNTIL=20261104T09000", " 0Z", planner_id="series-0900"))
    expect("TZID=UTC with Z, folded", [o["start"] for o in expand_text(radicale)],
           ["2026-11-02T09:00:00+00:00", "2026-11-03T09:00:00+00:00", "2026-11-04T09:00:00+00:00"])
    # 6. The user's own events: a single one keeps its UID, a recurring one's keys carry the instant.
    mine = calendar(*event("own-1", "DTSTART:20261029T160000Z", "DTEND:20261029T170000Z", tail=False),
                    *event("own-2", "DTSTART:20261029T160000Z", "RRULE:FREQ=DAILY;COUNT=2", tail=False))
    expect("the user's own", [(o["key"], o["duration_s"]) for o in expand_text(mine)],
           [("own-1", 3600.0), ("own-2@2026-10-29T16:00:00+00:00", None), ("own-2@2026-10-30T16:00:00+00:00", None)])
    # 7. The offset test itself, in hours from the change of 25 Oct 2026 01:00 UTC.
    change = datetime.datetime(2026, 10, 25, 1, 0, tzinfo=UTC)
    expect("within a day of the change", [offset_changes_near(change + datetime.timedelta(hours=h), "Europe/Berlin")
                                          for h in (-31.5, -24, -17.5, 7.5, 23.9, 24, 31.5)],
           [False, True, True, True, True, False, False])

    for f in failures:
        print(f"occurrences self-test: FAILED {f}", file=sys.stderr)
    print(f"occurrences self-test: {'ok' if not failures else f'{len(failures)} failed'}")
    return not failures


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(0 if self_test() else 1)
    if not sys.argv[1:] or sys.argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        sys.exit(64)
    out = []
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            out += expand_text(f.read())
    print(json.dumps(out, indent=1))
