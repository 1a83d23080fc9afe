#!/usr/bin/python3
"""The phone in scripts/calendar-check: a CalDAV client (Debian's python3-caldav) on the server's calendar
"planner", found the way a phone's account finds it (principal, then its calendars), and items read with a
real iCalendar parser (Debian's python3-icalendar). Run with /usr/bin/python3 (Debian's modules).

  phone.py URL USER items              JSON list: uid, kind, dtstart (UTC ISO), tzid, alarms, status, ...;
                                       a VEVENT's `override` (it has a RECURRENCE-ID) and `occurrences`: what a calendar app shows of it, expanded
                                       by occurrences.py (beside this file: RRULE, EXDATE; the oracle the
                                       checks assert on), or `occurrences_error` when it cannot be
                                       expanded
  phone.py URL USER complete UID WHEN  ticks a task off as a phone app does: the whole task rewritten
                                       (STATUS, COMPLETED at WHEN (ISO with offset), PERCENT-COMPLETE,
                                       LAST-MODIFIED; the parser's own property order and folding)
  phone.py URL USER move UID MINUTES   moves an event's DTSTART (and keeps its duration); a recurring
                                       one's (a planner-series-HHMM) moves the whole series, as a phone's
                                       "all events" edit does (its EXDATEs and UNTIL left as they were)
  phone.py URL USER move-one UID DATE MINUTES
                                       moves one occurrence of a recurring event, as a phone's "this event
                                       only" edit does: an override (RECURRENCE-ID) of DATE's occurrence
  phone.py URL USER delete-one UID DATE
                                       deletes one occurrence, as "delete this event only" does: an EXDATE
  phone.py URL USER add UID            the user's own event, made on the phone
  phone.py URL USER raw UID            the item's text as the server holds it
"""
import datetime
import json
import sys

import caldav
import icalendar

import occurrences  # beside this file (its folder is sys.path[0])

PASSWORD = "unused"  # the test server takes any password (auth none)


def calendar(url, user):
    client = caldav.DAVClient(url, username=user, password=PASSWORD)
    calendars = client.principal().calendars()
    named = [c for c in calendars if str(c.url).rstrip("/").endswith("/planner")]
    if not named:
        sys.exit(f"phone: no calendar 'planner' on the server (found {[str(c.url) for c in calendars]})")
    return named[0]


