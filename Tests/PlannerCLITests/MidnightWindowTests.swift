import Foundation
import PlannerHarness
import Testing

/// A study window that crosses midnight (`window 20:00-01:30`): one study day from its evening into the
/// next date. `plan`, `export --ics`, `list`, `stats` and the database agree with an independent
/// computation in Python's zoneinfo, across New York's change back to standard time (Sunday 2026-11-01,
/// 01:00-01:59 happens twice: the first is the slot, as everywhere in the planner).
@Suite struct MidnightWindowTests {
    /// The study days ahead for a window `start-end` (end before start: on the next date) every `interval`
    /// minutes on `days` (ISO weekdays), from the study day `now` is in: `[{date, slots, reason}]`, and the
    /// study day of each instant in `opens`. The rule, written here again: a crossing window's study day
    /// ends one interval after the window's end (at the latest at its start), else at midnight.
    static let independentPlan = """
        import sys, json, datetime as dt, zoneinfo
        zone = zoneinfo.ZoneInfo(sys.argv[1])
        now = dt.datetime.fromisoformat(sys.argv[2]).replace(tzinfo=zone)
        start, end, interval = [int(x) for x in sys.argv[3].split(",")]
        days = set(json.loads(sys.argv[4]))
        skipped, opened = set(json.loads(sys.argv[5])), set(json.loads(sys.argv[6]))
        count = int(sys.argv[7])
        crosses = end < start
        def study_day(t):
            local = t.astimezone(zone)
            if not crosses:
                return local.date()
            ms = ((local.hour * 60 + local.minute) * 60 + local.second) * 1000 + local.microsecond // 1000
            return local.date() - dt.timedelta(days=1) if ms < min(end + interval, start) * 60000 else local.date()
        def exists(t):
            return t.astimezone(dt.timezone.utc).astimezone(zone).replace(tzinfo=None) == t.replace(tzinfo=None)
        today = study_day(now)
        out = []
        for i in range(count):
            d = today + dt.timedelta(days=i)
            slots, ahead = [], False
            last = end + 1440 if crosses else end
            for m in range(start, last + 1, interval):
                day = d + dt.timedelta(days=m // 1440)
                t = dt.datetime(day.year, day.month, day.day, m % 1440 // 60, m % 60, tzinfo=zone)
                if d.isoweekday() not in days or not exists(t) or t <= now:
                    continue
                ahead = True
                if d.isoformat() in skipped or d.isoformat() in opened:
                    continue
                slots.append(t.isoformat())
            if d.isoweekday() not in days:
                reason = "weekend" if d.isoweekday() > 5 else "not a study day"
            elif d.isoformat() in opened:
                reason = "opened"
            elif d.isoformat() in skipped:
                reason = "skipped"
            elif not ahead:
                reason = "over"
            else:
                reason = None
            out.append({"date": d.isoformat(), "slots": slots, "reason": None if slots else reason})
        opens = [study_day(dt.datetime.fromisoformat(t).replace(tzinfo=zone)).isoformat() for t in json.loads(sys.argv[8])]
        print(json.dumps({"plan": out, "opens": opens}))
        """

