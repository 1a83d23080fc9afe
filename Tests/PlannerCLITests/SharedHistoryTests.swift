import Foundation
import PlannerHarness
import Testing

/// The shared plan is a function of the shared history, through the binary: each reproduction of issue 28,
/// two devices with their own databases and their own copy of the folder, files carried by hand.
@Suite struct SharedHistoryTests {
    /// A device: its harness (its own TZ), database and folder.
    struct Device {
        var h: Harness
        var folder: String
        var name: String

        init(_ name: String, tz: String) throws {
            h = try Harness()
            h.env["TZ"] = tz
            folder = h.dir + "/sync"
            self.name = name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        }

        @discardableResult
        func run(_ args: [String], now: String, ok: Bool = true) throws -> Harness.Result {
            let r = try h.planner(args + ["--db", h.db, "--now", now])
            if ok && r.status != 0 { throw HarnessError("\(name): planner \(args) exited \(r.status): \(r.err)") }
            return r
        }

        func join(now: String) throws {
            try run(["config", "set", "sync-folder", folder, "device-name", name], now: now)
        }

        func sql(_ query: String) throws -> String { try h.sqlite(query) }
    }

    /// Copies every planner file of `from`'s folder into `to`'s (whole, as the engine delivers it).
    func carry(_ from: Device, _ to: Device) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: from.folder) where name.hasPrefix("planner-") {
            let data = try Data(contentsOf: URL(fileURLWithPath: from.folder + "/" + name))
            let own = try to.sql("SELECT id FROM device WHERE is_self = 1")
            if !own.isEmpty && name.hasPrefix("planner-" + own) { continue }
            try data.write(to: URL(fileURLWithPath: to.folder + "/" + name))
        }
    }

    /// The issue's first reproduction: a window across midnight set on A, an open on B at 00:40 before A's
    /// change arrived. Both must record the open on the 23rd (the window in force at its stamp), and B's
    /// ticker must not deliver the 01:00 slot of that study day.
    @Test func anOpenTakesTheStudyDayOfTheSettingsInForceAtItsStamp() throws {
        let a = try Device("a", tz: "Europe/Berlin")
        let b = try Device("b", tz: "Europe/Berlin")
        try a.join(now: "2026-11-23T08:00Z")
        try b.join(now: "2026-11-23T08:00Z")
        try a.run(["config", "set", "window", "20:00-01:30", "days", "daily"], now: "2026-11-23T09:00Z")
        try b.run(["open"], now: "2026-11-23T23:40Z")
        try carry(a, b)
        try carry(b, a)
        try a.run(["sync"], now: "2026-11-23T23:50Z")
        try b.run(["sync"], now: "2026-11-23T23:50Z")
        #expect(try a.sql("SELECT local_date FROM app_open_events") == "2026-11-23")
        #expect(try b.sql("SELECT local_date FROM app_open_events") == "2026-11-23")
        #expect(try b.sql("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_24_01_%'") == "0")
        let tick = try b.run(["tick", "--once", "--sink", "stdout"], now: "2026-11-24T00:00:01Z")
        #expect(!tick.out.contains("2026_11_24_01_00"), "a reminder 20 minutes after studying: \(tick.out)")
    }

    /// A change of the day rule that happened before an open, arriving after it, moves the open on the
    /// device that applied the open first: the day it closes is the one every device agrees on.
    @Test func aLateSettingsChangeMovesAnOpenAlreadyApplied() throws {
        let a = try Device("a", tz: "Asia/Seoul")
        let b = try Device("b", tz: "Asia/Seoul")
        try a.join(now: "2026-11-23T08:00")
        try b.join(now: "2026-11-23T08:00")
        try b.run(["config", "set", "days", "daily"], now: "2026-11-23T08:01")
        try carry(b, a)
        try a.run(["sync"], now: "2026-11-23T08:02")
        // A moves the plan to New York (it is Sunday evening there); B, not knowing, opens at 09:40 Seoul.
        try a.run(["config", "set", "zone", "America/New_York"], now: "2026-11-23T09:00")
        try b.run(["open"], now: "2026-11-23T09:40")
        #expect(try b.sql("SELECT local_date FROM app_open_events") == "2026-11-23")
        try carry(a, b)
        try b.run(["sync"], now: "2026-11-23T09:45")
        #expect(try b.sql("SELECT local_date || ' ' || zone FROM app_open_events") == "2026-11-22 America/New_York")
        // Sunday the 22nd is closed in New York; Monday the 23rd is open again and planned.
        #expect(try b.sql("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_22_%'") == "0")
        #expect(try b.sql("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_23_%'") != "0")
        try carry(b, a)
        try a.run(["sync"], now: "2026-11-23T09:45")
        #expect(try a.sql("SELECT local_date FROM app_open_events") == "2026-11-22")
    }

    /// A laptop made in Berlin, a desktop made in New York days later: the plan's zone is the laptop's on
    /// both, and the desktop's status says its own TZ differs.
    @Test func thePlansZoneIsTheFirstDevicesOnEvery() throws {
        let laptop = try Device("laptop", tz: "Europe/Berlin")
        let desktop = try Device("desktop", tz: "America/New_York")
        try laptop.run(["refill"], now: "2026-11-20T08:00Z")
        try laptop.join(now: "2026-11-20T08:01Z")
        try desktop.run(["refill"], now: "2026-11-23T08:00Z")
        try desktop.join(now: "2026-11-23T08:01Z")
        try carry(laptop, desktop)
        try carry(desktop, laptop)
        try desktop.run(["sync"], now: "2026-11-23T08:02Z")
        try laptop.run(["sync"], now: "2026-11-23T08:02Z")
        #expect(try laptop.sql("SELECT value FROM settings WHERE key = 'zone'") == "Europe/Berlin")
        #expect(try desktop.sql("SELECT value FROM settings WHERE key = 'zone'") == "Europe/Berlin")
        let status = try desktop.run(["status"], now: "2026-11-23T08:03Z")
        #expect(status.out.contains("America/New_York"), "the desktop's own TZ is shown beside the plan's zone: \(status.out)")
        // Setting the zone explicitly wins over the claim, on both; a reset returns to the first device's.
        try desktop.run(["config", "set", "zone", "Asia/Seoul"], now: "2026-11-23T09:00Z")
        try carry(desktop, laptop)
        try laptop.run(["sync"], now: "2026-11-23T09:01Z")
        #expect(try laptop.sql("SELECT value FROM settings WHERE key = 'zone'") == "Asia/Seoul")
        try laptop.run(["config", "reset", "zone"], now: "2026-11-23T09:02Z")
        try carry(laptop, desktop)
        try desktop.run(["sync"], now: "2026-11-23T09:03Z")
        #expect(try desktop.sql("SELECT value FROM settings WHERE key = 'zone'") == "Europe/Berlin")
    }

    /// A second device that joins hours later with its clock six hours behind: its plan looks older by its
    /// own clock, but it joins a folder that already holds the first device's claim, so it makes none and
    /// the first device's zone is every device's (it had taken over with its earlier stamp).
    @Test func aLaterDeviceWithItsClockBehindDoesNotTakeOverTheZone() throws {
        let laptop = try Device("laptop", tz: "Europe/Berlin")
        let desktop = try Device("desktop", tz: "America/New_York")
        try laptop.run(["refill"], now: "2026-11-23T08:00Z")
        try laptop.join(now: "2026-11-23T08:01Z")
        // The folder reaches the desktop (Syncthing) before it joins, three hours later; its clock reads 05:00.
        try desktop.run(["refill"], now: "2026-11-23T05:00Z")
        try carry(laptop, desktop)
        try desktop.join(now: "2026-11-23T05:01Z")
        try carry(desktop, laptop)
        try laptop.run(["sync"], now: "2026-11-23T11:05Z")
        try desktop.run(["sync"], now: "2026-11-23T05:06Z")
        #expect(try laptop.sql("SELECT value FROM settings WHERE key = 'zone'") == "Europe/Berlin")
        #expect(try desktop.sql("SELECT value FROM settings WHERE key = 'zone'") == "Europe/Berlin")
        #expect(try desktop.sql("SELECT count(*) FROM event WHERE origin = 'plan-zone' AND received_ms IS NULL") == "0")
    }

    /// An open made before its device learned the plan's zone keeps its day when the zone settles (same date)
    /// but is shown in the plan's zone: `app_open_events.zone` and `opened_at_local` had stayed the old ones.
    @Test func anOpenIsShownInThePlansZoneOnceItSettles() throws {
        let laptop = try Device("laptop", tz: "Europe/Berlin")
        let desktop = try Device("desktop", tz: "America/New_York")
        try laptop.run(["refill"], now: "2026-11-20T08:00Z")
        try laptop.join(now: "2026-11-20T08:01Z")
        try desktop.run(["refill"], now: "2026-11-23T14:00Z")
        try desktop.run(["open"], now: "2026-11-23T15:00Z")
        #expect(try desktop.sql("SELECT zone || ' ' || opened_at_local FROM app_open_events") == "America/New_York 2026-11-23T10:00:00-05:00")
        try carry(laptop, desktop)
        try desktop.join(now: "2026-11-23T15:05Z")
        #expect(try desktop.sql("SELECT value FROM settings WHERE key = 'zone'") == "Europe/Berlin")
        #expect(
            try desktop.sql("SELECT zone || ' ' || opened_at_local || ' ' || local_date FROM app_open_events")
                == "Europe/Berlin 2026-11-23T16:00:00+01:00 2026-11-23")
    }

    /// `config set zone system` travels as the zone /etc/localtime names where it was set, never as the
    /// word `system` (which each device would read as its own zone: one open, two different days).
    @Test func aZoneSetAsSystemTravelsByName() throws {
        let laptop = try Device("laptop", tz: "Europe/Berlin")
        let desktop = try Device("desktop", tz: "America/New_York")
        try laptop.join(now: "2026-11-23T08:00Z")
        try desktop.join(now: "2026-11-23T08:01Z")
        // The oracle: the name the link /etc/localtime points at, by Python.
        let named = try laptop.h.python(
            """
            import os; p = os.path.realpath('/etc/localtime'); i = p.find('zoneinfo/')
            print(p[i + 9:] if os.path.islink('/etc/localtime') and i >= 0 else '')
            """, []
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let set = try desktop.run(["config", "set", "zone", "system"], now: "2026-11-23T09:00Z", ok: false)
        guard !named.isEmpty else {
            // /etc/localtime names no zone here: refused, nothing recorded.
            #expect(set.status == 64 && set.err.contains("/etc/localtime"), "\(set.err)")
            return
        }
        #expect(set.status == 0 && set.err.contains(named), "\(set.status) \(set.err)")
        try carry(desktop, laptop)
        try laptop.run(["sync"], now: "2026-11-23T09:01Z")
        for device in [laptop, desktop] {
            #expect(try device.sql("SELECT value FROM settings WHERE key = 'zone'") == named)
            #expect(try device.sql("SELECT count(*) FROM events WHERE payload LIKE '%zone=system%'") == "0")
        }
    }

    /// Lines a newer planner wrote: a field it added to a known kind is ignored (the open applies), a kind
    /// this planner does not know is kept unconsumed and said, never refused for good; and a file an older
    /// planner left lines in is read again once this planner (which knows more) reads the folder, though
    /// the file has not changed.
    @Test func aNewerPlannersLinesWaitForAnUpgrade() throws {
        let a = try Device("a", tz: "Asia/Seoul")
        let b = try Device("b", tz: "Asia/Seoul")
        try a.join(now: "2026-11-23T08:00Z")
        try b.join(now: "2026-11-23T08:00Z")
        try a.run(["skip", "2026-11-25"], now: "2026-11-23T08:30Z")
        let id = try a.sql("SELECT id FROM device WHERE is_self = 1")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: a.folder).first { $0.hasPrefix("planner-" + id) })
        let head = "at=1795424400000 origin=open device=\(id)"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: a.folder + "/" + file))
        handle.seekToEndOfFile()
        handle.write(
            Data(
                ("planner-event 2 id=11111111111111111111111111111111 \(head) stamp=1795424400000.0 kind=teleport to=moon\n"
                    + "planner-event 2 id=22222222222222222222222222222222 \(head) stamp=1795424400000.1 kind=open zone=Asia/Seoul offset=32400 mood=keen\n")
                    .utf8))
        handle.closeFile()
        try carry(a, b)
        let sync = try b.run(["sync"], now: "2026-11-23T09:05Z")
        #expect(try b.sql("SELECT local_date || ' ' || origin FROM app_open_events") == "2026-11-23 open")
        #expect(try b.sql("SELECT count(*) FROM skipped_dates") == "1")
        #expect(sync.out.contains("1 line from a newer planner") || sync.err.contains("1 line from a newer planner"), "\(sync.out) \(sync.err)")
        #expect(try b.run(["status"], now: "2026-11-23T09:06Z").out.contains("from a newer planner"))
        #expect(try b.sql("SELECT count(*) FROM sync_file WHERE newer_reader IS NOT NULL") == "1")
        #expect(try b.sql("SELECT count(*) FROM event WHERE id LIKE '1111%'") == "0")

        // A third computer whose older planner left the whole file unread (lines it did not know), then
        // was upgraded: the file has not changed since, and is read all the same.
        let c = try Device("c", tz: "Asia/Seoul")
        try c.join(now: "2026-11-23T08:00Z")
        try carry(a, c)
        let mtime = try c.h.python("import os, sys; print(os.stat(sys.argv[1]).st_mtime_ns)", [c.folder + "/" + file])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: c.folder + "/" + file)[.size] as? Int)
        _ = try c.sql(
            "INSERT INTO sync_file (name, size, mtime_ns, consumed, problem, newer_reader) VALUES ('\(file)', \(size), \(mtime), 0, 'from a newer planner', '0000000000000000')"
        )
        try c.run(["sync"], now: "2026-11-23T09:05Z")
        #expect(try c.sql("SELECT count(*) FROM skipped_dates") == "1")
        #expect(try c.sql("SELECT count(*) FROM app_open") == "1")
    }

    /// One change stamped two days ahead: the device's later changes carry no lead, the other device gets
    /// them at once, and the change ahead waits (never consumed, never lost) until its clock catches up.
    @Test func oneStampAheadNeverSilencesADevice() throws {
        let a = try Device("a", tz: "Asia/Seoul")
        let b = try Device("b", tz: "Asia/Seoul")
        try a.join(now: "2026-11-23T08:00")
        try b.join(now: "2026-11-23T08:00")
        try a.run(["config", "set", "icon", "x"], now: "2026-11-25T09:00")
        try a.run(["config", "set", "title", "A real change"], now: "2026-11-23T08:05")
        try a.run(["pause", "--for", "1d"], now: "2026-11-23T08:06")
        #expect(
            try a.sql("SELECT stamp FROM events WHERE payload LIKE '%title%'").hasPrefix(
                try a.sql("SELECT at_ms FROM event WHERE payload LIKE '%title%'")),
            "the title is stamped by the clock, not two days ahead")
        try carry(a, b)
        let sync = try b.run(["sync"], now: "2026-11-23T08:10")
        #expect(try b.sql("SELECT value FROM settings WHERE key = 'title'") == "A real change")
        #expect(try b.sql("SELECT count(*) FROM pauses WHERE ended_at IS NULL") == "1")
        #expect(try b.sql("SELECT value FROM settings WHERE key = 'icon'") != "x")
        let status = try b.run(["status"], now: "2026-11-23T08:11")
        #expect(sync.err.contains("read again from") && status.out.contains("read again from"), "the waiting line is said: \(sync.err) \(status.out)")
        // Once B's clock is within a day of the change, it arrives.
        try b.run(["sync"], now: "2026-11-24T09:30")
        #expect(try b.sql("SELECT value FROM settings WHERE key = 'icon'") == "x")
    }

    /// A peer's line with the largest counter a stamp may carry: the next change here moves to the next
    /// millisecond instead of overflowing, and the other device reads it.
    @Test func aCounterAtItsLimitIsNotOverflowed() throws {
        let a = try Device("a", tz: "Asia/Seoul")
        let b = try Device("b", tz: "Asia/Seoul")
        try a.join(now: "2026-11-23T08:00")
        try b.join(now: "2026-11-23T08:00")
        let forged = String(repeating: "c", count: 32)
        let ms = try a.sql("SELECT CAST((julianday('2026-11-23T01:30:00') - 2440587.5) * 86400000 AS INTEGER)")
        let line =
            "planner-event 2 id=\(String(repeating: "d", count: 32)) at=\(ms) origin=config kind=settings device=\(forged) stamp=\(ms).4294967295 set.body=Hi\n"
        try line.write(toFile: b.folder + "/planner-\(forged)-000001.events", atomically: true, encoding: .utf8)
        try b.run(["sync"], now: "2026-11-23T10:29")
        #expect(try b.sql("SELECT value FROM settings WHERE key = 'body'") == "Hi")
        try b.run(["config", "set", "title", "Next"], now: "2026-11-23T10:29")
        let stamp = try b.sql("SELECT stamp FROM events WHERE payload LIKE '%title=Next%'")
        #expect(stamp == "\(Int64(ms)! + 1).0", "the next millisecond, counter 0: \(stamp)")
        try carry(b, a)
        try a.run(["sync"], now: "2026-11-23T10:30")
        #expect(try a.sql("SELECT value FROM settings WHERE key = 'title'") == "Next")
    }

    /// One event id with two contents (a file and an edited conflict copy), read in opposite orders by two
    /// devices: both keep the same one, and status says so.
    @Test func anIDWithTwoPayloadsIsSettledTheSameEverywhere() throws {
        let a = try Device("a", tz: "Asia/Seoul")
        let b = try Device("b", tz: "Asia/Seoul")
        try a.join(now: "2026-11-23T08:00")
        try b.join(now: "2026-11-23T08:00")
        let forged = String(repeating: "e", count: 32)
        let id = String(repeating: "f", count: 32)
        let ms = try a.sql("SELECT CAST((julianday('2026-11-23T00:00:00') - 2440587.5) * 86400000 AS INTEGER)")
        func line(_ title: String) -> String {
            "planner-event 2 id=\(id) at=\(ms) origin=config kind=settings device=\(forged) stamp=\(ms).0 set.title=\(title)\n"
        }
        let file = "planner-\(forged)-000001.events"
        let copy = "planner-\(forged)-000001.sync-conflict-20261123-000000-ABCDEFG.events"
        // A reads the first version alone, then both; B reads the second alone, then both.
        try line("One").write(toFile: a.folder + "/" + file, atomically: true, encoding: .utf8)
        try a.run(["sync"], now: "2026-11-23T09:00")
        try line("Two").write(toFile: a.folder + "/" + copy, atomically: true, encoding: .utf8)
        try line("Two").write(toFile: b.folder + "/" + copy, atomically: true, encoding: .utf8)
        try b.run(["sync"], now: "2026-11-23T09:00")
        try line("One").write(toFile: b.folder + "/" + file, atomically: true, encoding: .utf8)
        let syncA = try a.run(["sync"], now: "2026-11-23T09:01")
        try b.run(["sync"], now: "2026-11-23T09:01")
        let titleA = try a.sql("SELECT value FROM settings WHERE key = 'title'")
        let titleB = try b.sql("SELECT value FROM settings WHERE key = 'title'")
        #expect(titleA == titleB)
        #expect(["One", "Two"].contains(titleA))
        #expect(syncA.err.contains("two different contents"), "\(syncA.err)")
        // A third device finds both at once, in one read of the folder (one batch), either version first.
        for (inFile, inCopy) in [("One", "Two"), ("Two", "One")] {
            let c = try Device("c", tz: "Asia/Seoul")
            try c.join(now: "2026-11-23T08:00")
            try line(inFile).write(toFile: c.folder + "/" + file, atomically: true, encoding: .utf8)
            try line(inCopy).write(toFile: c.folder + "/" + copy, atomically: true, encoding: .utf8)
            try c.run(["sync"], now: "2026-11-23T09:01")
            #expect(try c.sql("SELECT value FROM settings WHERE key = 'title'") == titleA, "one batch kept another version than A and B")
            #expect(try c.run(["status"], now: "2026-11-23T09:02").out.contains("two different contents"))
        }
        #expect(try a.run(["status"], now: "2026-11-23T09:02").out.contains("two different contents"))
    }

    /// A stale copy of this device's own file (a restore): `refill` from cron writes its events again.
    @Test func aStaleOwnFileIsWrittenAgainByRefill() throws {
        let a = try Device("a", tz: "Asia/Seoul")
        try a.join(now: "2026-11-23T08:00")
        try a.run(["skip", "2026-12-24"], now: "2026-11-23T08:01")
        let own = try a.sql("SELECT id FROM device WHERE is_self = 1")
        let path = a.folder + "/" + (try FileManager.default.contentsOfDirectory(atPath: a.folder).first { $0.hasPrefix("planner-" + own) }!)
        let whole = try String(contentsOfFile: path, encoding: .utf8)
        #expect(whole.contains("2026-12-24"))
        try String(whole.prefix { $0 != "\n" } + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try a.run(["refill"], now: "2026-11-23T08:02")
        let texts = try FileManager.default.contentsOfDirectory(atPath: a.folder).filter { $0.hasPrefix("planner-" + own) }
            .map { try String(contentsOfFile: a.folder + "/" + $0, encoding: .utf8) }
        #expect(texts.contains { $0.contains("2026-12-24") }, "the skip is in the folder again: \(texts)")
    }

    /// A change that changes nothing is not recorded and travels nowhere.
    @Test func aNoOpChangeIsNotRecorded() throws {
        let a = try Device("a", tz: "Asia/Seoul")
        try a.join(now: "2026-11-23T08:00")
        let before = try a.sql("SELECT count(*) FROM event")
        let resume = try a.run(["resume"], now: "2026-11-23T08:01", ok: false)
        try a.run(["skip", "--remove", "2026-12-24"], now: "2026-11-23T08:02", ok: false)
        try a.run(["config", "set", "window", "09:30-21:30"], now: "2026-11-23T08:03")
        #expect(try a.sql("SELECT count(*) FROM event") == before, "resume: \(resume.out) \(resume.err)")
    }
}
