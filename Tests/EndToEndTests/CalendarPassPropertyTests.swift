import Foundation
import PlannerHarness
import PlannerTestSupport
import Testing

/// Issue 31: a calendar pass looks only into the buckets whose files or plan changed since the last pass
/// recorded them (`calendar_pass`, migration 0014). The promise: skipping changes nothing. Two twins get the
/// same random commands, clocks, phone ticks, edits in place, deletions and touches; one forgets every record
/// before each command, so each of its passes looks into every bucket as before the records existed. After
/// every step both folders must hold the same bytes, and the databases the same rows, opens and requests.
///
/// CI runs the fixed seeds; for many more: `PLANNER_PASS_SEEDS=200 swift test --filter CalendarPassPropertyTests`.
@Suite struct CalendarPassPropertyTests {
    static let seeds: [UInt64] = {
        let many = Int(ProcessInfo.processInfo.environment["PLANNER_PASS_SEEDS"] ?? "") ?? 0
        return many > 0 ? (1...UInt64(many)).map { $0 } : (1...8).map { $0 }
    }()

    struct Twin {
        let h: Harness
        let folder: String
        let forgets: Bool
    }

    static func stamp(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "Asia/Seoul")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return f.string(from: date)
    }

    /// A process holding the folder's lock (flock, as two planners take turns) until terminated.
    static func holdLock(_ folder: String, marker: String) throws -> Process {
        try? FileManager.default.removeItem(atPath: marker)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); open(sys.argv[2], 'w').close(); time.sleep(60)",
            folder, marker,
        ]
        try p.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: marker), Date() < deadline { usleep(10_000) }
        return p
    }

    static func day(_ date: Date, plus days: Int) -> String {
        String(stamp(date.addingTimeInterval(Double(days) * 86_400)).prefix(10))
    }

    @Test(arguments: seeds) func skippingAPassChangesNothing(seed: UInt64) throws {
        var steps = SeededGenerator(seed: seed)
        var twins: [Twin] = []
        for forgets in [false, true] {
            let h = try Harness()
            let folder = h.dir + "/calendar"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try FileManager.default.createDirectory(atPath: h.dir + "/shared", withIntermediateDirectories: false)
            try h.configOK(
                ["set", "calendar-folder", folder, "calendar-days", "4", "sync-folder", h.dir + "/shared", "device-name", "twin"],
                now: "2026-11-23T08:00")
            twins.append(Twin(h: h, folder: folder, forgets: forgets))
        }
        // Another computer: its opens and settings reach both twins through their sync folders, so a plan
        // changes without the twins' own commands touching the calendar folder.
        let other = try Harness()
        try FileManager.default.createDirectory(atPath: other.dir + "/shared", withIntermediateDirectories: false)
        try other.configOK(["set", "sync-folder", other.dir + "/shared", "device-name", "other"], now: "2026-11-23T08:00")
        var now = Date(timeIntervalSince1970: 1_795_392_000)  // 2026-11-23T08:00+09:00
        var log: [String] = []
        for step in 0..<40 {
            now = now.addingTimeInterval(60 * Double(steps.pick([1, 7, 29, 31, 44, 95, 400, 1_440])))
            let at = Self.stamp(now)
            // What happens to the folder outside the planner (the same to both), then one command.
            var outside: ((String) throws -> Void)?
            var name = ""
            switch steps.below(10) {
            case 0:
                let date = Self.day(now, plus: steps.below(3))
                name = "planner-day-\(date).ics"
                let text = CalendarFolderFixture.phoneTick(day: date, completedUTC: "20261123T041500Z")
                outside = { folder in try CalendarFolderFixture.deliver(text, to: folder + "/" + name) }
            case 1:
                let date = Self.day(now, plus: steps.below(3))
                name = "planner-day-\(date).ics"
                let text = CalendarFolderFixture.phoneTick(day: date, completedUTC: "20261123T041500Z")
                // Written in place (no rename): only the file's mtime and ctime say it changed.
                outside = { folder in
                    guard let handle = FileHandle(forUpdatingAtPath: folder + "/" + name) else { return }
                    try handle.truncate(atOffset: 0)
                    try handle.write(contentsOf: Data(text.utf8))
                    try handle.close()
                }
            case 2:
                let pick = steps.below(1_000)
                outside = { folder in
                    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("planner-") }.sorted()
                    guard !names.isEmpty else { return }
                    let victim = folder + "/" + names[pick % names.count]
                    if pick % 2 == 0 { try FileManager.default.removeItem(atPath: victim) } else { utimes(victim, nil) }
                }
                name = "a deletion or a touch (\(pick))"
            case 3:
                let change =
                    steps.below(2) == 0
                    ? ["open", "--db", other.db, "--now", at] : ["config", "set", "title", "T\(step)", "--db", other.db, "--now", at]
                _ = try other.planner(change)
                let published = try FileManager.default.contentsOfDirectory(atPath: other.dir + "/shared")
                outside = { folder in
                    let shared = (folder as NSString).deletingLastPathComponent + "/shared/"
                    for file in published {
                        try? FileManager.default.removeItem(atPath: shared + file)
                        try FileManager.default.copyItem(atPath: other.dir + "/shared/" + file, toPath: shared + file)
                    }
                }
                name = "another computer's \(change[0])"
            default: break
            }
            let command: [String]
            switch steps.below(12) {
            case 0: command = steps.below(2) == 0 ? ["open"] : ["open", "locked"]
            case 1: command = ["config", "set", "title", steps.pick(["Study", "Lessons", "공부"])]
            case 2: command = ["config", "set", "calendar-days", String(1 + steps.below(7))]
            case 3: command = ["config", "set", "window", steps.pick(["09:30-21:30", "20:00-01:30", "10:00-18:00"])]
            case 4: command = ["skip", Self.day(now, plus: steps.below(4))]
            case 5: command = ["skip", "--remove", Self.day(now, plus: steps.below(4))]
            case 6:
                command = [
                    "add", "--at", Self.stamp(now.addingTimeInterval(Double(3_600 * (1 + steps.below(60))))), "--title", "One", "--id", "o\(step)",
                ]
            case 7: command = steps.below(2) == 0 ? ["pause", "--for", "\(1 + steps.below(30))h"] : ["resume"]
            case 8: command = ["sync"]
            default: command = ["refill"]
            }
            log.append("\(at) \(name.isEmpty ? "" : name + ", then ")\(command.joined(separator: " "))")
            var results: [Harness.Result] = []
            for twin in twins {
                if let outside { try outside(twin.folder) }
                if twin.forgets { _ = try twin.h.sqlite("DELETE FROM calendar_pass") }
                // `open` while something holds the folder's lock: its rows change, its files cannot.
                let locked = command == ["open", "locked"]
                let holder = locked ? try Self.holdLock(twin.folder, marker: twin.h.dir + "/locked") : nil
                // SIGKILL: a child of the test runner may inherit SIGTERM ignored (it slept out its 60 s).
                defer {
                    if let holder {
                        kill(holder.processIdentifier, SIGKILL)
                        holder.waitUntilExit()
                    }
                }
                let args =
                    locked
                    ? ["open", "--db", twin.h.db, "--now", at]
                    : command[0] == "config"
                        ? [command[0], command[1], "--db", twin.h.db, "--now", at] + command.dropFirst(2)
                        : [command[0], "--db", twin.h.db, "--now", at] + command.dropFirst()
                var r = try twin.h.planner(args)
                (r.out, r.err) = (r.out.replacingOccurrences(of: twin.h.dir, with: "~"), r.err.replacingOccurrences(of: twin.h.dir, with: "~"))
                results.append(r)
            }
            let (a, b) = (twins[0], twins[1])
            let context = "seed \(seed), step \(step):\n" + log.suffix(6).joined(separator: "\n")
            #expect(results[0].status == results[1].status && results[0].out == results[1].out, "\(context)\n\(results[0])\n\(results[1])")
            #expect(results[0].err == results[1].err, "\(context)\n\(results[0].err)\n\(results[1].err)")
            var folderA = try CalendarFolderFixture.snapshot(a.folder)
            var folderB = try CalendarFolderFixture.snapshot(b.folder)
            // What `open` left aside for the next pass to unlink has random names: the same contents, alike.
            func aside(_ folder: inout [String: Data]) -> [Data] {
                let names = folder.keys.filter { $0.hasPrefix(".planner-") && $0.hasSuffix(".tmp") }
                defer { for name in names { folder[name] = nil } }
                return names.map { folder[$0]! }.sorted { $0.lexicographicallyPrecedes($1) }
            }
            let (asideA, asideB) = (aside(&folderA), aside(&folderB))
            #expect(asideA == asideB, "\(context)\nleft aside: \(asideA.count) with records, \(asideB.count) without")
            let onlyA = Set(folderA.keys).subtracting(folderB.keys).sorted()
            let onlyB = Set(folderB.keys).subtracting(folderA.keys).sorted()
            #expect(onlyA.isEmpty && onlyB.isEmpty, "\(context)\nonly with records: \(onlyA)\nonly without: \(onlyB)")
            let differing = folderA.keys.filter { folderB[$0] != nil && folderA[$0] != folderB[$0] }.sorted()
            #expect(differing.isEmpty, "\(context)\ndiffering: \(differing)")
            for query in [
                "SELECT name, day, digest, problem FROM calendar_file ORDER BY name",
                "SELECT local_date, origin, opened_at_ms FROM app_open ORDER BY 1, 3",
                "SELECT identifier, state FROM request ORDER BY identifier",
            ] {
                let (x, y) = (try a.h.sqlite(query), try b.h.sqlite(query))
                let (rowsX, rowsY) = (x.split(separator: "\n"), y.split(separator: "\n"))
                #expect(
                    x == y,
                    "\(context)\n\(query)\nonly with records: \(rowsX.filter { !rowsY.contains($0) })\nonly without: \(rowsY.filter { !rowsX.contains($0) })"
                )
            }
            if !differing.isEmpty || !onlyA.isEmpty || !onlyB.isEmpty { break }
        }
        // The records were used: most passes of the first twin looked into few buckets.
        #expect(try twins[0].h.sqlite("SELECT count(*) > 0 FROM calendar_pass") == "1")
    }
}

