import CSQLite
import Foundation
import PlannerCore
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerFolders
@testable import PlannerStore

/// "Any arrival order ends in the same state on every device", as a property: N devices made in different
/// zones, clocks hours apart, random opens, answers' opens, settings of the day rule (zone, a window across
/// midnight, interval), titles, skips, pauses and resumes; each device hears the others' files in its own
/// random order, cut mid-line, twice, as conflict copies, late. After everything reached everyone, every
/// shared view is the same on every device, each open's study day is the one the settings in force at its
/// stamp give (computed here from the `events` view alone), and no device has a pending slot of a day
/// opened anywhere. A fourth device runs a newer planner: its lines carry fields this one does not know
/// (applied, the field ignored), kinds of change and line versions it does not know (kept unconsumed, never
/// applied, on every device alike). Two of the devices read one Anki collection (answers made on either
/// clock, late phone reviews, rows that are not answers), each whenever it syncs. Devices are backed up and
/// later restored whole (the database and its own files, carried at once to every folder as a sync engine
/// carries a file put back): what another device had read comes back to them.
///
/// CI runs the fixed seeds below; many more: `PLANNER_PROPERTY_SEEDS=500 swift test --filter ConvergenceTests`.
@Suite struct ConvergenceTests {
    static let seeds: [UInt64] = {
        let count = ProcessInfo.processInfo.environment["PLANNER_PROPERTY_SEEDS"].flatMap { UInt64($0) } ?? 24
        return Array(1...max(1, count))
    }()
    static let zones = ["Europe/Berlin", "America/New_York", "Asia/Seoul", "Pacific/Auckland", "UTC", "America/Los_Angeles"]
    static let windows = ["09:30-21:30", "20:00-01:30", "08:00-23:00", "22:00-02:00"]

    func folder() -> String {
        let path = temporaryDatabasePath() + ".sync"
        mkdir(path, 0o700)
        return path
    }

    /// An Anki collection as far as the planner reads one (`col.ver`, `revlog`): the end-to-end tests use
    /// Anki's own backend; here only the review log's rows matter.
    func collection() throws -> String {
        let path = temporaryDatabasePath() + ".anki2"
        let anki = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { anki.close() }
        try anki.execute(
            """
            CREATE TABLE col (id INTEGER PRIMARY KEY, ver INTEGER NOT NULL); INSERT INTO col VALUES (1, 18);
            CREATE TABLE revlog (id INTEGER PRIMARY KEY, cid INTEGER NOT NULL, usn INTEGER NOT NULL, ease INTEGER NOT NULL,
                ivl INTEGER NOT NULL, lastIvl INTEGER NOT NULL, factor INTEGER NOT NULL, time INTEGER NOT NULL, type INTEGER NOT NULL);
            """)
        return path
    }

    func review(_ path: String, at ms: Int64, type: Int64, ease: Int64) throws {
        let anki = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        defer { anki.close() }
        try anki.prepare("INSERT OR IGNORE INTO revlog VALUES (?, 1, 0, ?, 1, 0, 2500, 5000, ?)").run(.integer(ms), .integer(ease), .integer(type))
    }

