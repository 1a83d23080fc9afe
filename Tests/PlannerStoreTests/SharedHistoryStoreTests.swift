import Foundation
import PlannerCore
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// The holes a hostile review of the shared history found, each a test that failed first.
@Suite struct SharedHistoryStoreTests {
    let utc = try! SystemZone.named("UTC")
    func at(_ text: String) -> Instant { try! parseTime(text, in: utc) }

    func folder() -> String {
        let path = temporaryDatabasePath() + ".sync"
        mkdir(path, 0o700)
        return path
    }

    func device(_ folder: String, _ name: String, zone: String?, at time: String) throws -> PlannerDatabase {
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: zone)
        try db.refill(now: at(time))
        try db.configure(set: [(.syncFolder, folder), (.deviceName, name)], reset: [], now: at(time))
        return db
    }

    /// Copies `from`'s files into `to`'s folder (whole), but `to`'s own.
    func carry(_ from: String, _ to: String, own: String?) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: from) where name.hasPrefix("planner-") {
            if let own, name.hasPrefix("planner-" + own) { continue }
            try Data(contentsOf: URL(fileURLWithPath: from + "/" + name)).write(to: URL(fileURLWithPath: to + "/" + name))
        }
    }

    func value(_ db: PlannerDatabase, _ key: String) throws -> String? {
        let stmt = try db.inspection.prepare("SELECT value FROM setting WHERE key = ?")
        try stmt.bind([.text(key)])
        return try stmt.step() ? stmt.text(0) : nil
    }

    /// Devices that shared before claims existed (no claim of their own) claim at their next change.
    @Test func aDeviceThatSharedBeforeClaimsClaimsAtItsNextChange() throws {
        let f = folder()
        let a = try device(f, "a", zone: "Europe/Berlin", at: "2026-11-20T08:00")
        _ = try a.sync(now: at("2026-11-20T08:01"))
        // As a planner of the previous version left it: an id, no claim.
        try a.inspection.execute("DELETE FROM event WHERE origin = 'plan-zone'; DELETE FROM register WHERE name = 'plan-zone'")
        try a.configure(set: [(.title, "Next")], reset: [], now: at("2026-11-20T09:00"))
        #expect(try a.inspection.integer("SELECT count(*) FROM event WHERE origin = 'plan-zone'") == 1)
    }

    /// A plan made without TZ has the zone `system`: it is claimed as the zone it names here, never as
    /// `system` (which every other device would read as its own /etc/localtime).
    @Test func aSystemZoneIsClaimedByItsName() throws {
        let f = folder()
        let a = try device(f, "a", zone: nil, at: "2026-11-20T08:00")
        // Claimed at its first read of the folder (`config set sync-folder` makes one at once).
        _ = try a.sync(now: at("2026-11-20T08:01"))
        let claim = try a.inspection.text("SELECT payload FROM event WHERE origin = 'plan-zone'")
        #expect(claim == "set.zone=" + SystemZone.systemDefault().name, "\(claim ?? "none")")
        #expect(try value(a, "zone") == SystemZone.systemDefault().name)
    }

    /// Setting the zone to the value it has here (only this device's claim so far) is the user's choice:
    /// recorded, and it wins over an older device's claim.
    @Test func settingTheZoneItAlreadyHasIsRecorded() throws {
        let fa = folder()
        let fb = folder()
        let a = try device(fa, "a", zone: "Europe/Berlin", at: "2026-11-20T08:00")
        let b = try device(fb, "b", zone: "America/New_York", at: "2026-11-23T08:00")
        try b.configure(set: [(.zone, "America/New_York")], reset: [], now: at("2026-11-23T09:00"))
        try carry(fa, fb, own: try b.read({ try $0.selfDeviceID() }))
        try carry(fb, fa, own: try a.read({ try $0.selfDeviceID() }))
        _ = try a.sync(now: at("2026-11-23T09:05"))
        _ = try b.sync(now: at("2026-11-23T09:05"))
        #expect(try value(a, "zone") == "America/New_York")
        #expect(try value(b, "zone") == "America/New_York")
    }

    /// One id, two versions of a skip (different dates), read in opposite orders: the same dates skipped.
    @Test func twoVersionsOfASkipSettleTheSameWay() throws {
        let fc = folder()
        let fd = folder()
        let c = try device(fc, "c", zone: "UTC", at: "2026-11-20T08:00")
        let d = try device(fd, "d", zone: "UTC", at: "2026-11-20T08:00")
        let forged = String(repeating: "9", count: 32)
        let id = String(repeating: "8", count: 32)
        let ms = at("2026-11-20T09:00").milliseconds
        func line(_ date: String) -> String {
            "planner-event 2 id=\(id) at=\(ms) origin=skip kind=skip device=\(forged) stamp=\(ms).0 dates=\(date)\n"
        }
        let file = "planner-\(forged)-000001.events"
        let copy = "planner-\(forged)-000001.sync-conflict-20261120-000000-ABCDEFG.events"
        try line("2026-12-01").write(toFile: fc + "/" + file, atomically: true, encoding: .utf8)
        try line("2026-12-02").write(toFile: fd + "/" + copy, atomically: true, encoding: .utf8)
        _ = try c.sync(now: at("2026-11-20T10:00"))
        _ = try d.sync(now: at("2026-11-20T10:00"))
        try line("2026-12-02").write(toFile: fc + "/" + copy, atomically: true, encoding: .utf8)
        try line("2026-12-01").write(toFile: fd + "/" + file, atomically: true, encoding: .utf8)
        _ = try c.sync(now: at("2026-11-20T10:01"))
        _ = try d.sync(now: at("2026-11-20T10:01"))
        let onC = try c.skippedDates().map(\.date)
        let onD = try d.skippedDates().map(\.date)
        #expect(onC == onD && onC.count == 1, "\(onC) \(onD)")
        let registers = { (db: PlannerDatabase) in
            try db.inspection.text("SELECT group_concat(name) FROM (SELECT name FROM register WHERE name LIKE 'skip:%' ORDER BY name)")
        }
        #expect(try registers(c) == registers(d))
    }

    /// A snooze read long after it ended (a device reading the whole history) brings nothing back.
    @Test func aSnoozeOverBeforeItArrivedAddsNothing() throws {
        let f = folder()
        let a = try device(f, "a", zone: "UTC", at: "2026-11-20T08:00")
        let forged = String(repeating: "7", count: 32)
        let ms = at("2026-11-02T09:30:05").milliseconds
        let until = at("2026-11-02T09:45").milliseconds
        try
            "planner-event 2 id=\(String(repeating: "6", count: 32)) at=\(ms) origin=answer kind=snooze device=\(forged) stamp=\(ms).0 identifier=Noti_AppOpenPromotion_2026_11_02_09_30 day=2026-11-02 until=\(until)\n"
            .write(toFile: f + "/planner-\(forged)-000001.events", atomically: true, encoding: .utf8)
        let report = try a.sync(now: at("2026-11-22T10:00"))
        #expect(report.sync?.applied == 1)
        #expect(try a.inspection.integer("SELECT count(*) FROM request WHERE identifier LIKE '%_snoozed'") == 0)
    }

    /// A claim of the plan's zone must be one: any other change under that origin is refused.
    @Test func aClaimThatIsNotOneIsRefused() {
        let event = PlanEvent(
            id: String(repeating: "5", count: 32), at: Instant(milliseconds: 1_795_000_000_000), origin: PlanEvent.planZoneOrigin,
            change: .settings(set: [SettingChange(.title, "x")], reset: []),
            stamp: Stamp(milliseconds: 1_795_000_000_000, device: String(repeating: "4", count: 32)))
        #expect(event.problem != nil)
    }
}
