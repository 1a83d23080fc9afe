import Foundation
import PlannerCore
import PlannerHarness
import Testing

/// Issue 30: two computers carrying one calendar settle. Each reads the other's copy of an item (vdirsyncer
/// brings it in) as its own when it says the same thing; before, each put the other's back as a newer
/// revision (SEQUENCE from its own clock), and the two rewrote each other for as long as the item lived.
@Suite struct CalendarTwoComputersTests {
    @Test func anEditPutBackByOneIsTakenAsItsOwnByTheOther() throws {
        let now = "2026-11-23T08:00"
        var computers: [(Harness, String)] = []
        for _ in 0..<2 {
            let h = try Harness()
            let folder = h.dir + "/calendar"
            for args in [["config", "set", "calendar-folder", folder, "calendar-days", "3"], ["refill"]] {
                let r = try h.planner(args + ["--db", h.db, "--now", now])
                #expect(r.status == 0, "\(args): \(r.err)")
            }
            computers.append((h, folder))
        }
        let name = "planner-series-1000.ics"  // the reminders at 10:00 after today
        // The phone edits the event (a location); vdirsyncer brings the edit into both folders.
        let original = try String(contentsOfFile: computers[0].1 + "/" + name, encoding: .utf8)
        let edited = original.replacingOccurrences(of: "TRANSP:TRANSPARENT\r\n", with: "TRANSP:TRANSPARENT\r\nLOCATION:desk\r\n")
        #expect(edited != original)
        for (_, folder) in computers { try edited.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        // Then each computer's copy travels to the other, in turn, a few rounds (a minute apart, as their
        // syncs would be), each one running its sync after the arrival.
        var rewrites: [Int] = []
        for round in 0..<6 {
            let (from, to) = round % 2 == 0 ? (computers[0], computers[1]) : (computers[1], computers[0])
            let (h, folder) = to
            let r = try h.planner(["sync", "--json", "--db", h.db, "--now", "2026-11-23T08:0\(round + 1)"])
            #expect(r.status == 0, "\(r.err)")
            let written = (try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])?["calendar_written"] as? Int ?? -1
            rewrites.append(written)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            // vdirsyncer carries `to`'s copy to the other side.
            try bytes.write(to: URL(fileURLWithPath: from.1 + "/" + name))
        }
        // The first two syncs put the phone's edit back (each computer once); after that nothing is rewritten.
        #expect(rewrites.suffix(4) == [0, 0, 0, 0], "calendar_written per round: \(rewrites)")
        let a = try String(contentsOfFile: computers[0].1 + "/" + name, encoding: .utf8)
        #expect(!a.contains("LOCATION"))
    }

    /// A one-off added on one computer is in the other's plan too (`add` is an event), so the other's pass
    /// over the calendar folder they share keeps its item instead of taking it for one to remove: before,
    /// the phone lost it at the other computer's next refill.
    @Test func aOneOffAddedOnOneComputerStaysInTheCalendarTheOtherWrites() throws {
        let h = try Harness()
        let (sync, calendar) = (h.dir + "/sync", h.dir + "/calendar")
        try FileManager.default.createDirectory(atPath: sync, withIntermediateDirectories: true)
        let dbs = [h.db, h.dir + "/laptop.db"]
        for (db, name) in zip(dbs, ["desktop", "laptop"]) {
            let r = try h.planner(
                ["config", "set", "sync-folder", sync, "device-name", name, "calendar-folder", calendar, "--db", db, "--now", "2026-11-23T09:00"])
            #expect(r.status == 0, "\(r.err)")
        }
        let added = try h.planner(["add", "--in", "2h", "--title", "tea", "--id", "tea", "--db", dbs[1], "--now", "2026-11-23T09:05"])
        #expect(added.status == 0, "\(added.err)")
        let item = calendar + "/" + CalendarFolderText.oneOffUID("tea") + ".ics"
        let written = try String(contentsOfFile: item, encoding: .utf8)
        let refill = try h.planner(["refill", "--db", dbs[0], "--now", "2026-11-23T09:06"])
        #expect(refill.status == 0, "\(refill.err)")
        // Kept as the laptop wrote it: the desktop takes it as its own, nothing flaps between the two.
        #expect((try? String(contentsOfFile: item, encoding: .utf8)) == written, "the desktop's pass removed or rewrote the laptop's one-off")
        #expect(try h.sqlite("SELECT title || ' ' || state FROM request WHERE identifier = 'tea'", db: dbs[0]) == "tea pending")
    }

