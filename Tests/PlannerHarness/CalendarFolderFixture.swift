import Foundation

/// The calendar folder's fixtures, for the in-process and the end-to-end calendar tests alike: a planner
/// writing one, the folder read back by python3-icalendar, and a phone's tick as DAVx⁵ writes it.
public enum CalendarFolderFixture {
    /// Every `.ics` file of the folder, parsed by python3-icalendar: one JSON object per file name with its
    /// UID, kind, start (UTC), alarm, status and completion; and every line CRLF-ended, at most 75 octets.
    /// A series (`planner-series-HHMM`) is listed as its occurrences, each under the name its slot's own file
    /// would have (`planner-<slot identifier>.ics`, with `series`: the series' file), expanded here by hand
    /// from DTSTART, the daily rule's UNTIL and EXDATE, each local time put in UTC by zoneinfo: the
    /// planner's code is not the oracle. An occurrence that is also a file of its own fails.
    public static let readFolder = #"""
        import sys, os, json, datetime as dt, icalendar, zoneinfo
        folder = sys.argv[1]
        out = {}
        def occurrences(name, c):
            start = c["DTSTART"]
            tzid = start.params["TZID"]
            zone = zoneinfo.ZoneInfo(tzid)
            first = start.dt.replace(tzinfo=None)
            rule = c.get("RRULE")
            last = first
            if rule is not None:
                assert list(rule.keys()) == ["FREQ", "UNTIL"] and rule["FREQ"] == ["DAILY"], (name, rule)
                until = rule["UNTIL"][0]
                assert until.tzinfo is not None, (name, "UNTIL not in UTC")
                while (last + dt.timedelta(days=1)).replace(tzinfo=zone).astimezone(dt.timezone.utc) <= until:
                    last += dt.timedelta(days=1)
            skipped = set()
            exdates = c.get("EXDATE")
            for prop in exdates if isinstance(exdates, list) else [exdates] if exdates is not None else []:
                assert prop.params["TZID"] == tzid, name
                for value in prop.dts:
                    skipped.add(value.dt.replace(tzinfo=None))
            assert all(first < s < last for s in skipped), (name, "an EXDATE outside the rule's range")
            at = first
            while at <= last:
                if at not in skipped:
                    yield at, at.replace(tzinfo=zone).astimezone(dt.timezone.utc), tzid
                at += dt.timedelta(days=1)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".ics"):
                continue
            raw = open(os.path.join(folder, name), "rb").read()
            cal = icalendar.Calendar.from_ical(raw)
            items = [c for c in cal.subcomponents if c.name in ("VEVENT", "VTODO")]
            assert len(items) == 1, name
            c = items[0]
            info = {"uid": str(c["UID"]), "kind": c.name, "id": str(c.get("X-PLANNER-ID", ""))}
            if not str(c["UID"]).startswith("planner-"):
                out[name] = info
                continue
            assert all(len(l) <= 75 for l in raw.split(b"\r\n")), name + ": a line longer than 75 octets"
            assert b"\n" not in raw.replace(b"\r\n", b""), name + ": a bare line feed"
            assert "DTSTAMP" in c, name
            def utc(prop):
                value = c.decoded(prop)
                assert value.tzinfo is not None, (name, prop)
                return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            if c.name == "VEVENT" and str(c["UID"]).startswith("planner-series-"):
                assert name == str(c["UID"]) + ".ics", name
                alarms = [a for a in c.subcomponents if a.name == "VALARM"]
                assert len(alarms) == 1 and alarms[0].decoded("TRIGGER") == dt.timedelta(0), name
                assert c.decoded("DURATION") == dt.timedelta(minutes=5), name
                for local, at, tzid in occurrences(name, c):
                    key = local.strftime("planner-Noti_AppOpenPromotion_%Y_%m_%d_%H_%M.ics")
                    assert key not in out, key + ": twice"
                    out[key] = {"uid": str(c["UID"]), "kind": "VEVENT", "id": str(c.get("X-PLANNER-ID", "")), "series": name,
                                "start": at.strftime("%Y-%m-%dT%H:%M:%SZ"), "tzid": tzid, "summary": str(c["SUMMARY"])}
                continue
            if c.name == "VEVENT":
                assert name not in out, name + ": twice"
                info["start"] = utc("DTSTART")
                info["tzid"] = c["DTSTART"].params["TZID"]
                assert c.decoded("DURATION") == dt.timedelta(minutes=5), name
                alarms = [a for a in c.subcomponents if a.name == "VALARM"]
                assert len(alarms) == 1, name
                a = alarms[0]
                assert str(a["ACTION"]) == "DISPLAY" and str(a["DESCRIPTION"]), name
                assert a.decoded("TRIGGER") == dt.timedelta(0) and a["TRIGGER"].params.get("RELATED", "START") == "START", name
                info["summary"] = str(c["SUMMARY"])
            else:
                info["summary"] = str(c["SUMMARY"])
                info["due"] = utc("DUE")
                info["status"] = str(c["STATUS"])
                if "COMPLETED" in c:
                    info["completed"] = utc("COMPLETED")
            out[name] = info
        print(json.dumps(out))
        """#

    public static func folder(_ h: Harness, _ path: String) throws -> [String: [String: String]] {
        let r = try h.run("/usr/bin/python3", ["-c", readFolder, path], env: h.env)
        guard r.status == 0 else { throw HarnessError("python3-icalendar could not read \(path): \(r.err)") }
        return try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: [String: String]] ?? [:]
    }

    /// Every file's bytes, by name (what a step must leave alone).
    public static func snapshot(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            files[name] = FileManager.default.contents(atPath: path + "/" + name) ?? Data()
        }
        return files
    }

    public static func setUp(_ h: Harness, days: Int = 3) throws -> (Harness, String) {
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try h.configOK(["set", "calendar-folder", folder, "calendar-days", String(days)], now: "2026-11-23T12:10")
        return (h, folder)
    }

    /// What DAVx⁵ and a task app send back when the day is ticked: the whole object rewritten.
    public static func phoneTick(day: String, completedUTC: String) -> String {
        let compact = day.replacingOccurrences(of: "-", with: "")
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:+//IDN bitfire.at//ical4android (org.tasks)\r\nBEGIN:VTODO\r\n"
            + "DTSTAMP:20261101T000000Z\r\nsummary:Study today\r\ncompleted;VALUE=DATE-TIME:\(completedUTC)\r\n"
            + "PERCENT-COMPLETE:100\r\nDUE;TZID=Asia/Seoul;VALUE=DATE-TIME:\(compact)T213000\r\nstatus:COMPLETED\r\n"
            + "X-PLANNER-ID:\(day)\r\nUID:planner-day-\r\n \(day)\r\nLAST-MODIFIED:20261123T041500Z\r\nEND:VTODO\r\n"
            + "BEGIN:VTIMEZONE\r\nTZID:Asia/Seoul\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0900\r\n"
            + "TZOFFSETTO:+0900\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nEND:VCALENDAR\r\n"
    }

    /// vdirsyncer's way of writing: aside, then renamed in.
    public static func deliver(_ text: String, to path: String) throws {
        let temp = (path as NSString).deletingLastPathComponent + "/.vdirsyncer-tmp"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temp))
        guard rename(temp, path) == 0 else { throw HarnessError("cannot rename \(temp) to \(path): errno \(errno)") }
    }
}