extension CalendarPassPropertyTests {
    /// A tz database update that moves a one-off's local time, in a year beyond the calendar head's
    /// VTIMEZONE: its bucket's key changes (the one-off's local time is in it), so the file is rewritten
    /// (a hostile review found it left at the old time).
    @Test func aTzDatabaseChangeMovesAOneOffFarAhead() throws {
        let h = try Harness()
        for (version, source) in [
            ("v1", "Zone Test/X 9:00 - TST\nZone Etc/UTC 0 - UTC\n"),
            ("v2", "Zone Test/X 9:00 - TST 2029 Jan 1 0:00\n 10:00 - TXT\nZone Etc/UTC 0 - UTC\n"),
        ] {
            try source.write(toFile: h.dir + "/\(version).zi", atomically: true, encoding: .utf8)
            let r = try h.run("/usr/sbin/zic", ["-d", h.dir + "/" + version, h.dir + "/\(version).zi"], env: h.env)
            try #require(r.status == 0, "\(r.err)")
        }
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        func planner(_ tz: String, _ args: [String], now: String) throws {
            let r = try h.planner(
                args + ["--db", h.db, "--now", now], env: ["TZ": "Test/X", "TZDIR": h.dir + "/" + tz])
            #expect(r.status == 0, "\(args): \(r.err)")
        }
        try planner("v1", ["config", "set", "calendar-folder", folder, "calendar-days", "2"], now: "2026-11-23T08:00")
        try planner("v1", ["add", "--at", "2029-06-01T12:00", "--title", "Far", "--id", "far"], now: "2026-11-23T08:00")
        try planner("v1", ["refill"], now: "2026-11-23T08:05")
        func start() throws -> String {
            let name = try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("planner-oneoff-") } ?? ""
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            return text.split(separator: "\r\n").first { $0.hasPrefix("DTSTART;TZID=") }.map(String.init) ?? ""
        }
        #expect(try start() == "DTSTART;TZID=Test/X:20290601T120000")
        try planner("v2", ["refill"], now: "2026-11-23T08:10")
        #expect(try start() == "DTSTART;TZID=Test/X:20290601T130000")
    }
}