    /// The phone's tick read by both computers is one event (the same id, made from the task and its
    /// COMPLETED time): each writes it to the sync folder, and each reads the other's line as the one it holds,
    /// never as "two different contents" (the device that read it is no part of it, as for an Anki review).
    @Test func aTickReadByBothComputersIsOneEventNotAConflict() throws {
        // Each computer's sync folder is its own copy (as Syncthing keeps one on each), carried by hand below.
        var computers: [(h: Harness, folder: String, shared: String)] = []
        for name in ["desktop", "laptop"] {
            let (h, folder) = try CalendarFolderFixture.setUp(Harness())
            let shared = h.dir + "/shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
            let r = try h.planner(["config", "set", "sync-folder", shared, "device-name", name, "--db", h.db, "--now", "2026-11-23T12:00"])
            #expect(r.status == 0, "\(r.err)")
            _ = try h.plannerOK(["refill"], now: "2026-11-23T12:01")
            computers.append((h, folder, shared))
        }
        func carry() throws {
            for (from, to) in [(computers[0], computers[1]), (computers[1], computers[0])] {
                for name in try FileManager.default.contentsOfDirectory(atPath: from.shared) where name.hasSuffix(".events") {
                    let own = try Data(contentsOf: URL(fileURLWithPath: from.shared + "/" + name))
                    let there = to.shared + "/" + name
                    if (try? Data(contentsOf: URL(fileURLWithPath: there))) != own {
                        try CalendarFolderFixture.deliver(String(decoding: own, as: UTF8.self), to: there)
                    }
                }
            }
        }
        try carry()
        // vdirsyncer brings the phone's tick into both folders; each computer reads it before the other's line
        // arrives, then the other's line.
        let tick = CalendarFolderFixture.phoneTick(day: "2026-11-23", completedUTC: "20261123T031500Z")
        // The desktop changed something after the tick's time (12:15) before the tick reached it: its next stamp
        // is after that change, the laptop's is not; the tick's event must carry neither.
        let title = try computers[0].h.planner(["config", "set", "title", "Lesson", "--db", computers[0].h.db, "--now", "2026-11-23T12:20"])
        #expect(title.status == 0, "\(title.err)")
        for c in computers { try CalendarFolderFixture.deliver(tick, to: c.folder + "/planner-day-2026-11-23.ics") }
        for c in computers { _ = try c.h.plannerOK(["sync"], now: "2026-11-23T12:21") }
        try carry()
        for c in computers {
            let r = try c.h.planner(["sync", "--db", c.h.db, "--now", "2026-11-23T12:22"])
            #expect(r.status == 0 && !r.err.contains("two different contents"), "\(r.err)")
            #expect(try c.h.sqlite("SELECT count(*) FROM event_conflict") == "0")
            #expect(try c.h.sqlite("SELECT count(*) || ' ' || min(origin) FROM app_open_events WHERE local_date = '2026-11-23'") == "1 calendar")
        }
    }

    /// A tick made before the day rule changed (the zone set after it) and read after it opens the day it was
    /// accepted for, the rule now in force's: stamped at its own instant it would fall under the old rule
    /// (Seoul's Tuesday), its day left open and the next day's reminders cancelled.
    @Test func aTickReadAfterTheZoneChangedOpensTheDayItWasAcceptedFor() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T15:00Z")
        try h.configOK(["set", "zone", "UTC"], now: "2026-11-23T16:40Z")
        let tick = CalendarFolderFixture.phoneTick(day: "2026-11-23", completedUTC: "20261123T163000Z")
        try CalendarFolderFixture.deliver(tick, to: folder + "/planner-day-2026-11-23.ics")
        _ = try h.plannerOK(["sync"], now: "2026-11-23T16:45Z")
        #expect(try h.sqlite("SELECT group_concat(local_date || ' ' || origin) FROM app_open") == "2026-11-23 calendar")
    }
}