    @Test(arguments: seeds) func everyArrivalOrderGivesOnePlan(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed &* 7919)
        let count = 3
        let folders = (0..<count).map { _ in folder() }
        let anki = try collection()
        var backups: [Int: (db: String, files: [String: Data])] = [:]
        var paths: [String] = []
        let skew: [Int64] = (0..<count).map { _ in Int64.random(in: -6 * 3_600_000...6 * 3_600_000, using: &random) }
        var clock = Instant(milliseconds: 1_795_370_400_000).milliseconds  // 2026-11-23T06:00Z, a Monday
        var devices: [PlannerDatabase] = []
        for i in 0..<count {
            let zone = Self.zones.randomElement(using: &random)!
            paths.append(temporaryDatabasePath())
            let db = try PlannerDatabase(path: paths[i], zoneForNewPlan: zone)
            let made = Instant(milliseconds: clock + skew[i] + Int64(i) * 60_000)
            try db.refill(now: made)
            try db.configure(
                set: [(.syncFolder, folders[i]), (.deviceName, "d\(i)"), (.days, try SettingKey.days.canonical("daily"))]
                    + (i < 2 ? [(.ankiCollection, anki)] : []), reset: [], now: made)
            devices.append(db)
        }
        func now(_ i: Int) -> Instant { Instant(milliseconds: clock + skew[i]) }
        // A record of four weeks on the first device, most days studied about the same hour (spread or not): the
        // usual-time schedule, set below now and then, has a usual time to decide from on some seeds.
        let spread = Int64.random(in: 0...3, using: &random) * 30 * 60_000
        for day in (1...28).reversed() where Int.random(in: 0..<4, using: &random) > 0 {
            let at = clock - Int64(day) * 86_400_000 + 12 * 3_600_000 + Int64.random(in: -spread...spread, using: &random)
            try devices[0].recordAppOpen(now: Instant(milliseconds: at))
        }
        if Bool.random(using: &random) {
            try devices[Int.random(in: 0..<count, using: &random)].configure(set: [(.schedule, "usual-time")], reset: [], now: now(0))
        }
        // The newer planner's device: its file, written by hand (this planner cannot make such lines).
        let newer = folder()
        let newerID = String(SHA256.hex("newer \(seed)".utf8).prefix(32))
        let newerFile = newer + "/" + SyncFileText.fileName(device: newerID, sequence: 1)
        var newerText = "planner-device 1 id=\(newerID) name=newer at=\(clock) colour=blue\n"
        var newerUnderstood = 0
        var newerKept = 0
        var newerCounter = 0
        func newerWrites() throws {
            newerCounter += 1
            let id = String(SHA256.hex("newer \(seed) \(newerCounter)".utf8).prefix(32))
            let head = "id=\(id) at=\(clock) origin=skip"
            let tail = "device=\(newerID) stamp=\(clock).\(newerCounter)"
            let date = Self.utcDate(Instant(milliseconds: clock)).adding(days: Int.random(in: 0...3, using: &random))
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                newerText += "planner-event 2 \(head) kind=skip \(tail) dates=\(date) mood=keen\n"
                newerUnderstood += 1
            case 2:
                newerText += "planner-event 2 \(head) kind=teleport \(tail) to=moon\n"
                newerKept += 1
            default:
                newerText += "planner-event 3 \(head) kind=skip \(tail) dates=\(date) shape=round\n"
                newerKept += 1
            }
            try Data(newerText.utf8).write(to: URL(fileURLWithPath: newerFile))
        }
        func hear(_ to: Int) throws {
            if Int.random(in: 0..<4, using: &random) == 0 {
                try carry(from: newer, to: folders[to], own: nil, random: &random)
            }
            let from = Int.random(in: 0..<count, using: &random)
            guard from != to else {
                _ = try devices[to].sync(now: now(to))
                return
            }
            try carry(from: folders[from], to: folders[to], own: try devices[to].read({ try $0.selfDeviceID() }), random: &random)
            _ = try devices[to].sync(now: now(to))
        }
        /// Device `i`'s own files in its folder.
        func ownFiles(_ i: Int) throws -> [String] {
            guard let id = try devices[i].read({ try $0.selfDeviceID() }) else { return [] }
            return try FileManager.default.contentsOfDirectory(atPath: folders[i]).filter { $0.hasPrefix("planner-\(id)-") }
        }
        func backUp(_ i: Int) throws {
            let copy = temporaryDatabasePath()
            try devices[i].inspection.execute("VACUUM INTO '\(copy)'")
            var files: [String: Data] = [:]
            for name in try ownFiles(i) { files[name] = try Data(contentsOf: URL(fileURLWithPath: folders[i] + "/" + name)) }
            backups[i] = (copy, files)
        }
        func restore(_ i: Int) throws {
            guard let backup = backups.removeValue(forKey: i), let id = try devices[i].read({ try $0.selfDeviceID() }) else { return }
            devices[i].inspection.close()
            for suffix in ["", "-wal", "-shm"] { unlink(paths[i] + suffix) }
            try FileManager.default.copyItem(atPath: backup.db, toPath: paths[i])
            devices[i] = try PlannerDatabase(path: paths[i])
            // Put back in its folder, and carried at once to every other (a newer version of those files).
            for folder in folders {
                for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("planner-\(id)-") {
                    unlink(folder + "/" + name)
                }
                for (name, data) in backup.files { try data.write(to: URL(fileURLWithPath: folder + "/" + name)) }
            }
        }
        for _ in 0..<40 {
            clock += Int64.random(in: 60_000...(90 * 60_000), using: &random)
            let i = Int.random(in: 0..<count, using: &random)
            let db = devices[i]
            let dayOffset = Int.random(in: -1...2, using: &random)
            let someDate = Self.utcDate(now(i)).adding(days: dayOffset)
            switch Int.random(in: 0..<13, using: &random) {
            case 0, 1, 2: try db.recordAppOpen(now: now(i), origin: Bool.random(using: &random) ? "open" : "answer")
            case 12:
                // A one-off of one of two identifiers, days ahead (never over before the end), on any clock.
                let fire = now(i) + Int64.random(in: 3...5, using: &random) * 86_400_000 + Int64.random(in: 0..<86_400, using: &random) * 1_000
                _ = try db.add(
                    NewRequest(identifier: "tea\(Int.random(in: 0..<2, using: &random))", fireAt: fire, title: "t\(i)", body: "b\(dayOffset)"),
                    now: now(i), zone: try db.planSettings().zone)
            case 3:
                try db.configure(
                    set: [(.window, try SettingKey.window.canonical(Self.windows.randomElement(using: &random)!))], reset: [], now: now(i))
            case 4: try db.configure(set: [(.zone, Self.zones.randomElement(using: &random)!)], reset: [], now: now(i))
            case 5:
                try db.configure(
                    set: [(.interval, try SettingKey.interval.canonical(["30m", "45m", "60m"].randomElement(using: &random)!))], reset: [],
                    now: now(i))
            case 6: try db.configure(set: [(.title, "t\(Int.random(in: 0..<4, using: &random))")], reset: [], now: now(i))
            case 7: try db.configure(set: [], reset: [[SettingKey.window, .zone, .interval, .title].randomElement(using: &random)!], now: now(i))
            case 8: try db.skip([someDate], reason: Bool.random(using: &random) ? nil : "r\(dayOffset)", now: now(i))
            case 9: _ = try db.unskip([someDate], now: now(i))
            case 11 where Int.random(in: 0..<3, using: &random) == 0:
                try db.configure(set: [(.schedule, ["grid", "usual-time"].randomElement(using: &random)!)], reset: [], now: now(i))
            case 10:
                try db.pause(now: now(i), until: Bool.random(using: &random) ? nil : now(i) + Int64.random(in: 1...12, using: &random) * 3_600_000)
            default: _ = try db.resume(now: now(i))
            }
            if Int.random(in: 0..<5, using: &random) == 0 { try newerWrites() }
            switch Int.random(in: 0..<12, using: &random) {
            case 0, 1, 2:
                // An answer in Anki, on a computer's clock; now and then a phone's, synced hours late; or a row that
                // is not an answer ("Set due date").
                let late = Int.random(in: 0..<3, using: &random) == 0 ? Int64.random(in: 1...30, using: &random) * 3_600_000 : 0
                let manual = Int.random(in: 0..<6, using: &random) == 0
                try review(
                    anki, at: now(Int.random(in: 0..<2, using: &random)).milliseconds - late - Int64.random(in: 0...600_000, using: &random),
                    type: manual ? 4 : Int64.random(in: 0...3, using: &random), ease: manual ? 0 : Int64.random(in: 1...4, using: &random))
            case 3: if backups[i] == nil, try db.read({ try $0.selfDeviceID() }) != nil { try backUp(i) }
            case 4: if backups[i] != nil { try restore(i) }
            default: break
            }
            if Int.random(in: 0..<2, using: &random) == 0 { try hear(Int.random(in: 0..<count, using: &random)) }
        }
        // Everything reaches everyone (whole files, in a random order), then clocks are sane again.
        clock += 2 * 86_400_000
        for _ in 0..<2 {
            for to in (0..<count).shuffled(using: &random) {
                for from in (0..<count).shuffled(using: &random) where from != to {
                    try carry(
                        from: folders[from], to: folders[to], own: try devices[to].read({ try $0.selfDeviceID() }), whole: true,
                        random: &random)
                }
                try carry(from: newer, to: folders[to], own: nil, whole: true, random: &random)
                let report = try devices[to].sync(now: Instant(milliseconds: clock))
                if ProcessInfo.processInfo.environment["PLANNER_PROPERTY_DEBUG"] != nil { print("d\(to) final:", report.sync?.problems ?? []) }
            }
        }
        let views = try devices.map { try shared($0, now: Instant(milliseconds: clock)) }
        if ProcessInfo.processInfo.environment["PLANNER_PROPERTY_DEBUG"] != nil {
            for (i, db) in devices.enumerated() {
                print("d\(i) self", try db.read({ try $0.selfDeviceID() }) ?? "-", "folder", folders[i])
                let stmt = try db.inspection.prepare("SELECT name, size, consumed, coalesce(problem, ''), coalesce(waiting_ms, 0) FROM sync_file")
                while try stmt.step() { print("  ", (0..<5).map { stmt.text($0) }.joined(separator: " ")) }
                for name in try FileManager.default.contentsOfDirectory(atPath: folders[i]).sorted() {
                    let size = (try? FileManager.default.attributesOfItem(atPath: folders[i] + "/" + name)[.size] as? Int) ?? -1
                    print("   file", name, size)
                }
            }
        }
        for i in 1..<count {
            for (name, view) in views[0] where view != views[i][name] {
                let other = views[i][name] ?? []
                Issue.record(
                    "seed \(seed): \(name) differs between d0 and d\(i): only d0 \(view.filter { !other.contains($0) }), only d\(i) \(other.filter { !view.contains($0) })"
                )
            }
        }
        for (i, db) in devices.enumerated() {
            // The newer planner's lines: those this planner understands applied, the others kept for an upgrade.
            let applied = try db.inspection.integer("SELECT count(*) FROM event WHERE device = ?", .text(newerID)) ?? -1
            #expect(
                applied == Int64(newerUnderstood), "seed \(seed), d\(i): \(applied) of the newer planner's \(newerUnderstood) known lines applied")
            if newerKept > 0 {
                let kept = try db.inspection.integer(
                    "SELECT count(*) FROM sync_file WHERE name = ? AND newer_reader IS NOT NULL AND problem LIKE '%from a newer planner%'",
                    .text(SyncFileText.fileName(device: newerID, sequence: 1)))
                #expect(kept == 1, "seed \(seed), d\(i): the newer planner's unknown lines are not kept for an upgrade")
            }
            for problem in try studyDaysAgainstTheHistory(db) { Issue.record("seed \(seed), d\(i): \(problem)") }
            let opened = try db.inspection.integer(
                """
                SELECT count(*) FROM request r WHERE r.state = 'pending' AND r.kind = 'slot'
                  AND r.local_date IN (SELECT local_date FROM app_open)
                """)
            #expect(opened == 0, "seed \(seed), d\(i): a pending slot of a day opened")
        }
    }

    /// Each view every device must agree on.
    func shared(_ db: PlannerDatabase, now: Instant) throws -> [String: [String]] {
        var views: [String: [String]] = [:]
        for (name, sql) in [
            (
                "settings",
                "SELECT key || '=' || value FROM setting WHERE key NOT IN ('sync-folder', 'device-name', 'calendar-folder', 'calendar-days', 'anki-collection', 'study-command') ORDER BY key"
            ),
            ("opens", "SELECT event_id || ' ' || local_date FROM app_open ORDER BY event_id"),
            ("skips", "SELECT local_date || ' ' || coalesce(reason, '') FROM skipped_dates ORDER BY local_date"),
            ("pauses", "SELECT coalesce(since, '') || ' ' || coalesce(until, '') || ' ' || coalesce(ended_at, '') FROM pauses"),
            (
                "one-offs",
                """
                SELECT identifier || ' ' || fire_at_ms || ' ' || title || ' ' || body FROM request
                WHERE kind = 'oneoff' AND state IN \(RequestState.waitingSQL) ORDER BY identifier
                """
            ),
            // Each device's own setup (its folder, its name, the days) is not compared: only part of it travels.
            (
                "events",
                "SELECT id || ' ' || kind || ' ' || payload || ' ' || stamp || ' ' || device_id FROM events WHERE payload NOT LIKE '%days=%' ORDER BY id"
            ),
        ] {
            let stmt = try db.inspection.prepare(sql)
            var rows: [String] = []
            while try stmt.step() { rows.append(stmt.text(0)) }
            views[name] = rows
        }
        let input = try db.planAheadInput(now: now)
        views["plan"] = planAhead(now: now, zone: input.zone, schedule: input.settings.schedule, exclusions: input.exclusions, days: 14)
            .map { "\($0.date) \($0.slots.map(\.fireAt.milliseconds)) \($0.noSlots.map { "\($0)" } ?? "")" }
        return views
    }

    /// The oracle: each open's study day from the `events` rows alone (settings in stamp order, the earliest
    /// plan-zone claim as the zone's base), with the day rule `Schedule.studyDay` states, read through
    /// `Zone.local` (itself checked against Python's zoneinfo elsewhere).
    func studyDaysAgainstTheHistory(_ db: PlannerDatabase) throws -> [String] {
        struct Row {
            var stamp: Stamp
            var event: PlanEvent
        }
        let stmt = try db.inspection.prepare(
            """
            SELECT id, at_ms, origin, kind, payload, coalesce(stamp_ms, at_ms), stamp_counter, device FROM event
            """)
        var rows: [Row] = []
        while try stmt.step() {
            guard let event = PlannerDatabase.storedEvent(stmt), let stamp = event.stamp else { continue }
            rows.append(Row(stamp: stamp, event: event))
        }
        rows.sort { $0.stamp < $1.stamp }
        let claims = rows.filter { $0.event.isPlanZoneClaim }
        var baseZone = try db.inspection.text("SELECT default_value FROM setting WHERE key = 'zone'") ?? "UTC"
        if let first = claims.first, case .settings(let set, _) = first.event.change { baseZone = set[0].value }
        var values: [SettingKey: String] = [.zone: baseZone, .window: SettingKey.window.defaultValue, .interval: SettingKey.interval.defaultValue]
        var problems: [String] = []
        let recorded = try db.inspection.prepare("SELECT local_date FROM app_open WHERE event_id = ?")
        for row in rows {
            switch row.event.change {
            case .settings(let set, let reset) where !row.event.isPlanZoneClaim:
                for key in reset where values[key] != nil { values[key] = key == .zone ? baseZone : key.defaultValue }
                for change in set where values[change.key] != nil { values[change.key] = change.value }
            case .open:
                let zone = try SystemZone.named(values[.zone]!)
                let plan = PlanSettings.reading(["window": values[.window]!, "interval": values[.interval]!]).settings
                let local = zone.local(row.event.at)
                // Schedule.studyDay, stated again: before the next day's start, a window across midnight
                // still belongs to the day before.
                let s = plan.schedule
                let minute = local.hour * 60 + local.minute
                let crosses = s.endMinute < s.startMinute
                let expected = crosses && minute < min(s.endMinute + s.intervalMinutes, s.startMinute) ? local.date.adding(days: -1) : local.date
                try recorded.bind([.text(row.event.id)])
                let got = try recorded.step() ? recorded.text(0) : "none"
                if got != expected.description {
                    problems.append("open \(row.event.id) at \(row.event.at.milliseconds) recorded on \(got), the history says \(expected)")
                }
            default:
                continue
            }
        }
        return problems
    }

    static func utcDate(_ instant: Instant) -> LocalDate { LocalDateTime(epochMillisecondsAsIfUTC: instant.milliseconds).date }

    /// Copies `from`'s planner files into `to` as a sync engine would (a temporary name renamed into place),
    /// except `to`'s own: now and then cut mid-line (the rest comes later), or also as a conflict copy.
    func carry(from: String, to: String, own: String?, whole: Bool = false, random: inout SeededGenerator) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: from) where name.hasPrefix("planner-") && !name.contains("sync-conflict") {
            if let own, name.hasPrefix("planner-\(own)-") { continue }
            var data = try Data(contentsOf: URL(fileURLWithPath: from + "/" + name))
            if !whole, !data.isEmpty, Int.random(in: 0..<4, using: &random) == 0 {
                data = data.prefix(Int.random(in: 0..<data.count, using: &random))
            }
            let target = to + "/" + name
            // Files are append-only: like a sync engine's version vectors, a copy never goes back to an
            // older (shorter) version of a file another device relays (a stale copy of this device's own is
            // a test of its own).
            if let held = try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int, held > data.count { continue }
            try data.write(to: URL(fileURLWithPath: to + "/.syncthing." + name + ".tmp"))
            rename(to + "/.syncthing." + name + ".tmp", target)
            if !whole, Int.random(in: 0..<5, using: &random) == 0 {
                try data.write(
                    to: URL(fileURLWithPath: target.replacingOccurrences(of: ".events", with: ".sync-conflict-20261125-000000-XXXXXXX.events")))
            }
        }
    }
}