def utc(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            return value.isoformat() + " floating"
        return value.astimezone(datetime.timezone.utc).isoformat()
    return value.isoformat()


def describe(obj):
    cal = icalendar.Calendar.from_ical(obj.data)
    zones = [str(z["TZID"]) for z in cal.walk("VTIMEZONE")]
    try:
        expanded, error = occurrences.expand_text(obj.data), None
    except (occurrences.FormatError, ValueError) as e:
        expanded, error = [], str(e)
    out = []
    for component in cal.walk():
        if component.name not in ("VEVENT", "VTODO"):
            continue
        item = {"uid": str(component.get("UID")), "kind": component.name, "vtimezones": zones,
                "summary": str(component.get("SUMMARY", "")), "status": str(component.get("STATUS", "")),
                "x_planner_id": str(component.get("X-PLANNER-ID", ""))}
        for name in ("DTSTART", "DUE", "COMPLETED"):
            if component.get(name) is not None:
                prop = component.get(name)
                item[name.lower()] = utc(prop.dt)
                item[name.lower() + "_tzid"] = str(prop.params.get("TZID", ""))
        if component.get("DURATION") is not None:
            item["duration_s"] = component.get("DURATION").dt.total_seconds()
        item["alarms"] = [{"action": str(a.get("ACTION", "")), "description": str(a.get("DESCRIPTION", "")),
                           "trigger_s": a.get("TRIGGER").dt.total_seconds() if a.get("TRIGGER") is not None
                           and isinstance(a.get("TRIGGER").dt, datetime.timedelta) else None,
                           "related": str(a.get("TRIGGER").params.get("RELATED", "START")) if a.get("TRIGGER") is not None else None}
                          for a in component.walk("VALARM")]
        if component.name == "VEVENT":
            # On the main VEVENT only: an override (RECURRENCE-ID) of one occurrence is among them already.
            item["override"] = component.get("RECURRENCE-ID") is not None
            item["occurrences"] = [] if item["override"] else [o for o in expanded if o["uid"] == item["uid"]]
            if error is not None:
                item["occurrences_error"] = error
            item["rrule"] = component.get("RRULE").to_ical().decode() if component.get("RRULE") is not None else ""
        out.append(item)
    return out


def objects(cal):
    return list(cal.events()) + list(cal.todos(include_completed=True))


def find(cal, uid):
    for obj in objects(cal):
        if any(str(c.get("UID")) == uid for c in icalendar.Calendar.from_ical(obj.data).walk() if c.get("UID")):
            return obj
    sys.exit(f"phone: no item {uid} on the server")


def main():
    url, user, command, *rest = sys.argv[1:]
    cal = calendar(url, user)
    if command == "items":
        print(json.dumps([item for obj in objects(cal) for item in describe(obj)], indent=1))
    elif command == "raw":
        sys.stdout.write(find(cal, rest[0]).data)
    elif command == "complete":
        uid, when = rest
        obj = find(cal, uid)
        parsed = icalendar.Calendar.from_ical(obj.data)
        at = datetime.datetime.fromisoformat(when).astimezone(datetime.timezone.utc)
        for todo in parsed.walk("VTODO"):
            for name in ("STATUS", "COMPLETED", "PERCENT-COMPLETE", "LAST-MODIFIED"):
                todo.pop(name, None)
            todo.add("STATUS", "COMPLETED")
            todo.add("COMPLETED", at)
            todo.add("PERCENT-COMPLETE", 100)
            todo.add("LAST-MODIFIED", at)
        obj.data = parsed.to_ical().decode()
        obj.save()
    elif command == "move":
        uid, minutes = rest[0], int(rest[1])
        obj = find(cal, uid)
        parsed = icalendar.Calendar.from_ical(obj.data)
        for event in parsed.walk("VEVENT"):
            start = event["DTSTART"]
            tzid = start.params.get("TZID")
            event.pop("DTSTART")
            event.add("DTSTART", start.dt + datetime.timedelta(minutes=minutes))
            if tzid:
                event["DTSTART"].params["TZID"] = tzid
        obj.data = parsed.to_ical().decode()
        obj.save()
    elif command in ("move-one", "delete-one"):
        uid, day = rest[0], datetime.date.fromisoformat(rest[1])
        obj = find(cal, uid)
        parsed = icalendar.Calendar.from_ical(obj.data)
        master = next(e for e in parsed.walk("VEVENT") if e.get("RECURRENCE-ID") is None)
        start = master["DTSTART"]
        tzid = start.params.get("TZID")
        # The occurrence on DAY: the series' local time of day on that date, in its zone.
        occurrence = start.dt.replace(year=day.year, month=day.month, day=day.day)
        if command == "delete-one":
            master.add("EXDATE", occurrence)
            if tzid:
                exdates = master["EXDATE"] if isinstance(master["EXDATE"], list) else [master["EXDATE"]]
                exdates[-1].params["TZID"] = tzid
        else:
            override = icalendar.Event()
            for name in ("UID", "DTSTAMP", "SUMMARY", "DESCRIPTION", "DURATION", "TRANSP"):
                if master.get(name) is not None:
                    override.add(name, master.get(name))
            override.add("RECURRENCE-ID", occurrence)
            override.add("DTSTART", occurrence + datetime.timedelta(minutes=int(rest[2])))
            if tzid:
                override["RECURRENCE-ID"].params["TZID"] = tzid
                override["DTSTART"].params["TZID"] = tzid
            for alarm in master.walk("VALARM"):
                override.add_component(alarm)
            parsed.add_component(override)
        obj.data = parsed.to_ical().decode()
        obj.save()
    elif command == "empty":
        # Every item on the calendar deleted, as another computer's uninstall by an older planner did (or a
        # person, by hand).
        for obj in objects(cal):
            obj.delete()
    elif command == "add":
        uid = rest[0]
        cal.save_event("\r\n".join([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//phone//calendar-check//EN", "BEGIN:VEVENT",
            f"UID:{uid}", "DTSTAMP:20261022T100000Z", "DTSTART:20261029T160000Z", "DTEND:20261029T170000Z",
            "SUMMARY:Dentist (made on the phone)", "END:VEVENT", "END:VCALENDAR", ""]))
    else:
        sys.exit(f"phone: unknown command {command}")


if __name__ == "__main__":
    main()
