import Foundation
import PlannerHarness
import Testing

/// The independent computation: Python's zoneinfo (its own TZif reader, not glibc) lists the first
/// 64 weekday slots strictly after `now`; the planner's plan must match it exactly.
let pythonSlots = #"""
    import json, sys
    from datetime import datetime, timedelta, timezone
    from zoneinfo import ZoneInfo
    zone, now_text = ZoneInfo(sys.argv[1]), sys.argv[2]
    now = datetime.fromisoformat(now_text.replace("Z", "+00:00"))
    if now.tzinfo is None:
        now = now.replace(tzinfo=zone)
    day = now.astimezone(zone).date()
    out = []
    while len(out) < 64:
        if day.weekday() < 5:
            for minute in range(9 * 60 + 30, 21 * 60 + 31, 30):
                t = datetime(day.year, day.month, day.day, minute // 60, minute % 60, tzinfo=zone)
                if t.timestamp() > now.timestamp() and len(out) < 64:
                    out.append({"id": "Noti_AppOpenPromotion_" + t.strftime("%Y_%m_%d_%H_%M"), "fire_at": t.isoformat()})
        day += timedelta(days=1)
    print(json.dumps(out))
    """#

@Suite struct SlotTimesTests {
    @Test(arguments: [
        ("America/New_York", "2026-03-06T12:00"),  // Friday before clocks go forward (Sun 8 March)
        ("America/New_York", "2026-10-30T12:00"),  // Friday before clocks go back (Sun 1 November)
        ("America/New_York", "2026-03-06T17:00:00Z"),  // the same moment given as an instant
        ("Europe/Berlin", "2026-10-23T15:10:30"),  // Friday before clocks go back (Sun 25 October)
        ("Europe/Berlin", "2026-03-27T21:00+01:00"),  // Friday before clocks go forward (Sun 29 March)
        ("Asia/Kolkata", "2026-11-23T12:00"),  // +05:30
        ("Pacific/Chatham", "2026-04-03T12:00"),  // +13:45 to +12:45 on Sun 5 April
        ("Pacific/Chatham", "2026-09-25T21:29:59.999"),  // +12:45 to +13:45 on Sun 27 September
        ("Asia/Seoul", "2026-11-21T10:00"),  // a Saturday start
        ("UTC", "2026-12-31T21:31"),  // over a year end
    ])
    func planMatchesZoneinfo(zone: String, now: String) throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: now, extraEnv: ["TZ": zone])
        let actual = try parseList(h.plannerOK(["list", "--json"], now: now, extraEnv: ["TZ": zone]))
        let expected = try parseList(h.python(pythonSlots, [zone, now]))
        #expect(expected.count == 64)
        #expect(actual.map { $0["identifier"] } == expected.map { $0["id"] })
        #expect(actual.map { $0["fire_at_local"] } == expected.map { $0["fire_at"] })
        #expect(actual.allSatisfy { $0["state"] == "pending" })
    }

    @Test func sqlViewsHoldTheSameInstantsInUTC() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-10-30T12:00", extraEnv: ["TZ": "America/New_York"])
        let rows = try h.sqlite("SELECT identifier || ' ' || fire_at FROM pending_requests ORDER BY fire_at").split(separator: "\n")
        let expected = try parseList(h.python(pythonSlots, ["America/New_York", "2026-10-30T12:00"]))
        let formatter = ISO8601DateFormatter()
        let expectedRows = expected.map { e -> String in
            let date = formatter.date(from: e["fire_at"]!)!
            return e["id"]! + " " + formatter.string(from: date)  // UTC with Z
        }
        #expect(rows.map(String.init) == expectedRows)
    }
}