    static func expected(
        _ h: Harness, now: String, window: String, days: String, skipped: [String] = [],
        opened: [String] = [], count: Int, opens: [String] = []
    ) throws -> (plan: [[String: Any]], opens: [String]) {
        func json(_ list: [String]) -> String { "[" + list.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
        let text = try h.python(independentPlan, ["America/New_York", now, window, days, json(skipped), json(opened), "\(count)", json(opens)])
        let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return (try #require(object["plan"] as? [[String: Any]]), try #require(object["opens"] as? [String]))
    }

    static func plan(_ h: Harness, now: String, days: Int) throws -> [[String: Any]] {
        let out = try h.plannerOK(["plan", "--json", "--days", "\(days)"], now: now)
        return try #require(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
    }

    static func setUp(days: String) throws -> Harness {
        var h = try Harness()
        h.env["TZ"] = "America/New_York"
        _ = try h.plannerOK(["refill"], now: "2026-10-29T12:00")
        try h.configOK(["set", "window", "20:00-01:30", "days", days], now: "2026-10-29T12:01")
        return h
    }

    /// Thursday's study day runs to Friday 01:30: an open at Friday 00:45 cancels Thursday's 01:00 and
    /// 01:30 and leaves Friday evening (and its slots after midnight) alone; the days ahead, across the DST
    /// change, are the independent computation's to the instant.
    @Test func anOpenAfterMidnightClosesTheEveningBeforeAndThePlanMatchesZoneinfo() throws {
        let h = try Self.setUp(days: "daily")
        _ = try h.plannerOK(["open"], now: "2026-10-30T00:45")
        let now = "2026-10-30T00:50"
        let want = try Self.expected(
            h, now: now, window: "1200,90,30", days: "[1,2,3,4,5,6,7]", opened: ["2026-10-29"],
            count: 6, opens: ["2026-10-30T00:45", "2026-10-30T01:59", "2026-10-30T02:00"])
        // The rule itself: up to one interval after the window's end, the evening before; from then, the date.
        #expect(want.opens == ["2026-10-29", "2026-10-29", "2026-10-30"])
        let got = try Self.plan(h, now: now, days: 6)
        #expect(got.count == 6)
        #expect(got.first?["date"] as? String == "2026-10-29")
        #expect(got.first?["reason"] as? String == "opened")
        for (g, w) in zip(got, want.plan) {
            let date = w["date"] as? String ?? "?"
            #expect(g["date"] as? String == date)
            #expect(g["slots"] as? [String] == w["slots"] as? [String], "\(date)")
        }
        // Saturday's study day holds Sunday 01:00 and 01:30 of daylight time, before the clocks go back.
        let saturday = try #require(got.first { $0["date"] as? String == "2026-10-31" }?["slots"] as? [String])
        #expect(saturday.suffix(2) == ["2026-11-01T01:00:00-04:00", "2026-11-01T01:30:00-04:00"])

        // The pending requests: Thursday's after-midnight slots are gone, Friday's are there, named by their
        // own date and time and stored under Friday's study day.
        let pending = try parseList(try h.plannerOK(["list", "--json"], now: now)).compactMap { $0["identifier"] }
        #expect(!pending.contains("Noti_AppOpenPromotion_2026_10_30_01_00"))
        #expect(!pending.contains("Noti_AppOpenPromotion_2026_10_30_01_30"))
        #expect(pending.contains("Noti_AppOpenPromotion_2026_10_30_20_00"))
        #expect(pending.contains("Noti_AppOpenPromotion_2026_10_31_01_30"))
        #expect(try h.sqlite("SELECT local_date FROM request WHERE identifier = 'Noti_AppOpenPromotion_2026_10_31_01_30'") == "2026-10-30")
        #expect(try h.sqlite("SELECT group_concat(local_date) FROM app_open") == "2026-10-29")

        // export --ics has the same instants as plan: each event's DTSTART is one of the plan's slots.
        let ics = try h.plannerOK(["export", "--ics", "--days", "6"], now: now)
        let starts = ics.split(separator: "\r\n").filter { $0.hasPrefix("DTSTART;TZID=America/New_York:") }
            .map { String($0.split(separator: ":").last!) }
        let wantStarts = want.plan.flatMap { $0["slots"] as? [String] ?? [] }.map { slot in
            // 2026-10-30T20:00:00-04:00 → 20261030T200000
            String(slot.prefix(19)).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        }
        #expect(starts == wantStarts)

        // stats: the open belongs to Thursday's study day; Friday is today's, not opened yet.
        let stats = try h.plannerOK(["stats", "--json"], now: "2026-10-30T21:00")
        let days = try #require((JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any])?["days"] as? [[String: Any]])
        #expect(days.first { $0["date"] as? String == "2026-10-29" }?["opened_at"] as? String == "2026-10-30T00:45:00-04:00")
        #expect(days.last?["date"] as? String == "2026-10-30")
        #expect(days.last?["opened_at"] is NSNull)
    }

    /// The days of the week are the study day's: Friday's window runs into Saturday 01:30, nothing starts
    /// on Saturday or Sunday evening, and Monday 00:00 (Sunday's study day) is no slot.
    @Test func weekdaysAndSkipsApplyToTheStudyDay() throws {
        let h = try Self.setUp(days: "mon-fri")
        let now = "2026-10-30T19:00"
        _ = try h.plannerOK(["skip", "2026-11-03"], now: "2026-10-29T12:03", stderrAllowed: true)
        let want = try Self.expected(h, now: now, window: "1200,90,30", days: "[1,2,3,4,5]", skipped: ["2026-11-03"], count: 6)
        let got = try Self.plan(h, now: now, days: 6)
        for (g, w) in zip(got, want.plan) {
            let date = w["date"] as? String ?? "?"
            #expect(g["date"] as? String == date)
            #expect(g["slots"] as? [String] == w["slots"] as? [String], "\(date)")
        }
        let friday = try #require(got.first { $0["date"] as? String == "2026-10-30" }?["slots"] as? [String])
        #expect(friday.last == "2026-10-31T01:30:00-04:00")
        let pending = try parseList(try h.plannerOK(["list", "--json"], now: now)).compactMap { $0["identifier"] }
        #expect(pending.contains("Noti_AppOpenPromotion_2026_10_31_01_30"))
        #expect(!pending.contains { $0.hasPrefix("Noti_AppOpenPromotion_2026_10_31_2") || $0.hasPrefix("Noti_AppOpenPromotion_2026_11_01") })
        #expect(!pending.contains("Noti_AppOpenPromotion_2026_11_02_00_00"))
        // Tuesday skipped: its evening and its slots on Wednesday after midnight; Monday's run into Tuesday.
        #expect(pending.contains("Noti_AppOpenPromotion_2026_11_03_01_30"))
        #expect(!pending.contains { $0.hasPrefix("Noti_AppOpenPromotion_2026_11_03_2") || $0.hasPrefix("Noti_AppOpenPromotion_2026_11_04_0") })
    }
}
