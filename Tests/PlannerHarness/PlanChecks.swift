import Foundation

/// The schedule's slots computed independently of the planner, with Python's zoneinfo: every `interval`
/// minutes from `start` through `end` (inclusive) on the chosen ISO weekdays, strictly after now, leaving
/// out excluded dates, identifiers and a pause [since, until); the first `limit`. A wall-clock reading that
/// does not exist (clocks go forward) is left out; a repeated one (clocks go back) is its first occurrence.
/// One argument, a JSON object: zone ("system": /etc/localtime), now, and optionally start, end (HH:MM),
/// interval (minutes), days ([1…7], Monday 1), exclude_dates, exclude_ids, pause ([since, until|null]),
/// limit.
public let pythonPlan = #"""
    import json, sys
    from datetime import datetime, timedelta, timezone
    from zoneinfo import ZoneInfo
    a = json.loads(sys.argv[1])
    if a["zone"] == "system":
        with open("/etc/localtime", "rb") as f:
            zone = ZoneInfo.from_file(f)
    else:
        zone = ZoneInfo(a["zone"])
    def instant(text):
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return t.replace(tzinfo=zone) if t.tzinfo is None else t
    now = instant(a["now"])
    sh, sm = map(int, a.get("start", "09:30").split(":"))
    eh, em = map(int, a.get("end", "21:30").split(":"))
    step = a.get("interval", 30)
    days = set(a.get("days", [1, 2, 3, 4, 5]))
    exclude_dates = set(a.get("exclude_dates", []))
    exclude_ids = set(a.get("exclude_ids", []))
    pause = a.get("pause")
    limit = a.get("limit", 64)
    day = now.astimezone(zone).date()
    out = []
    for _ in range(800):
        if len(out) >= limit:
            break
        if day.isoweekday() in days and day.isoformat() not in exclude_dates:
            for minute in range(sh * 60 + sm, eh * 60 + em + 1, step):
                naive = datetime(day.year, day.month, day.day, minute // 60, minute % 60)
                t = naive.replace(tzinfo=zone, fold=0)
                # A reading in a gap does not survive the round trip through UTC: it does not exist.
                if t.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None) != naive:
                    continue
                if t.timestamp() <= now.timestamp():
                    continue
                if pause is not None:
                    since = instant(pause[0]).timestamp()
                    until = None if pause[1] is None else instant(pause[1]).timestamp()
                    if t.timestamp() >= since and (until is None or t.timestamp() < until):
                        continue
                ident = "Noti_AppOpenPromotion_" + naive.strftime("%Y_%m_%d_%H_%M")
                if ident in exclude_ids:
                    continue
                if len(out) < limit:
                    out.append({"id": ident, "fire_at": t.isoformat(), "utc_ms": round(t.timestamp() * 1000)})
        day += timedelta(days=1)
    print(json.dumps(out))
    """#

/// The instant (ms since the epoch) a wall-clock reading `YYYY_MM_DD_HH_MM` names in `zone`, first
/// occurrence, by zoneinfo; one per line of stdin-less argv.
public let pythonWallClock = #"""
    import json, sys
    from datetime import datetime
    from zoneinfo import ZoneInfo
    zone = ZoneInfo(sys.argv[1])
    out = {}
    for ident in json.loads(sys.argv[2]):
        y, mo, d, h, mi = map(int, ident.split("_")[-5:])
        out[ident] = round(datetime(y, mo, d, h, mi, tzinfo=zone).timestamp() * 1000)
    print(json.dumps(out))
    """#

public struct ExpectedSlot: Equatable, Sendable {
    public var id: String
    public var fireAt: String
    public var utcMs: Int64

    public init(id: String, fireAt: String, utcMs: Int64) {
        self.id = id
        self.fireAt = fireAt
        self.utcMs = utcMs
    }
}

/// Parses the export with python3-icalendar, then reads every event's DTSTART through the VTIMEZONE
/// the export carries (its observances, by hand) and compares the instant with zoneinfo's.
public let pythonCheckCalendar = """
    import sys, json, datetime as dt, zoneinfo
    import icalendar
    cal = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
    expected = [s for day in json.loads(open(sys.argv[2]).read()) for s in day["slots"]]
    assert str(cal["X-WR-CALNAME"]), "no calendar name"
    tzs = [c for c in cal.walk() if c.name == "VTIMEZONE"]
    assert len(tzs) == 1
    tzid = str(tzs[0]["TZID"])
    obs = []
    for o in tzs[0].subcomponents:
        start = o.decoded("DTSTART").replace(tzinfo=None)
        before = o["TZOFFSETFROM"].td
        after = o["TZOFFSETTO"].td
        obs.append((start - before, after))  # the UTC instant it begins, and its offset
    obs.sort()
    def offset_at(utc):
        current = None
        for begins, off in obs:
            if begins <= utc:
                current = off
        assert current is not None, f"no observance covers {utc}"
        return current
    def to_utc(wall):
        for off in sorted({o for _, o in obs}, reverse=True):
            utc = wall - off
            if offset_at(utc) == off:
                return utc
        raise AssertionError(f"{wall} does not exist in the VTIMEZONE")
    zone = zoneinfo.ZoneInfo(tzid)
    events = [c for c in cal.walk() if c.name == "VEVENT"]
    assert len(events) == len(expected), (len(events), len(expected))
    uids = set()
    for event, want in zip(sorted(events, key=lambda e: str(e["UID"])), sorted(expected)):
        start = event["DTSTART"]
        assert start.params["TZID"] == tzid
        wall = event.decoded("DTSTART").replace(tzinfo=None)
        mine = to_utc(wall)
        theirs = dt.datetime.fromisoformat(want).astimezone(dt.timezone.utc).replace(tzinfo=None)
        assert mine == theirs, (str(event["UID"]), mine, theirs)
        assert wall.replace(tzinfo=zone).astimezone(dt.timezone.utc).replace(tzinfo=None) == theirs
        uid = str(event["UID"])
        assert uid == "Noti_AppOpenPromotion_" + wall.strftime("%Y_%m_%d_%H_%M") + "@planner", uid
        uids.add(uid)
        alarms = [a for a in event.subcomponents if a.name == "VALARM"]
        assert len(alarms) == 1 and str(alarms[0]["ACTION"]) == "DISPLAY", uid
        assert alarms[0].decoded("TRIGGER") == dt.timedelta(0), uid
        assert "DTSTAMP" in event and str(event["SUMMARY"]) == sys.argv[3]
        assert str(event["DESCRIPTION"]) == sys.argv[4], str(event["DESCRIPTION"])
    assert len(uids) == len(events)
    raw = open(sys.argv[1], "rb").read()
    assert all(len(line) <= 75 for line in raw.split(b"\\r\\n")), "a line longer than 75 octets"
    assert b"\\n" not in raw.replace(b"\\r\\n", b""), "a bare line feed"
    print(len(events))
    """

extension Harness {
    /// `export --ics` at `now`, checked by `pythonCheckCalendar` (python3-icalendar and zoneinfo) against
    /// `plan --json`: the calendar's text and the check's result (its stdout: the events checked).
    public func checkedExport(now: String) throws -> (calendar: String, check: Result) {
        let ics = dir + "/plan.ics"
        let planJSON = dir + "/plan.json"
        let calendar = try plannerOK(["export", "--ics"], now: now)
        try Data(calendar.utf8).write(to: URL(fileURLWithPath: ics))
        try Data(try plannerOK(["plan", "--json"], now: now).utf8).write(to: URL(fileURLWithPath: planJSON))
        let check = try run(
            "/usr/bin/python3",
            [
                "-c", pythonCheckCalendar, ics, planJSON, "Time to study?",
                "Start today's lesson: reminders stop for the day once you begin.",
            ], env: env)
        return (calendar, check)
    }

    /// khal (a real calendar client) run on the calendar folder `path` with `zone` as its local zone, in a
    /// home of its own under the test folder.
    public func khal(_ args: [String], calendar path: String, zone: String) throws -> Result {
        let home = dir + "/khal-" + zone.replacingOccurrences(of: "/", with: "-")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try """
        [calendars]
        [[study]]
        path = \(path)
        type = calendar
        [locale]
        timeformat = %H:%M
        dateformat = %Y-%m-%d
        longdateformat = %Y-%m-%d
        datetimeformat = %Y-%m-%d %H:%M
        longdatetimeformat = %Y-%m-%d %H:%M
        local_timezone = \(zone)
        default_timezone = \(zone)
        """.write(toFile: home + "/config", atomically: true, encoding: .utf8)
        let env = env.merging(["HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home]) { $1 }
        return try run("/usr/bin/khal", ["-c", home + "/config"] + args, env: env)
    }

    /// `planner config ARGS --db … --now …` (the options after the sub-subcommand).
    @discardableResult
    public func config(_ args: [String], now: String, env extra: [String: String] = [:]) throws -> Result {
        try planner(["config"] + args + ["--db", db, "--now", now], env: extra)
    }

    /// `config set …` that must succeed silently.
    public func configOK(_ args: [String], now: String, env extra: [String: String] = [:]) throws {
        let r = try config(args, now: now, env: extra)
        guard r.status == 0, r.err.isEmpty else { throw HarnessError("planner config \(args) exited \(r.status): \(r.err)") }
    }

    public func expectedPlan(_ spec: [String: Any]) throws -> [ExpectedSlot] {
        let arg = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let out = try python(pythonPlan, [arg])
        let rows = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]] ?? []
        return rows.map {
            ExpectedSlot(id: $0["id"] as! String, fireAt: $0["fire_at"] as! String, utcMs: ($0["utc_ms"] as! NSNumber).int64Value)
        }
    }

    /// Pending rows straight from the database: (identifier, kind, fire_at_ms, title, body), soonest first.
    public func pendingRows() throws -> [(id: String, kind: String, at: Int64, title: String, body: String)] {
        let out = try sqlite(
            "SELECT identifier || char(31) || kind || char(31) || fire_at_ms || char(31) || title || char(31) || body FROM request WHERE state = 'pending' ORDER BY fire_at_ms, identifier"
        )
        return out.split(separator: "\n").map { line in
            let f = line.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            return (f[0], f[1], Int64(f[2])!, f[3], f[4])
        }
    }

    /// The list a user sees, `planner list --json`.
    public func listed(_ now: String, env extra: [String: String] = [:]) throws -> [[String: String]] {
        try parseList(plannerOK(["list", "--json"], now: now, extraEnv: extra))
    }
}

/// Milliseconds since the epoch of an instant written with an offset or Z.
public func epochMs(_ text: String) -> Int64 {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    return Int64((f.date(from: text)!.timeIntervalSince1970 * 1000).rounded())
}

/// The local date `YYYY-MM-DD` a slot identifier names.
public func slotDate(_ identifier: String) -> String? {
    let prefix = "Noti_AppOpenPromotion_"
    guard identifier.hasPrefix(prefix) else { return nil }
    let f = identifier.dropFirst(prefix.count).split(separator: "_")
    guard f.count == 5 else { return nil }
    return "\(f[0])-\(f[1])-\(f[2])"
}

extension Harness {
    public func text(_ file: String) -> String {
        String(decoding: FileManager.default.contents(atPath: "\(dir)/\(file)") ?? Data(), as: UTF8.self)
    }

    public func waitFor(seconds: Double, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else { throw HarnessError("timed out after \(seconds) s") }
            usleep(20_000)
        }
    }
}

extension Harness.Result {
    /// Throws with stderr unless the command succeeded.
    public func check() throws {
        guard status == 0 else { throw HarnessError("exited \(status): \(err)") }
    }
}
