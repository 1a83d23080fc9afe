import Foundation
import PlannerHarness
import Testing

/// Files planted or changed by someone else (issue 7, defects 1, 2, 3, 5, 14, 18): the planner refuses
/// with one line and the documented exit status, follows no planted link, and changes no file.
/// Tests that need a second user run as root and give files to `nobody`.
@Suite(.serialized) struct HostileFileTests {
    func expectRefused(_ r: Harness.Result, _ status: Int32, saying text: String, _ loc: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "\(r.err)", sourceLocation: loc)
        #expect(r.err.hasPrefix("error: ") && r.err.filter { $0 == "\n" }.count == 1, "\(r.err)", sourceLocation: loc)
        #expect(r.err.contains(text), "\(r.err)", sourceLocation: loc)
        #expect(r.out.isEmpty, sourceLocation: loc)
    }

    /// A live ticker bounded in time: were it not refused, `timeout` ends it with 124.
    func tick(_ h: Harness, db: String? = nil) throws -> Harness.Result {
        try h.run("/usr/bin/timeout", ["-s", "KILL", "5", Harness.binary, "tick", "--db", db ?? h.db, "--sink", "stdout"], env: h.env)
    }

    func planted(_ h: Harness) throws -> (victim: String, content: Data) {
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        let victim = h.dir + "/victim.txt"
        let content = Data("precious\n".utf8)
        try content.write(to: URL(fileURLWithPath: victim))
        return (victim, content)
    }

    // Defect 1: the ticker's lock.

    @Test func aLockPlantedAsASymlinkIsNeverFollowed() throws {
        let h = try Harness()
        let (victim, content) = try planted(h)
        let before = h.bytes(h.db)
        for target in [victim, h.db] {
            unlink(h.db + ".tick.lock")
            try FileManager.default.createSymbolicLink(atPath: h.db + ".tick.lock", withDestinationPath: target)
            expectRefused(try tick(h), 65, saying: "symbolic link")
        }
        #expect(h.bytes(victim) == content)
        #expect(h.bytes(h.db) == before)
    }

    @Test(.enabled(if: getuid() == 0, "needs a second user")) func aLockOwnedByAnotherUserIsNotAdopted() throws {
        let h = try Harness()
        _ = try planted(h)
        let lock = h.db + ".tick.lock"
        let planted = Data("\u{1b}[2Jevil text\n".utf8)
        try planted.write(to: URL(fileURLWithPath: lock))
        chown(lock, 65534, 65534)
        chmod(lock, 0o666)
        let r = try tick(h)
        expectRefused(r, 65, saying: "another user")
        #expect(!r.err.contains("evil") && !r.err.contains("\u{1b}"))
        #expect(h.bytes(lock) == planted)
    }

    @Test func aLockHoldingTextIsNotEchoed() throws {
        let h = try Harness()
        _ = try planted(h)
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        try h.waitFor(seconds: 5) { h.text("tick.err").contains("delivering from") }
        // The running ticker's lock, rewritten by someone with terminal escapes.
        try Data("\u{1b}]0;evil\u{7}".utf8).write(to: URL(fileURLWithPath: h.db + ".tick.lock"))
        let r = try tick(h)
        expectRefused(r, 75, saying: "another ticker (pid unknown)")
        #expect(!r.err.contains("evil"))
        #expect(try h.stop(ticker).status == 0)
    }

    // Defect 2: hard links.

    @Test func aHardLinkedDatabaseIsRefused() throws {
        let h = try Harness()
        _ = try planted(h)
        let other = h.dir + "/q.db"
        #expect(link(h.db, other) == 0)
        let before = h.bytes(h.db)
        expectRefused(try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T12:00"]), 65, saying: "hard links")
        expectRefused(try h.planner(["list", "--db", other]), 65, saying: "hard links")
        expectRefused(try tick(h, db: other), 65, saying: "hard links")
        #expect(h.bytes(h.db) == before)
        // Once it has one name again it works.
        unlink(other)
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:00")
    }

    // Defect 3: someone else's files.

    @Test(.enabled(if: getuid() == 0, "needs a second user")) func anotherUsersWorldWritableDatabaseIsNotAdopted() throws {
        let h = try Harness()
        _ = try planted(h)
        chown(h.db, 65534, 65534)
        chmod(h.db, 0o666)
        let before = h.bytes(h.db)
        for args in [
            ["open", "--db", h.db, "--now", "2026-11-23T12:00"], ["list", "--db", h.db], ["add", "--db", h.db, "--in", "1h", "--title", "t"],
        ] {
            expectRefused(try h.planner(args), 65, saying: "belongs to another user")
        }
        expectRefused(try tick(h), 65, saying: "belongs to another user")
        #expect(h.bytes(h.db) == before)
        #expect(!FileManager.default.fileExists(atPath: h.db + "-wal"))
    }

    @Test(.enabled(if: getuid() == 0, "needs a second user")) func aWALFilePlantedByAnotherUserIsRefused() throws {
        let h = try Harness()
        _ = try planted(h)
        for suffix in ["-wal", "-shm"] {
            let file = h.db + suffix
            FileManager.default.createFile(atPath: file, contents: Data())
            chown(file, 65534, 65534)
            chmod(file, 0o666)
            let before = h.bytes(h.db)
            expectRefused(try h.planner(["open", "--db", h.db, "--now", "2026-11-23T12:00"]), 65, saying: "belongs to another user")
            #expect(h.bytes(h.db) == before)
            #expect(h.bytes(file) == Data())
            unlink(file)
        }
    }

    @Test func aWALFilePlantedAsASymlinkIsRefused() throws {
        let h = try Harness()
        let (victim, content) = try planted(h)
        for suffix in ["-wal", "-shm"] {
            try FileManager.default.createSymbolicLink(atPath: h.db + suffix, withDestinationPath: victim)
            expectRefused(try h.planner(["open", "--db", h.db, "--now", "2026-11-23T12:00"]), 65, saying: "not a regular file")
            #expect(h.bytes(victim) == content)
            unlink(h.db + suffix)
        }
    }

    // Defect 18: a schema changed by hand.

    @Test func aSchemaChangedByHandIsRefusedAtOpen() throws {
        let h = try Harness()
        for change in [
            "ALTER TABLE request DROP COLUMN attempts", "DROP INDEX request_changed_at",
            "PRAGMA user_version = 1", "DROP TRIGGER request_cap_on_insert",
        ] {
            unlink(h.db)
            _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
            _ = try h.sqlite(change)
            let before = h.bytes(h.db)
            for args in [["open", "--db", h.db, "--now", "2026-11-23T12:00"], ["list", "--db", h.db]] {
                expectRefused(try h.planner(args), 65, saying: "changed by hand")
            }
            #expect(h.bytes(h.db) == before, "\(change)")
        }
    }

    // Defect 14: many processes using a new database at once.

    @Test func manyProcessesCreatingOneDatabaseAtOnceAllSucceed() throws {
        let h = try Harness()
        var failures: [String] = []
        for round in 0..<20 {
            let path = h.dir + "/new-\(round).db"
            let commands = ["list", "open", "refill", "status"]
            let processes = try (0..<24).map { i -> (Process, Pipe) in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: Harness.binary)
                p.arguments = [commands[i % commands.count], "--db", path, "--now", "2026-11-23T12:00"]
                p.environment = h.env
                let err = Pipe()
                p.standardOutput = FileHandle.nullDevice
                p.standardError = err
                try p.run()
                return (p, err)
            }
            for (p, err) in processes {
                let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                if p.terminationStatus != 0 { failures.append("round \(round): \(p.terminationStatus) \(text)") }
            }
            #expect(try h.sqlite("PRAGMA integrity_check", db: path) == "ok")
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
