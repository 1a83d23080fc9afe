import Foundation
import PlannerCore
import PlannerHarness
import Testing

/// The plan's invariants, checked from the database after every step: at most 64 pending, no identifier
/// pending twice, no pending study slot on a skipped or opened date or inside a pause.
func checkInvariants(_ h: Harness, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let pending = try h.pendingRows()
    #expect(pending.count <= 64, "\(step): \(pending.count) pending", sourceLocation: sourceLocation)
    #expect(Set(pending.map(\.id)).count == pending.count, "\(step): an identifier is pending twice", sourceLocation: sourceLocation)
    let skipped = Set(try h.sqlite("SELECT local_date FROM skipped_dates").split(separator: "\n").map(String.init))
    let opened = Set(try h.sqlite("SELECT local_date FROM app_open_events").split(separator: "\n").map(String.init))
    // Pauses in force: [since, until) cut short by ended_at.
    let pauses: [(Int64, Int64?)] = try h.sqlite(
        "SELECT since_ms || '|' || coalesce(min(coalesce(until_ms, ended_at_ms), coalesce(ended_at_ms, until_ms)), '') FROM pause"
    ).split(separator: "\n").map { line in
        let p = line.split(separator: "|", omittingEmptySubsequences: false)
        return (Int64(p[0])!, p.count > 1 ? Int64(p[1]) : nil)
    }
    for row in pending where row.kind == "slot" {
        let date = slotDate(row.id) ?? "?"
        #expect(!skipped.contains(date), "\(step): \(row.id) pending on a skipped date", sourceLocation: sourceLocation)
        #expect(!opened.contains(date), "\(step): \(row.id) pending on an opened date", sourceLocation: sourceLocation)
        for (since, until) in pauses where row.at >= since && (until.map { row.at < $0 } ?? true) {
            Issue.record("\(step): \(row.id) pending inside a pause", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct SettingsTests {
    // MARK: 1. Schedules match zoneinfo

    struct ScheduleCase: Sendable, CustomStringConvertible {
        var zone: String, now: String, set: [String], start: String, end: String, interval: Int, days: [Int]
        var description: String { "\(zone) \(now) \(set.joined(separator: " "))" }
    }

    static let scheduleCases: [ScheduleCase] = [
        ScheduleCase(
            zone: "Asia/Seoul", now: "2026-11-23T12:00", set: ["window", "08:00-20:00", "interval", "45m"],
            start: "08:00", end: "20:00", interval: 45, days: [1, 2, 3, 4, 5]),
        ScheduleCase(
            zone: "Asia/Seoul", now: "2026-11-23T12:00", set: ["days", "sat-sun"],
            start: "09:30", end: "21:30", interval: 30, days: [6, 7]),
        ScheduleCase(
            zone: "Europe/Berlin", now: "2026-11-21T10:00", set: ["days", "mon,wed,fri"],
            start: "09:30", end: "21:30", interval: 30, days: [1, 3, 5]),
        ScheduleCase(
            zone: "Asia/Kolkata", now: "2026-11-23T12:00", set: ["window", "06:15-23:59", "interval", "1h30m", "days", "fri-mon"],
            start: "06:15", end: "23:59", interval: 90, days: [5, 6, 7, 1]),
        // Clocks go forward at 02:00 on Sunday 8 March: 02:00 and 02:30 do not exist.
        ScheduleCase(
            zone: "America/New_York", now: "2026-03-06T12:00", set: ["window", "01:00-04:00", "interval", "30m", "days", "daily"],
            start: "01:00", end: "04:00", interval: 30, days: [1, 2, 3, 4, 5, 6, 7]),
        // Clocks go back at 03:00 on Sunday 25 October: 02:00 and 02:30 happen twice, the first counts.
        ScheduleCase(
            zone: "Europe/Berlin", now: "2026-10-23T12:00", set: ["window", "01:00-04:00", "interval", "30m", "days", "daily"],
            start: "01:00", end: "04:00", interval: 30, days: [1, 2, 3, 4, 5, 6, 7]),
        // Clocks go back at 02:00 on Sunday 1 November, on a weekend-only plan.
        ScheduleCase(
            zone: "America/New_York", now: "2026-10-30T12:00", set: ["window", "00:05-03:05", "interval", "20m", "days", "weekends"],
            start: "00:05", end: "03:05", interval: 20, days: [6, 7]),
    ]

    @Test(arguments: SettingsTests.scheduleCases)
    func scheduleMatchesZoneinfo(c: ScheduleCase) throws {
        let h = try Harness()
        let env = ["TZ": c.zone]
        let now = c.now
        _ = try h.plannerOK(["refill"], now: now, extraEnv: env)
        try h.configOK(["set"] + c.set, now: now, env: env)
        let expected = try h.expectedPlan(["zone": c.zone, "now": now, "start": c.start, "end": c.end, "interval": c.interval, "days": c.days])
        #expect(expected.count == 64)
        // The re-plan happened in `config set` itself, and a refill right after changes nothing.
        for step in ["after config set", "after refill"] {
            if step == "after refill" { _ = try h.plannerOK(["refill"], now: now, extraEnv: env) }
            let list = try h.listed(now, env: env)
            #expect(list.map { $0["identifier"] } == expected.map(\.id), "\(step)")
            #expect(list.map { $0["fire_at_local"] } == expected.map(\.fireAt), "\(step)")
            #expect(try h.pendingRows().map(\.at) == expected.map(\.utcMs), "\(step)")
            try checkInvariants(h, step)
        }
    }

    /// The DST cases spelled out, so a generator that went wrong the same way as the planner would show.
    /// A stored setting the planner cannot use is said on each command's stderr once, for each database:
    /// two databases in one process (two devices of a test, here in-process) each say theirs. The warnings
    /// were once per process, so the second said nothing.
    @Test func eachCommandSaysItsOwnWarningOnce() throws {
        for _ in 0..<2 {
            let h = try Harness()
            _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
            _ = try h.sqlite("UPDATE setting SET value = '7s' WHERE key = 'interval'")
            for _ in 0..<2 {
                let r = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T08:01"])
                #expect(r.status == 0, "\(r.err)")
                let said = r.err.split(separator: "\n").filter { $0.hasPrefix("warning: the stored interval setting '7s' cannot be used") }
                #expect(said.count == 1, "\(r.err)")
            }
        }
    }

    @Test func dstReadingsAreSkippedOrTakenOnce() throws {
        let h = try Harness()
        let ny = ["TZ": "America/New_York"]
        _ = try h.plannerOK(["refill"], now: "2026-03-07T12:00", extraEnv: ny)
        try h.configOK(["set", "window", "01:00-04:00", "interval", "30m", "days", "daily"], now: "2026-03-07T12:00", env: ny)
        let list = try h.listed("2026-03-07T12:00", env: ny).filter { $0["identifier"]!.contains("_2026_03_08_") }
        #expect(
            list.map { $0["fire_at_local"]! } == [
                "2026-03-08T01:00:00-05:00", "2026-03-08T01:30:00-05:00",
                "2026-03-08T03:00:00-04:00", "2026-03-08T03:30:00-04:00", "2026-03-08T04:00:00-04:00",
            ])

        let b = try Harness()
        let berlin = ["TZ": "Europe/Berlin"]
        _ = try b.plannerOK(["refill"], now: "2026-10-24T12:00", extraEnv: berlin)
        try b.configOK(["set", "window", "01:00-04:00", "interval", "30m", "days", "daily"], now: "2026-10-24T12:00", env: berlin)
        let sunday = try b.listed("2026-10-24T12:00", env: berlin).filter { $0["identifier"]!.contains("_2026_10_25_") }
        #expect(
            sunday.map { $0["fire_at_local"]! } == [
                "2026-10-25T01:00:00+02:00", "2026-10-25T01:30:00+02:00", "2026-10-25T02:00:00+02:00",
                "2026-10-25T02:30:00+02:00", "2026-10-25T03:00:00+01:00", "2026-10-25T03:30:00+01:00",
                "2026-10-25T04:00:00+01:00",
            ])
    }

    // MARK: 2. Re-planning at once

    @Test func scheduleChangeReplansInTheSameCommand() throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        _ = try h.plannerOK(["add", "--in", "2h", "--title", "x"], now: now)
        let oneOff = try h.sqlite("SELECT id, identifier, fire_at_ms, title, body, state FROM request WHERE kind = 'oneoff'")
        #expect(!oneOff.isEmpty)
        let before = Set(try h.pendingRows().filter { $0.kind == "slot" }.map(\.id))

        try h.configOK(["set", "window", "08:00-20:00", "interval", "45m"], now: now)
        let expected = try h.expectedPlan(["zone": "Asia/Seoul", "now": now, "start": "08:00", "end": "20:00", "interval": 45])
        let slots = try h.pendingRows().filter { $0.kind == "slot" }
        // The one-off counts toward the 64: the slots are the soonest 63 of the new schedule.
        #expect(slots.count == 63)
        #expect(slots.map(\.id) == Array(expected.prefix(63)).map(\.id))
        #expect(slots.map(\.at) == Array(expected.prefix(63)).map(\.utcMs))
        #expect(try h.sqlite("SELECT id, identifier, fire_at_ms, title, body, state FROM request WHERE kind = 'oneoff'") == oneOff)
        // Every slot that was pending and is not in the new plan was retired as 'schedule changed'.
        let gone = before.subtracting(slots.map(\.id))
        #expect(!gone.isEmpty)
        // (The slot the one-off pushed out stays 'displaced': it was not pending.)
        let retired = try h.sqlite(
            "SELECT identifier || '|' || state || '|' || reason FROM request WHERE kind = 'slot' AND state NOT IN ('pending', 'displaced') ORDER BY identifier"
        )
        .split(separator: "\n").map(String.init)
        #expect(Set(retired) == Set(gone.map { "\($0)|retired|schedule changed" }))
        try checkInvariants(h, "after config set window/interval")
    }

    @Test func contentChangeKeepsIdentifiersAndOneOffs() throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        _ = try h.plannerOK(["add", "--in", "2h", "--title", "x"], now: now)
        let oneOff = try h.sqlite("SELECT id, identifier, fire_at_ms, title, body, state FROM request WHERE kind = 'oneoff'")
        let before = try h.pendingRows().filter { $0.kind == "slot" }

        try h.configOK(["set", "title", "Lesson time", "body", "Ten minutes of verbs."], now: now)
        let after = try h.pendingRows().filter { $0.kind == "slot" }
        #expect(after.map(\.id) == before.map(\.id))
        #expect(after.map(\.at) == before.map(\.at))
        #expect(after.allSatisfy { $0.title == "Lesson time" && $0.body == "Ten minutes of verbs." })
        let list = try h.listed(now).filter { $0["kind"] == "slot" }
        #expect(list.count == before.count)
        #expect(list.allSatisfy { $0["title"] == "Lesson time" && $0["body"] == "Ten minutes of verbs." })
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'retired' AND reason = 'content changed'") == "\(before.count)")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE kind = 'slot' AND state NOT IN ('pending', 'retired', 'displaced')") == "0")
        #expect(try h.sqlite("SELECT id, identifier, fire_at_ms, title, body, state FROM request WHERE kind = 'oneoff'") == oneOff)
        try checkInvariants(h, "after config set title/body")
    }

    /// A slot due a few minutes ago and not yet delivered (within grace) keeps its place when only the
    /// text changes: same identifier, new text, still delivered. (Retiring it without a replacement loses
    /// a reminder that is neither delivered nor missed.)
    @Test func contentChangeKeepsASlotDueWithinGrace() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T11:50")
        try h.configOK(["set", "title", "Lesson time"], now: "2026-11-23T12:05")
        let ids = try h.pendingRows().map(\.id)
        #expect(ids.first == "Noti_AppOpenPromotion_2026_11_23_12_00", "the 12:00 slot due 5 minutes ago is gone: \(ids.prefix(2))")
        #expect(try h.pendingRows().allSatisfy { $0.title == "Lesson time" })
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:06", stderrAllowed: true)
        #expect(out == "Noti_AppOpenPromotion_2026_11_23_12_00\t2026-11-23T12:00:00+09:00\tLesson time\n")
        // Later deliveries carry the new text too.
        let later = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:30", stderrAllowed: true)
        #expect(later == "Noti_AppOpenPromotion_2026_11_23_12_30\t2026-11-23T12:30:00+09:00\tLesson time\n")
    }

    /// A zone is stored by its normalized tz name (`Europe//Berlin` is no such name; zoneinfo refuses it).
    @Test func zoneNameIsNormalizedOrRefused() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let r = try h.config(["set", "zone", "Europe//Berlin"], now: "2026-11-23T12:00")
        if r.status == 0 {
            #expect(try h.config(["get", "zone"], now: "2026-11-23T12:00").out == "Europe/Berlin\n")
            #expect(try h.sqlite("SELECT DISTINCT zone FROM request WHERE state = 'pending'") == "Europe/Berlin")
        } else {
            #expect(r.status == 64)
            #expect(r.err.contains("zone"))
        }
    }

    @Test func openedDateStaysClosedAfterAScheduleChange() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:10")
        for (now, set) in [
            ("2026-11-23T12:20", ["window", "06:00-23:45", "interval", "15m"]),
            ("2026-11-23T12:30", ["days", "daily"]),
            ("2026-11-23T12:40", ["zone", "Asia/Tokyo"]),
        ] {
            try h.configOK(["set"] + set, now: now)
            let ids = try h.pendingRows().map(\.id)
            #expect(ids.count == 64)
            #expect(!ids.contains { $0.contains("_2026_11_23_") }, "\(set): a slot on the opened date came back")
            try checkInvariants(h, "after config set \(set)")
        }
        // And the plan is exactly the new schedule from tomorrow on.
        let expected = try h.expectedPlan([
            "zone": "Asia/Tokyo", "now": "2026-11-23T12:40+09:00", "start": "06:00", "end": "23:45",
            "interval": 15, "days": [1, 2, 3, 4, 5, 6, 7], "exclude_dates": ["2026-11-23"],
        ])
        #expect(try h.pendingRows().map(\.id) == expected.map(\.id))
        #expect(try h.pendingRows().map(\.at) == expected.map(\.utcMs))
    }

    @Test(arguments: [
        ["window", "08:00-20:00", "interval", "4m"],
        ["interval", "4m", "window", "08:00-20:00"],
        ["window", "08:00-20:00", "colour", "red"],
        ["title", "New", "zone", "Mars/Base"],
        ["days", "daily", "days", "funday"],
        ["window", "08:00-20:00", "interval"],
    ])
    func setWithOneBadPairChangesNothing(args: [String]) throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        let before = h.bytes(h.db)
        #expect(before != nil)
        let r = try h.config(["set"] + args, now: now)
        #expect(r.status == 64, "\(r.status) \(r.err)")
        #expect(!r.err.isEmpty)
        #expect(h.bytes(h.db) == before, "the database changed")
    }

    // MARK: 3. A zone change during the week

    @Test func zoneChangeNeverDeliversTwiceAndNeverPlansIntoThePast() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")  // Monday, Seoul
        var delivered: [String] = []
        for now in ["2026-11-23T09:30", "2026-11-23T12:00", "2026-11-23T12:00:30", "2026-11-24T18:00"] {
            let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: now, stderrAllowed: true)
            delivered += out.split(separator: "\n").map { String($0.split(separator: "\t").first!) }
            _ = try h.plannerOK(["refill"], now: now)
            try checkInvariants(h, "Seoul tick at \(now)")
        }
        #expect(
            delivered == [
                "Noti_AppOpenPromotion_2026_11_23_09_30", "Noti_AppOpenPromotion_2026_11_23_12_00",
                "Noti_AppOpenPromotion_2026_11_24_18_00",
            ])

        // Tuesday 18:05 in Seoul is 10:05 in Berlin: the flight landed.
        let change = "2026-11-24T09:05:00Z"
        try h.configOK(["set", "zone", "Europe/Berlin"], now: change)
        let nowMs = epochMs(change)
        let pending = try h.pendingRows()
        #expect(pending.count == 64)
        #expect(pending.allSatisfy { $0.at > nowMs }, "a slot was re-planned into the past")
        // Every pending slot fires at the wall-clock time its identifier names, in Berlin.
        let ids = pending.map(\.id)
        let argv = String(decoding: try JSONSerialization.data(withJSONObject: ids), as: UTF8.self)
        let wall =
            try JSONSerialization.jsonObject(with: Data(try h.python(pythonWallClock, ["Europe/Berlin", argv]).utf8)) as? [String: NSNumber] ?? [:]
        for row in pending {
            #expect(wall[row.id]?.int64Value == row.at, "\(row.id) not at its Berlin wall-clock time")
        }
        // Berlin's plan from now on, soonest first, without what Seoul already delivered (Tuesday 18:00 is
        // still ahead in Berlin but was shown) nor any identifier that already ended (a slot missed in
        // Seoul, never shown, may come back in Berlin: `zoneChangePlansSlotsThatSeoulMissed`).
        let ended = try h.sqlite(
            "SELECT identifier FROM request WHERE state NOT IN ('pending', 'displaced', 'retired', 'paused', 'skipped', 'missed')"
        )
        .split(separator: "\n").map(String.init)
        #expect(Set(delivered).isSubset(of: ended))
        let expected = try h.expectedPlan(["zone": "Europe/Berlin", "now": change, "exclude_ids": ended])
        #expect(ids == expected.map(\.id))
        #expect(pending.map(\.at) == expected.map(\.utcMs))
        #expect(!ids.contains("Noti_AppOpenPromotion_2026_11_24_18_00"))
        #expect(try h.sqlite("SELECT value FROM settings WHERE key = 'zone'") == "Europe/Berlin")
        try checkInvariants(h, "after config set zone")

        // The rest of the week in Berlin: ticks at every slot time of Tuesday evening, Wednesday morning.
        let berlin = ["TZ": "Europe/Berlin"]
        for now in [
            "2026-11-24T10:30", "2026-11-24T12:00", "2026-11-24T18:00", "2026-11-24T18:00:10",
            "2026-11-24T21:30", "2026-11-25T09:30",
        ] {
            _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: now, extraEnv: berlin, stderrAllowed: true)
            _ = try h.plannerOK(["refill"], now: now, extraEnv: berlin)
            try checkInvariants(h, "Berlin tick at \(now)")
        }
        let all = try h.sqlite("SELECT identifier FROM delivered_notifications").split(separator: "\n").map(String.init)
        #expect(all.count == Set(all).count, "delivered twice: \(all)")
        #expect(
            Set(all).isSuperset(of: [
                "Noti_AppOpenPromotion_2026_11_24_21_30",
                "Noti_AppOpenPromotion_2026_11_25_09_30",
            ]))
        #expect(
            try h.sqlite(
                "SELECT count(*) FROM request WHERE identifier = 'Noti_AppOpenPromotion_2026_11_24_18_00' AND state IN ('delivered', 'delivering')")
                == "1")
    }

    /// A slot Seoul marked missed (its Seoul time passed unseen) names a Berlin time still ahead, never
    /// shown to anyone. `config set zone` promises "the soonest fitting ones are added up to 64": on a
    /// Tuesday morning in Berlin that is Tuesday 10:30 on, not a gap until 18:30.
    @Test func zoneChangePlansSlotsThatSeoulMissed() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-24T09:00")  // Tuesday, Seoul
        // The laptop slept all day: at 18:05 Seoul the day's slots are missed (none was shown).
        _ = try h.plannerOK(["refill"], now: "2026-11-24T18:05")
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'missed'") == "17")
        #expect(try h.sqlite("SELECT count(*) FROM delivered_notifications") == "0")
        let change = "2026-11-24T09:05:00Z"  // 10:05 in Berlin
        try h.configOK(["set", "zone", "Europe/Berlin"], now: change)
        let expected = try h.expectedPlan(["zone": "Europe/Berlin", "now": change])
        let pending = try h.pendingRows()
        #expect(pending.first?.id == "Noti_AppOpenPromotion_2026_11_24_10_30")
        #expect(pending.map(\.id) == expected.map(\.id))
        #expect(pending.map(\.at) == expected.map(\.utcMs))
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-24T10:30", extraEnv: ["TZ": "Europe/Berlin"], stderrAllowed: true)
        #expect(try h.sqlite("SELECT identifier FROM delivered_notifications") == "Noti_AppOpenPromotion_2026_11_24_10_30")
    }

    // MARK: 4. Pause, resume, skip

    @Test func pauseForTwoDaysThenItEndsByItself() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")  // Monday, Seoul
        _ = try h.plannerOK(["pause", "--for", "2d"], now: "2026-11-23T12:00", stderrAllowed: false)
        try checkInvariants(h, "after pause")
        #expect(try h.sqlite("SELECT since, until, ended_at IS NULL FROM pauses") == "2026-11-23T03:00:00Z|2026-11-25T03:00:00Z|1")
        let pause: [Any] = ["2026-11-23T12:00", "2026-11-25T12:00"]
        let inPause = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-11-23T12:00", "pause": pause])
        #expect(try h.pendingRows().map(\.id) == inPause.map(\.id))
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'paused' AND reason = 'paused until 2026-11-25T12:00:00+09:00'") != "0")

        _ = try h.plannerOK(["add", "--at", "2026-11-23T18:00", "--title", "call mum"], now: "2026-11-23T12:05")
        _ = try h.plannerOK(["add", "--at", "2026-11-24T10:00", "--title", "dentist"], now: "2026-11-23T12:05")
        try checkInvariants(h, "after add")
        var shown: [String] = []
        for now in [
            "2026-11-23T12:30", "2026-11-23T18:00", "2026-11-23T21:30", "2026-11-24T09:30", "2026-11-24T10:00",
            "2026-11-24T21:30", "2026-11-25T11:30",
        ] {
            _ = try h.plannerOK(["refill"], now: now)
            let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: now, stderrAllowed: true)
            shown += out.split(separator: "\n").map { String($0.split(separator: "\t").first!) }
            try checkInvariants(h, "in the pause at \(now)")
            let slots = try h.pendingRows().filter { $0.kind == "slot" }
            let expected = try h.expectedPlan(["zone": "Asia/Seoul", "now": now, "pause": pause])
            #expect(slots.map(\.id) == Array(expected.prefix(slots.count)).map(\.id), "at \(now)")
        }
        #expect(shown == ["Noti_Reminder_2026_11_23_18_00_00", "Noti_Reminder_2026_11_24_10_00_00"])
        #expect(try h.sqlite("SELECT count(*) FROM delivered_notifications WHERE kind = 'slot'") == "0")

        // Over: Wednesday 12:00 is the first slot back, at the next refill, without `resume`.
        _ = try h.plannerOK(["refill"], now: "2026-11-25T11:59")
        _ = try h.plannerOK(["refill"], now: "2026-11-25T12:00:01")
        let back = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-11-25T12:00:01"])
        let pending = try h.pendingRows()
        #expect(pending.first?.id == "Noti_AppOpenPromotion_2026_11_25_12_00")
        #expect(Array(pending.dropFirst()).map(\.id) == Array(back.prefix(63)).map(\.id))
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-25T12:00:02")
        #expect(out.hasPrefix("Noti_AppOpenPromotion_2026_11_25_12_00\t"))
        try checkInvariants(h, "after the pause")
    }

    @Test func pauseThenResumeBringsBackWhatIsAhead() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.plannerOK(["add", "--at", "2026-11-23T15:10", "--title", "x"], now: "2026-11-23T12:00")
        _ = try h.plannerOK(["pause"], now: "2026-11-23T12:00", stderrAllowed: true)
        try checkInvariants(h, "after pause")
        #expect(try h.pendingRows().map(\.kind) == ["oneoff"])
        #expect(try h.sqlite("SELECT DISTINCT reason FROM request WHERE state = 'paused'") == "paused until resume")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T13:00")
        #expect(try h.pendingRows().map(\.kind) == ["oneoff"])
        try checkInvariants(h, "refill in the pause")

        _ = try h.plannerOK(["resume"], now: "2026-11-23T14:10", stderrAllowed: true)
        try checkInvariants(h, "after resume")
        let expected = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-11-23T14:10"])
        let slots = try h.pendingRows().filter { $0.kind == "slot" }
        #expect(slots.count == 63)
        #expect(slots.map(\.id) == Array(expected.prefix(63)).map(\.id))
        #expect(slots.map(\.at) == Array(expected.prefix(63)).map(\.utcMs))
        #expect(try h.sqlite("SELECT ended_at FROM pauses") == "2026-11-23T05:10:00Z")
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T14:30")
        #expect(out.hasPrefix("Noti_AppOpenPromotion_2026_11_23_14_30\t"))
    }

    /// A study slot due a few minutes ago (still within grace, not yet delivered) is not shown once the
    /// user has paused: the pause holds "no study slot is pending or delivered from since until until".
    @Test func pauseStopsAStudySlotStillWithinItsGrace() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T11:50")
        _ = try h.plannerOK(["pause"], now: "2026-11-23T12:05", stderrAllowed: true)
        try checkInvariants(h, "after pause")
        #expect(try h.pendingRows().filter { $0.kind == "slot" }.isEmpty, "a study slot is still pending after pause")
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:06", stderrAllowed: true)
        #expect(out.isEmpty, "delivered during the pause: \(out)")
        #expect(try h.sqlite("SELECT count(*) FROM delivered_notifications") == "0")
    }

    /// A change made during a pause and with a skipped date re-plans around both.
    @Test func configSetDuringAPauseKeepsThePauseAndTheSkips() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.plannerOK(["pause", "--for", "2d"], now: "2026-11-23T12:00", stderrAllowed: true)
        _ = try h.plannerOK(["skip", "2026-11-27"], now: "2026-11-23T12:00", stderrAllowed: true)
        try h.configOK(["set", "days", "daily", "window", "06:00-23:00"], now: "2026-11-23T12:10")
        try checkInvariants(h, "after config set in a pause")
        let expected = try h.expectedPlan([
            "zone": "Asia/Seoul", "now": "2026-11-23T12:10", "start": "06:00", "end": "23:00",
            "days": [1, 2, 3, 4, 5, 6, 7], "exclude_dates": ["2026-11-27"],
            "pause": ["2026-11-23T12:00", "2026-11-25T12:00"],
        ])
        #expect(try h.pendingRows().map(\.id) == expected.map(\.id))
        #expect(try h.pendingRows().map(\.at) == expected.map(\.utcMs))
    }

    /// Eastward (Berlin to Seoul): the Seoul times already past are not planned, not even one that is
    /// exactly now (a re-plan follows refill's rule: strictly after now; issue 19); the rest are at Seoul
    /// wall-clock times.
    @Test func zoneChangeEastwardPlansNothingIntoThePast() throws {
        let h = try Harness()
        let berlin = ["TZ": "Europe/Berlin"]
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00", extraEnv: berlin)
        try h.configOK(["set", "zone", "Asia/Seoul"], now: "2026-11-23T08:00:00Z", env: berlin)  // 17:00 in Seoul
        let pending = try h.pendingRows()
        #expect(pending.allSatisfy { $0.at > epochMs("2026-11-23T08:00:00Z") })
        let expected = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-11-23T08:00:00Z"])
        #expect(pending.map(\.id) == expected.map(\.id))
        #expect(pending.map(\.at) == expected.map(\.utcMs))
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'missed'") == "16")  // 09:30 to 17:00 in Seoul
        try checkInvariants(h, "after config set zone eastward")
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T08:00:01Z", stderrAllowed: true)
        #expect(out.isEmpty, "fired at once after the zone change: \(out)")
    }

    /// The grace setting is what refill and tick use when no --grace is given.
    @Test func graceSettingIsTheDefaultGrace() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T11:50")
        try h.configOK(["set", "grace", "1m"], now: "2026-11-23T11:50")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:01:30")
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'Noti_AppOpenPromotion_2026_11_23_12_00'") == "missed")
        try h.configOK(["set", "grace", "2h"], now: "2026-11-23T12:01:30")
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T13:59", stderrAllowed: true)
        // Several due at once: only the latest is delivered, within the 2-hour grace.
        #expect(out.hasPrefix("Noti_AppOpenPromotion_2026_11_23_13_30\t"))
    }

    /// A new pause replaces the one in force: a shorter one brings back what lies after it; an opened
    /// date stays closed through pause and resume.
    @Test func aNewPauseReplacesTheOneInForce() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.plannerOK(["pause", "--for", "2d"], now: "2026-11-23T12:00", stderrAllowed: true)
        _ = try h.plannerOK(["pause", "--for", "1h"], now: "2026-11-23T12:10", stderrAllowed: true)
        try checkInvariants(h, "after the second pause")
        #expect(try h.sqlite("SELECT count(*) FROM pauses WHERE ended_at IS NULL") == "1")
        let expected = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-11-23T12:10", "pause": ["2026-11-23T12:10", "2026-11-23T13:10"]])
        #expect(try h.pendingRows().map(\.id) == expected.map(\.id))
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:20")
        _ = try h.plannerOK(["pause", "--until", "2026-11-24"], now: "2026-11-23T12:30", stderrAllowed: true)
        _ = try h.plannerOK(["resume"], now: "2026-11-23T12:40", stderrAllowed: true)
        try checkInvariants(h, "after open, pause, resume")
        let reopened = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-11-23T12:40", "exclude_dates": ["2026-11-23"]])
        #expect(try h.pendingRows().map(\.id) == reopened.map(\.id))
    }

    @Test func skipListAndRemove() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-12-23T12:00")  // Wednesday
        _ = try h.plannerOK(["add", "--at", "2026-12-24T20:00", "--title", "Christmas Eve"], now: "2026-12-23T12:00")
        let onSkipped = try h.pendingRows().filter { $0.kind == "slot" && ["2026-12-24", "2026-12-25", "2026-12-26"].contains(slotDate($0.id)!) }
        #expect(onSkipped.count == 44)  // Thursday's 25, Friday's first 19 (Wednesday's 19, and the one-off)
        _ = try h.plannerOK(["skip", "2026-12-24..2026-12-26", "--reason", "holidays"], now: "2026-12-23T12:00")
        try checkInvariants(h, "after skip")
        #expect(
            try h.sqlite("SELECT local_date || '|' || reason FROM skipped_dates") == "2026-12-24|holidays\n2026-12-25|holidays\n2026-12-26|holidays")
        let list =
            try JSONSerialization.jsonObject(with: Data(h.plannerOK(["skip", "--list", "--json"], now: "2026-12-23T12:00").utf8))
            as? [[String: String]]
        // The view's names (`local_date`), and `date`, the name it had before, beside them.
        #expect(
            list == ["2026-12-24", "2026-12-25", "2026-12-26"].map { ["local_date": $0, "reason": "holidays", "date": $0] })
        let skipped = ["2026-12-24", "2026-12-25", "2026-12-26"]
        var expected = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-12-23T12:00", "exclude_dates": skipped])
        var slots = try h.pendingRows().filter { $0.kind == "slot" }
        #expect(slots.map(\.id) == Array(expected.prefix(63)).map(\.id))
        #expect(try h.sqlite("SELECT count(*) FROM request WHERE state = 'skipped' AND reason = 'date skipped'") == "\(onSkipped.count)")
        #expect(try h.pendingRows().contains { $0.kind == "oneoff" }, "a skip removed a one-off")

        for now in ["2026-12-23T21:30", "2026-12-24T10:00"] {
            _ = try h.plannerOK(["refill"], now: now)
            _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: now, stderrAllowed: true)
            try checkInvariants(h, "refill at \(now)")
        }
        // Thursday 15:10: the 24th comes back from 15:30 on, the 25th whole; the 26th is a Saturday.
        _ = try h.plannerOK(["skip", "--remove", "2026-12-24..2026-12-25"], now: "2026-12-24T15:10", stderrAllowed: true)
        try checkInvariants(h, "after skip --remove")
        #expect(try h.sqlite("SELECT local_date FROM skipped_dates") == "2026-12-26")
        expected = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-12-24T15:10", "exclude_dates": ["2026-12-26"]])
        slots = try h.pendingRows().filter { $0.kind == "slot" }
        #expect(slots.first?.id == "Noti_AppOpenPromotion_2026_12_24_15_30")
        #expect(slots.map(\.id) == Array(expected.prefix(slots.count)).map(\.id))
        #expect(try h.pendingRows().count == 64)
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-12-24T15:30")
        #expect(out.hasPrefix("Noti_AppOpenPromotion_2026_12_24_15_30\t"))

        // A skip of a date that is opened keeps it closed after removal too.
        _ = try h.plannerOK(["open"], now: "2026-12-24T15:40")
        _ = try h.plannerOK(["skip", "2026-12-24"], now: "2026-12-24T15:41", stderrAllowed: true)
        _ = try h.plannerOK(["skip", "--remove", "2026-12-24"], now: "2026-12-24T15:42", stderrAllowed: true)
        try checkInvariants(h, "after skip/remove of an opened date")
    }

    // MARK: 5. Bad values

    @Test(arguments: [
        (["config", "set", "window", "21:30-9:30"], ["window", "HH:MM-HH:MM"]),
        (["config", "set", "interval", "7s"], ["interval", "5m to 12h"]),
        (["config", "set", "interval", "4m"], ["interval", "5m to 12h"]),
        (["config", "set", "interval", "13h"], ["interval", "5m to 12h"]),
        (["config", "set", "days", "funday"], ["days", "mon tue wed thu fri sat sun"]),
        (["config", "set", "colour", "red"], ["colour", "window, interval, days"]),
        (["config", "set", "zone", "Mars/Base"], ["zone", "tz database name"]),
        (["config", "set", "grace", "0s"], ["grace", "1m to 24h"]),
        (["config", "set", "grace", "25h"], ["grace", "1m to 24h"]),
        (["config", "set", "urgency", "loud"], ["urgency", "low, normal or critical"]),
        (["config", "get", "colour"], ["colour", "window, interval, days"]),
        (["config", "reset", "colour"], ["colour", "window, interval, days"]),
        (["skip", "2026-12-26..2026-12-24"], ["2026-12-26..2026-12-24", "earlier date first"]),
        (["skip", "2026-02-30"], ["2026-02-30", "YYYY-MM-DD"]),
        (["pause", "--until", "2026-11-20"], ["--until", "future"]),
        (["pause", "--until", "2026-11-23T11:59"], ["--until", "future"]),
        (["pause", "--for", "0s"], ["--for"]),
    ])
    func badValueIsRefusedAndChangesNothing(args: [String], mentions: [String]) throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        _ = try h.plannerOK(["pause", "--until", "2026-11-23T13:00"], now: now, stderrAllowed: true)
        _ = try h.plannerOK(["skip", "2026-12-01"], now: now, stderrAllowed: true)
        let before = h.bytes(h.db)
        let r = try h.planner(args + ["--db", h.db, "--now", now])
        #expect(r.status == 64, "\(args): exit \(r.status)")
        #expect(r.out.isEmpty)
        let lines = r.err.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "\(args): stderr \(r.err)")
        for m in mentions { #expect(r.err.contains(m), "\(args): stderr does not mention \(m): \(r.err)") }
        #expect(h.bytes(h.db) == before, "\(args): the database changed")
    }

    // MARK: 6. config --json and reset

    @Test func configJSONIsOneObjectOfValueAndDefault() throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        try h.configOK(["set", "interval", "90m", "days", "weekdays", "grace", "1h"], now: now)
        let out = try h.config(["--json"], now: now)
        #expect(out.status == 0 && out.err.isEmpty)
        let object = try JSONSerialization.jsonObject(with: Data(out.out.utf8)) as? [String: [String: Any]]
        // Every declared key with its declared default (`SettingKey`: a new setting needs no edit here), and
        // a few pinned by hand so that a declaration changed by mistake shows too.
        var defaults = Dictionary(uniqueKeysWithValues: SettingKey.allCases.map { ($0.rawValue, $0.defaultValue) })
        defaults["zone"] = "Asia/Seoul"  // a new plan's zone: its creator's TZ
        #expect(defaults["window"] == "09:30-21:30" && defaults["interval"] == "30m" && defaults["days"] == "mon-fri")
        #expect(defaults["grace"] == "15m" && defaults["calendar-days"] == "14" && defaults["title"] == "Time to study?")
        #expect(Set(object?.keys ?? [:].keys) == Set(defaults.keys))
        let values = ["interval": "1h30m", "days": "mon-fri", "grace": "1h"]
        for (key, d) in defaults {
            let v = values[key] ?? d
            #expect(object?[key]?["value"] as? String == v, "\(key)")
            #expect(object?[key]?["default"] as? Bool == (v == d), "\(key)")
        }
        // `show --json` is the same; `get` prints the canonical value.
        #expect(try h.config(["show", "--json"], now: now).out == out.out)
        #expect(try h.config(["get", "interval"], now: now).out == "1h30m\n")
        // The settings view agrees.
        #expect(
            try h.sqlite("SELECT key || '=' || value || '=' || is_default FROM settings WHERE key IN ('interval', 'window')")
                == "interval=1h30m=0\nwindow=09:30-21:30=1")
    }

    @Test func resetRestoresTheDefaultsAndTodaysDefaultPlan() throws {
        let h = try Harness()
        let now = "2026-11-23T12:00"
        _ = try h.plannerOK(["refill"], now: now)
        try h.configOK(["set", "window", "07:00-08:00", "interval", "5m", "days", "sun", "title", "t", "body", "b", "grace", "2h"], now: now)
        // A key at a time first: only that key.
        try h.configOK(["reset", "interval"], now: now)
        #expect(try h.sqlite("SELECT key FROM settings WHERE is_default = 0 ORDER BY key") == "body\ndays\ngrace\ntitle\nwindow")
        try h.configOK(["reset", "days", "window", "title", "body", "grace"], now: now)
        // The zone stays the one the database was made with; the plan is the default schedule there.
        let expected = try h.expectedPlan(["zone": "Asia/Seoul", "now": now])
        #expect(try h.pendingRows().map(\.id) == expected.map(\.id))
        #expect(try h.pendingRows().map(\.at) == expected.map(\.utcMs))
        #expect(try h.pendingRows().allSatisfy { $0.title == "Time to study?" && $0.body.hasPrefix("Start today's lesson") })

        // Everything: the zone goes back to the one the plan was made in (its default), and the plan is
        // today's default plan there.
        try h.configOK(["set", "window", "07:00-08:00", "days", "sat", "zone", "Europe/Berlin"], now: now)
        try h.configOK(["reset"], now: now)
        let object = try JSONSerialization.jsonObject(with: Data(h.config(["--json"], now: now).out.utf8)) as? [String: [String: Any]]
        #expect(object?.values.allSatisfy { $0["default"] as? Bool == true } == true)
        #expect(try h.sqlite("SELECT value FROM settings WHERE key = 'zone'") == "Asia/Seoul")
        let system = try h.expectedPlan(["zone": "Asia/Seoul", "now": "2026-11-23T12:00+09:00"])
        #expect(try h.pendingRows().map(\.id) == system.map(\.id))
        #expect(try h.pendingRows().map(\.at) == system.map(\.utcMs))
        try checkInvariants(h, "after reset")
    }
}
