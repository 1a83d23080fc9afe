import Foundation
import PlannerHarness
import Testing

/// `planner plan` and `planner export --ics` against an independent calendar: Python's zoneinfo for the
/// instants, a real iCalendar parser (python3-icalendar) and a real client (khal).
@Suite struct PlanAheadTests {
    /// The days ahead by the default schedule (09:30-21:30 every 30 min, Monday-Friday), computed in
    /// Python: `{date: [RFC 3339 of each slot after now] or reason}`, for 14 days from `now`.
    static let independentPlan = """
        import sys, json, datetime as dt, zoneinfo
        zone = zoneinfo.ZoneInfo(sys.argv[1])
        now = dt.datetime.fromisoformat(sys.argv[2]).replace(tzinfo=zone)
        skipped, opened = set(json.loads(sys.argv[3])), set(json.loads(sys.argv[4]))
        pause = [dt.datetime.fromisoformat(t).replace(tzinfo=zone) for t in json.loads(sys.argv[5])]
        days = int(sys.argv[6])
        out = []
        for i in range(days):
            d = now.date() + dt.timedelta(days=i)
            slots = []
            any_ahead = False
            for k in range(25):
                m = 9 * 60 + 30 + 30 * k
                t = dt.datetime(d.year, d.month, d.day, m // 60, m % 60, tzinfo=zone)
                # skip readings that do not exist (none at these hours, but be honest about it)
                if t.astimezone(dt.timezone.utc).astimezone(zone).replace(tzinfo=None) != t.replace(tzinfo=None):
                    continue
                if t <= now or d.isoweekday() > 5:
                    continue
                any_ahead = True
                if d.isoformat() in skipped or d.isoformat() in opened:
                    continue
                if pause and pause[0] <= t < pause[1]:
                    continue
                slots.append(t.isoformat())
            if d.isoweekday() > 5:
                reason = "weekend"
            elif d.isoformat() in opened:
                reason = "opened"
            elif d.isoformat() in skipped:
                reason = "skipped"
            elif not any_ahead:
                reason = "over"
            else:
                reason = "paused"
            out.append({"date": d.isoformat(), "slots": slots, "reason": None if slots else reason})
        print(json.dumps(out))
        """

    /// New York across its change back to standard time (Sunday 2026-11-01): opened today, Friday skipped,
    /// a pause from Tuesday 2026-11-03 00:00 to Wednesday 12:00 (Wednesday keeps its afternoon).
    static func setUp() throws -> Harness {
        var h = try Harness()
        h.env["TZ"] = "America/New_York"
        _ = try h.plannerOK(["refill"], now: "2026-10-28T09:00")
        _ = try h.plannerOK(["open"], now: "2026-10-28T09:40")
        _ = try h.plannerOK(["skip", "2026-10-30"], now: "2026-10-28T09:45", stderrAllowed: true)
        _ = try h.plannerOK(["pause", "--until", "2026-11-04T12:00"], now: "2026-11-03T00:00", stderrAllowed: true)
        return h
    }

    @Test func thePlanAheadMatchesAnIndependentCalendar() throws {
        let h = try Self.setUp()
        let now = "2026-10-28T12:00"
        let out = try h.plannerOK(["plan", "--json"], now: now)
        let plan = try #require(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        let expectedText = try h.python(
            Self.independentPlan,
            [
                "America/New_York", now, #"["2026-10-30"]"#, #"["2026-10-28"]"#,
                #"["2026-11-03T00:00", "2026-11-04T12:00"]"#, "14",
            ])
        let expected = try #require(JSONSerialization.jsonObject(with: Data(expectedText.utf8)) as? [[String: Any]])
        #expect(plan.count == 14)
        for (got, want) in zip(plan, expected) {
            let date = want["date"] as? String ?? "?"
            #expect(got["date"] as? String == date)
            #expect(got["slots"] as? [String] == want["slots"] as? [String], "\(date)")
            #expect((got["reason"] as? String) == (want["reason"] as? String), "\(date)")
        }
        // The pause is really there: Tuesday paused, Wednesday from 12:00 only.
        #expect(plan[6]["reason"] as? String == "paused")
        #expect((plan[7]["slots"] as? [String])?.first == "2026-11-04T12:00:00-05:00")

