import CSQLite
import Foundation
import PlannerCore
import PlannerFolders
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// Every change a command makes goes through `applyEvent`: recorded as an event row, applied once.
@Suite struct EventStoreTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    /// Every row of every planner table, to see that nothing at all changed.
    func everything(_ db: PlannerDatabase) throws -> [String] {
        var rows: [String] = []
        for table in ["request", "app_open", "skipped_date", "pause", "setting", "event", "plan", "notification_action"] {
            let stmt = try db.inspection.prepare("SELECT * FROM \(table)")
            while try stmt.step() {
                rows.append(
                    table + ":" + (0..<sqlite3_column_count(stmt.handle)).map { stmt.isNull($0) ? "NULL" : stmt.text($0) }.joined(separator: "|"))
            }
        }
        return rows
    }

    @Test(arguments: [
        PlanChange.open(zoneName: "Asia/Seoul", offsetSeconds: 32_400, graceMilliseconds: nil),
        .skip(dates: [LocalDate(iso: "2026-11-24")!], reason: "trip"),
        .unskip(dates: [LocalDate(iso: "2026-11-24")!]),
        .pause(until: nil), .resume,
        .settings(set: [SettingChange(.interval, "45m")], reset: [.title]),
    ])
    func theSameEventTwiceChangesNothing(change: PlanChange) throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul")
        try db.refill(now: at("2026-11-23T08:00"))
        try db.skip([LocalDate(iso: "2026-11-24")!], reason: nil, now: at("2026-11-23T08:00"))
        try db.configure(set: [(.title, "x")], reset: [], now: at("2026-11-23T08:00"))
        // Still paused at 10:10, so a resume then has something to end (one that would not is not recorded).
        try db.pause(now: at("2026-11-23T08:00"), until: at("2026-11-23T11:00"))
        let event = PlanEvent(id: PlannerDatabase.newEventID(), at: at("2026-11-23T10:10"), origin: "open", change: change)
        #expect(try db.apply(event) != nil)
        let after = try everything(db)
        #expect(try db.apply(event) == nil)
        // A later write (a refill at the same instant) finds nothing to redo either.
        #expect(try everything(db) == after)
        #expect(try db.inspection.integer("SELECT count(*) FROM event WHERE id = ?", .text(event.id)) == 1)
    }

    /// Each command's change is a row of `event`, with its own id, instant, origin and what it changed.
    @Test func everyCommandsChangeIsRecordedAsAnEvent() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul")
        try db.recordAppOpen(now: at("2026-11-23T10:10"), origin: "study")
        try db.skip([LocalDate(iso: "2026-12-24")!], reason: "Christmas Eve", now: at("2026-11-23T10:11"))
        try db.unskip([LocalDate(iso: "2026-12-24")!], now: at("2026-11-23T10:12"))
        try db.pause(now: at("2026-11-23T10:13"), until: nil)
        try db.resume(now: at("2026-11-23T10:14"))
        try db.configure(set: [(.interval, "45m")], reset: [.zone], now: at("2026-11-23T10:15"))
        let stmt = try db.inspection.prepare("SELECT origin, kind, payload, at_ms, length(id) FROM event ORDER BY at_ms")
        var rows: [String] = []
        while try stmt.step() { rows.append((0..<5).map { stmt.text($0) }.joined(separator: " | ")) }
        let ms = { (t: String) in String(at(t).milliseconds) }
        #expect(
            rows == [
                "study | open | zone=\(SystemZone.systemDefault().name) offset=\(SystemZone.systemDefault().offset(at: at("2026-11-23T10:10"))) | \(ms("2026-11-23T10:10")) | 32",
                "skip | skip | dates=2026-12-24 reason=Christmas%20Eve | \(ms("2026-11-23T10:11")) | 32",
                "skip | unskip | dates=2026-12-24 | \(ms("2026-11-23T10:12")) | 32",
                "pause | pause |  | \(ms("2026-11-23T10:13")) | 32",
                "resume | resume |  | \(ms("2026-11-23T10:14")) | 32",
                // Resetting the zone is recorded even at its default (the default may be this device's claim alone).
                "config | settings | set.interval=45m reset=zone | \(ms("2026-11-23T10:15")) | 32",
            ])
        #expect(try db.inspection.text("SELECT origin || ' ' || (event_id = (SELECT id FROM event WHERE kind = 'open')) FROM app_open") == "study 1")
    }

    /// An event from outside is applied at its own instant, before the write that finds it.
    @Test func anInboxEventOfAnyKindIsAppliedAtItsOwnInstant() throws {
        let path = temporaryDatabasePath()
        let db = try PlannerDatabase(path: path, zoneForNewPlan: "Asia/Seoul")
        try db.refill(now: at("2026-11-23T08:00"))
        let skip = PlanEvent(
            id: PlannerDatabase.newEventID(), at: at("2026-11-23T09:00"), origin: "skip",
            change: .skip(dates: [LocalDate(iso: "2026-11-23")!], reason: nil))
        try Inbox.save(skip, databasePath: path)
        try db.refill(now: at("2026-11-23T12:00"))
        #expect(
            try db.inspection.text("SELECT reason || ' ' || count(*) || ' ' || min(changed_at_ms) FROM request WHERE state = 'skipped'")
                == "date skipped 25 \(at("2026-11-23T09:00").milliseconds)")
        #expect(try db.inspection.integer("SELECT skipped_at_ms FROM skipped_date") == at("2026-11-23T09:00").milliseconds)
        // The same event saved again (a copy arriving twice) is not applied again.
        try Inbox.save(skip, databasePath: path)
        let before = try everything(db)
        try db.resume(now: at("2026-11-23T12:00"))
        #expect(
            try everything(db).filter { !$0.hasPrefix("event:") && !$0.hasPrefix("plan:") }
                == before.filter { !$0.hasPrefix("event:") && !$0.hasPrefix("plan:") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: path + ".opens").isEmpty)
    }
}
