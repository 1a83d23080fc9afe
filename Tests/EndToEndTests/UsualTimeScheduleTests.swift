import Foundation
import PlannerHarness
import Testing

/// The opt-in `usual-time` schedule through the binary: a month of starts around 19:00 on the desktop, the
/// laptop hearing them through the sync folder; both plan the same three reminders, the calendar folder
/// carries exactly those, and `plan` and `status` say why.
@Suite struct UsualTimeScheduleTests {
    @Test func twoDevicesAndTheCalendarPlanTheUsualTimeAndSayWhy() throws {
        let desktop = try Harness()
        let laptop = try Harness()
        let shared = desktop.dir + "/shared"
        let calendar = desktop.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        for (h, name) in [(desktop, "desktop"), (laptop, "laptop")] {
            try h.configOK(["set", "sync-folder", shared, "device-name", name], now: "2026-10-26T07:00")
        }
        try desktop.configOK(["set", "calendar-folder", calendar, "calendar-days", "3"], now: "2026-10-26T07:01")
        // Four weeks of weekdays from Monday 2026-10-26, studied at 18:50-19:10 on all but every fourth.
        var day = 0
        var studied = 0
        for offset in 0..<33 {
            let date = Calendar(identifier: .gregorian).date(
                byAdding: .day, value: offset, to: DateComponents(calendar: Calendar(identifier: .gregorian), year: 2026, month: 10, day: 26).date!)!
            let parts = Calendar(identifier: .gregorian).dateComponents([.year, .month, .day, .weekday], from: date)
            guard parts.weekday != 1 && parts.weekday != 7 else { continue }
            day += 1
            if day % 4 == 0 { continue }
            let minute = [50, 55, 0, 5, 10][studied % 5]
            let hour = minute >= 50 ? 18 : 19
            _ = try desktop.plannerOK(
                ["open"], now: String(format: "%04d-%02d-%02dT%02d:%02d", parts.year!, parts.month!, parts.day!, hour, minute))
            studied += 1
        }
        let warned = try laptop.planner(["config", "set", "schedule", "usual-time", "--db", laptop.db, "--now", "2026-11-30T07:00"])
        #expect(warned.status == 0 && warned.err.contains("warning: usual-time passed the acceptance rules in no cell"), "\(warned.err)")
        for h in [desktop, laptop, desktop] { _ = try h.plannerOK(["sync"], now: "2026-11-30T07:02", stderrAllowed: true) }

        // The median of the last 14 starts is 19:00: 18:45, 19:45 and the last call at 21:15, on both.
        let why = "usual start 19:00 from your last 14 starts: 18:45, 19:45, last call 21:15"
        for h in [desktop, laptop] {
            let plan = try h.plannerOK(["plan", "--days", "2"], now: "2026-11-30T07:05")
            #expect(plan.contains("Mon 2026-11-30    18:45, 19:45, 21:15 (3)"), "\(plan)")
            #expect(plan.contains("Schedule usual-time: \(why)"), "\(plan)")
            let status = try h.plannerOK(["status", "--json"], now: "2026-11-30T07:05", stderrAllowed: true)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
            #expect(json["usual_time"] as? String == why && json["next_id"] as? String == "Noti_AppOpenPromotion_2026_11_30_18_45", "\(status)")
            let pending = try h.sqlite("SELECT count(*) FROM request WHERE state = 'pending' AND local_date = '2026-11-30'")
            #expect(pending == "3")
        }
        // The study score is the same on both: a function of the shared record.
        let scores = try [desktop, laptop].map { h -> String in
            let out = try h.plannerOK(["stats", "--json"], now: "2026-11-30T07:05")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
            return "\(json["score"] ?? "-")"
        }
        #expect(scores[0] == scores[1] && scores[0] != "0" && scores[0] != "-", "\(scores)")
        // The calendar carries those three a day, and no grid slot.
        let files = try FileManager.default.contentsOfDirectory(atPath: calendar).filter { $0.hasPrefix("planner-Noti_") }.sorted()
        #expect(
            files.filter { $0.contains("2026_11_30") }
                == ["18_45", "19_45", "21_15"].map { "planner-Noti_AppOpenPromotion_2026_11_30_\($0).ics" }, "\(files)")
        // A reminder at its time, as planned.
        let tick = try desktop.planner(["tick", "--once", "--sink", "stdout", "--db", desktop.db, "--now", "2026-11-30T18:45"])
        #expect(tick.status == 0 && tick.out.contains("Noti_AppOpenPromotion_2026_11_30_18_45"), "\(tick.out) \(tick.err)")

        // Back to the grid: every slot again.
        try laptop.configOK(["set", "schedule", "grid"], now: "2026-11-30T19:00")
        let grid = try laptop.plannerOK(["plan", "--days", "2"], now: "2026-11-30T19:01")
        #expect(grid.contains("Tue 2026-12-01    09:30-21:30 every 30m (25)") && !grid.contains("usual-time"), "\(grid)")
    }

    /// The tenth studied day arriving from another device turns the grid into the usual time at once: a batch
    /// decided from the record as it was before the batch's own opens would stay the grid until the next
    /// refill, while the calendar written after it had the usual time.
    @Test func anOpenFromAnotherDeviceThatCompletesTheRecordTakesEffectAtOnce() throws {
        let desktop = try Harness()
        let laptop = try Harness()
        let shared = desktop.dir + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        for (h, name) in [(desktop, "desktop"), (laptop, "laptop")] {
            try h.configOK(["set", "sync-folder", shared, "device-name", name], now: "2026-11-02T07:00")
        }
        // Nine studied weekdays among the 20 before Monday 2026-11-30 (Friday the 27th not yet).
        for date in ["11-16", "11-17", "11-18", "11-19", "11-20", "11-23", "11-24", "11-25", "11-26"] {
            _ = try desktop.plannerOK(["open"], now: "2026-\(date)T19:00")
        }
        #expect(try laptop.planner(["config", "set", "schedule", "usual-time", "--db", laptop.db, "--now", "2026-11-30T06:00"]).status == 0)
        _ = try desktop.plannerOK(["sync"], now: "2026-11-30T06:01", stderrAllowed: true)
        _ = try laptop.plannerOK(["sync"], now: "2026-11-30T06:02", stderrAllowed: true)
        let today = "SELECT count(*) FROM request WHERE state = 'pending' AND local_date = '2026-11-30'"
        #expect(try laptop.sqlite(today) == "25", "9 of 20: the grid")
        // Friday's open, recorded late on the desktop, reaches the laptop.
        _ = try desktop.plannerOK(["open"], now: "2026-11-27T19:00")
        _ = try laptop.plannerOK(["sync"], now: "2026-11-30T07:00", stderrAllowed: true)
        #expect(try laptop.sqlite(today) == "3", "10 of 20: the usual time, planned by the sync that brought it")
        let plan = try laptop.plannerOK(["plan", "--days", "1"], now: "2026-11-30T07:01")
        #expect(plan.contains("18:45, 19:45, 21:15 (3)"), "\(plan)")
    }
}