        let text = try h.plannerOK(["plan", "--days", "8"], now: now)
        // Columns are padded to the widest cell: compare with runs of spaces as one.
        let lines = text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(
            lines == [
                "DAY (America/New_York) SLOTS", "Wed 2026-10-28 opened", "Thu 2026-10-29 09:30-21:30 every 30m (25)",
                "Fri 2026-10-30 skipped", "Sat 2026-10-31 weekend", "Sun 2026-11-01 weekend",
                "Mon 2026-11-02 09:30-21:30 every 30m (25)", "Tue 2026-11-03 paused",
                "Wed 2026-11-04 12:00-21:30 every 30m (20)", "70 slots in 8 days",
            ])
    }

    @Test func theICalendarExportParsesAndEveryEventIsAtItsInstant() throws {
        let h = try Self.setUp()
        // Text that needs escaping and folding: commas, semicolons, a backslash, a line break, non-ASCII.
        let title = "공부 시작?; now, \\ really"
        let body = String(repeating: "일본어 회화 공부를 시작하세요, please; ", count: 4) + "end"
        try h.configOK(["set", "title", title, "body", body], now: "2026-10-28T11:00")
        let now = "2026-10-28T12:00"
        let ics = h.dir + "/plan.ics"
        try Data(try h.plannerOK(["export", "--ics", "--days", "14"], now: now).utf8).write(to: URL(fileURLWithPath: ics))
        let planJSON = h.dir + "/plan.json"
        try Data(try h.plannerOK(["plan", "--json", "--days", "14"], now: now).utf8).write(to: URL(fileURLWithPath: planJSON))
        // The plan itself was checked against zoneinfo above; here every event must be one of its slots.
        let r = try h.run("/usr/bin/python3", ["-c", pythonCheckCalendar, ics, planJSON, title, body], env: h.env)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.trimmingCharacters(in: .whitespacesAndNewlines) == "170")  // Thu, Mon, Thu, Fri, Mon, Tue whole; Wed from 12:00
        // The same slot keeps its UID from one export to the next.
        let later = try h.plannerOK(["export", "--ics"], now: "2026-10-29T15:00")
        #expect(later.contains("UID:Noti_AppOpenPromotion_2026_11_02_09_30@planner\r\n"))
        #expect(!later.contains("2026_10_30"))  // skipped
    }

    /// Zones whose clocks change by half an hour (Lord Howe), at an odd offset (Chatham, +13:45 to +12:45),
    /// and forward (Berlin), all within the two weeks exported.
    @Test(arguments: ["Australia/Lord_Howe", "Pacific/Chatham", "Europe/Berlin"])
    func theVTIMEZONEHoldsOddOffsetChanges(zone: String) throws {
        var h = try Harness()
        h.env["TZ"] = zone
        let now = "2027-03-25T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        let (calendar, r) = try h.checkedExport(now: now)
        #expect(r.status == 0, "\(zone): \(r.err)")
        #expect(r.out.trimmingCharacters(in: .whitespacesAndNewlines) == "244")  // Thursday from 12:30 (19), then nine weekdays of 25
        #expect(calendar.components(separatedBy: "TZOFFSETFROM:").count == 3, "\(zone): the start and one change")
    }

    /// A real calendar client imports the export and lists each slot at its local time, in the plan's zone
    /// and converted to another.
    @Test func khalImportsTheExportAtTheRightLocalTimes() throws {
        let h = try Self.setUp()
        let ics = h.dir + "/plan.ics"
        try Data(try h.plannerOK(["export", "--ics", "--days", "7"], now: "2026-10-29T21:00").utf8)
            .write(to: URL(fileURLWithPath: ics))
        func khal(_ localZone: String, _ args: [String]) throws -> String {
            // Each zone imports into a calendar of its own.
            let calendar = h.dir + "/calendar-" + localZone.replacingOccurrences(of: "/", with: "-")
            try FileManager.default.createDirectory(atPath: calendar, withIntermediateDirectories: true)
            let r = try h.khal(args, calendar: calendar, zone: localZone)
            #expect(r.status == 0, "khal \(args): \(r.err)")
            return r.out
        }
        for zone in ["America/New_York", "Asia/Seoul"] {
            _ = try khal(zone, ["import", "--batch", "-a", "study", ics])
            let listed = try khal(zone, ["list", "--day-format", "", "--format", "{start} {title}", "2026-10-29", "8d"])
                .split(separator: "\n").map(String.init)
            // Expected: the slots of the plan (New York wall times), shown in `zone` as zoneinfo says.
            let expected = try h.python(
                """
                import sys, datetime as dt, zoneinfo
                ny, shown = zoneinfo.ZoneInfo("America/New_York"), zoneinfo.ZoneInfo(sys.argv[1])
                now = dt.datetime(2026, 10, 29, 21, 0, tzinfo=ny)
                for i in range(7):
                    d = now.date() + dt.timedelta(days=i)
                    if d.isoweekday() > 5 or d.isoformat() == "2026-10-30":
                        continue
                    for k in range(25):
                        m = 9 * 60 + 30 + 30 * k
                        t = dt.datetime(d.year, d.month, d.day, m // 60, m % 60, tzinfo=ny)
                        paused = dt.datetime(2026, 11, 3, tzinfo=ny) <= t < dt.datetime(2026, 11, 4, 12, tzinfo=ny)
                        if t > now and not paused:
                            print(t.astimezone(shown).strftime("%Y-%m-%d %H:%M") + " Time to study?")
                """, [zone]
            ).split(separator: "\n").map(String.init)
            #expect(listed.count == 46, "\(zone)")  // Thursday 21:30, Monday's 25, Wednesday from 12:00
            #expect(listed.sorted() == expected.sorted(), "\(zone)")
        }
    }
}
