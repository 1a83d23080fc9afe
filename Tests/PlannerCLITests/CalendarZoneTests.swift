import Foundation
import PlannerHarness
import Testing

/// Issue 30: one VTIMEZONE per zone, the same in every file of the calendar folder. A reader that keeps the
/// first definition it meets for a TZID (python3-vobject registers each TZID once per process, as some
/// servers and importers do) must still read every event at the instant the zone says: the oracle is
/// Python's zoneinfo on the event's own local time (its X-PLANNER-ID). With one definition per file, cut to
/// its date, the events after a DST change were read an hour off.
@Suite struct CalendarZoneTests {
    static let readAll = #"""
        import sys, os, json, re, datetime as dt, zoneinfo, vobject
        folder, zone = sys.argv[1], zoneinfo.ZoneInfo(sys.argv[2])
        wrong, events, timezones, seen = [], 0, set(), set()
        # Newest files last would hide the bug: read in name order, so the first definition is the earliest day's.
        for name in sorted(os.listdir(folder)):
            if not (name.startswith("planner-") and name.endswith(".ics")):
                continue
            raw = open(os.path.join(folder, name), encoding="utf-8").read()
            timezones.add(raw[raw.index("BEGIN:VTIMEZONE"):raw.index("END:VTIMEZONE")])
            cal = vobject.readOne(raw)
            if not hasattr(cal, "vevent"):
                continue
            ev = cal.vevent
            planner_id = ev.contents["x-planner-id"][0].value
            if re.fullmatch(r"series-\d{4}(-\d{4}-\d\d-\d\d)?", planner_id):
                # A later day's reminders at one time: each occurrence as vobject expands the rule, through
                # the definition it kept, against zoneinfo on the occurrence's own local time.
                for got in ev.getrruleset(addRDate=True):
                    events += 1
                    wall = got.replace(tzinfo=None)
                    if wall in seen:
                        wrong.append(f"{name}: {wall} twice")
                    seen.add(wall)
                    want = wall.replace(tzinfo=zone).astimezone(dt.timezone.utc)
                    if got.astimezone(dt.timezone.utc) != want or (wall.hour, wall.minute) != (int(planner_id[7:9]), int(planner_id[9:11])):
                        wrong.append(f"{name}: {got.isoformat()} (zoneinfo: {want.isoformat()})")
                continue
            m = re.fullmatch(r"Noti_AppOpenPromotion_(\d+)_(\d+)_(\d+)_(\d+)_(\d+)", planner_id)
            if not m:
                continue
            events += 1
            y, mo, d, h, mi = map(int, m.groups())
            if dt.datetime(y, mo, d, h, mi) in seen:
                wrong.append(f"{name}: twice")
            seen.add(dt.datetime(y, mo, d, h, mi))
            want = dt.datetime(y, mo, d, h, mi, tzinfo=zone).astimezone(dt.timezone.utc)
            got = ev.dtstart.value.astimezone(dt.timezone.utc)
            if got != want:
                wrong.append(f"{name}: {got.isoformat()} (zoneinfo: {want.isoformat()})")
        print(json.dumps({"events": events, "wrong": wrong, "definitions": len(timezones)}))
        """#

    /// (zone, a day 60 days before or across its changes): regular rules north and south, none, and a
    /// zone whose changes follow no yearly rule (Casablanca: Ramadan).
    @Test(arguments: [
        ("Europe/Berlin", "2027-02-15T12:00"), ("America/New_York", "2026-10-15T12:00"),
        ("Australia/Sydney", "2027-03-01T12:00"), ("Asia/Seoul", "2027-02-15T12:00"),
        ("Africa/Casablanca", "2027-01-20T12:00"), ("Europe/Berlin", "2026-12-15T12:00"),
    ])
    func everyEventAtZoneinfosInstantWhateverDefinitionWasReadFirst(zone: String, now: String) throws {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let env = ["TZ": zone]
        // Two days skipped, ten days on: each series reads them as exceptions (EXDATE).
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        let start = try #require(day.date(from: String(now.prefix(10))))
        let skipped = [10, 11].map { day.string(from: start.addingTimeInterval(Double($0) * 86_400)) }
        for args in [
            ["config", "set", "zone", zone], ["config", "set", "days", "daily", "calendar-folder", folder, "calendar-days", "60"],
            ["skip", skipped.joined(separator: "..")], ["refill"],
        ] {
            let r = try h.planner(args + ["--db", h.db, "--now", now], env: env)
            #expect(r.status == 0, "\(args): \(r.err)")
        }
        let r = try h.run("/usr/bin/python3", ["-c", Self.readAll, folder, zone], env: h.env)
        #expect(r.status == 0, "python3-vobject: \(r.err)")
        let result = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] ?? [:]
        // Every slot of 60 days, daily, but two: 25 × 57 and today's after noon.
        #expect((result["events"] as? Int ?? 0) == 25 * 57 + 19, "\(result)")
        #expect((result["wrong"] as? [String])?.isEmpty == true, "\(zone): \((result["wrong"] as? [String] ?? []).prefix(3))")
        #expect(result["definitions"] as? Int == 1, "one VTIMEZONE text in every file")
    }

    /// What Radicale stores is what python3-vobject serializes, and vdirsyncer brings it back as it is: the
    /// planner must read every one of its items so written as its own, or it puts each back at every sync.
    /// In a zone whose offset is always 0 (Etc/UTC, Africa/Abidjan, Atlantic/Reykjavik) vobject writes its
    /// local times with a `Z` after the TZID's value (`DTSTART;TZID=Etc/UTC:20261124T093000Z`).
    @Test(arguments: ["Etc/UTC", "Africa/Abidjan", "Atlantic/Reykjavik", "Asia/Seoul", "Europe/Berlin"])
    func itemsAsVobjectWritesThemAreThePlannersOwn(zone: String) throws {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let env = ["TZ": zone]
        for args in [["config", "set", "zone", zone, "calendar-folder", folder, "calendar-days", "14"], ["skip", "2026-11-26"], ["refill"]] {
            let r = try h.planner(args + ["--db", h.db, "--now", "2026-11-23T08:00"], env: env)
            #expect(r.status == 0, "\(args): \(r.err)")
        }
        let rewrite = try h.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import os, sys, vobject
                folder = sys.argv[1]
                for name in os.listdir(folder):
                    if name.startswith("planner-") and name.endswith(".ics"):
                        path = os.path.join(folder, name)
                        text = vobject.readOne(open(path).read()).serialize()
                        open(path + ".new", "w", newline="").write(text)
                        os.rename(path + ".new", path)
                """, folder,
            ], env: h.env)
        #expect(rewrite.status == 0, "python3-vobject: \(rewrite.err)")
        let r = try h.planner(["sync", "--json", "--db", h.db, "--now", "2026-11-23T08:01"], env: env)
        #expect(r.status == 0 && r.out.contains("\"calendar_written\": 0"), "\(zone): \(r.out) \(r.err)")
    }

    /// Two computers with the same plan write the same bytes (DTSTAMP included), whenever each wrote.
    @Test func twoComputersWriteIdenticalBytes() throws {
        var snapshots: [[String: Data]] = []
        for now in ["2026-11-23T08:00", "2026-11-23T08:07"] {
            let h = try Harness()
            let folder = h.dir + "/calendar"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            for args in [["config", "set", "calendar-folder", folder], ["refill"]] {
                let r = try h.planner(args + ["--db", h.db, "--now", now])
                #expect(r.status == 0, "\(args): \(r.err)")
            }
            snapshots.append(try CalendarFolderFixture.snapshot(folder))
        }
        #expect(snapshots[0].count > 40)
        #expect(snapshots[0] == snapshots[1])
    }
}
