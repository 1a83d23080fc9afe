import Foundation
import PlannerHarness
import Testing

extension Harness {
    /// Starts a live `planner tick` (on `path`, else the test's database) with stdout and stderr going
    /// to files in the test folder.
    func startTicker(_ args: [String], name: String = "tick", at path: String? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Harness.binary)
        p.arguments = ["tick", "--db", path ?? db] + args
        p.environment = env
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        FileManager.default.createFile(atPath: "\(dir)/\(name).out", contents: nil)
        FileManager.default.createFile(atPath: "\(dir)/\(name).err", contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: "\(dir)/\(name).out")
        p.standardError = FileHandle(forWritingAtPath: "\(dir)/\(name).err")
        try p.run()
        // Started once it has announced itself (lock taken, watches set).
        try waitFor(seconds: 10) { text("\(name).err").contains("delivering from") }
        return p
    }

    /// Whether a process has exited (gone, or a zombie not yet reaped): /proc knows at once.
    static func hasExited(_ pid: Int32) -> Bool {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return true }
        let text = String(decoding: stat, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return true }
        return text[text.index(close, offsetBy: 2)] == "Z"
    }

    /// Sends `signal` and returns how long the process took to exit, and its status.
    func stop(_ p: Process, signal: Int32 = SIGTERM) throws -> (seconds: Double, status: Int32) {
        let start = Date()
        kill(p.processIdentifier, signal)
        try waitFor(seconds: 5) { Harness.hasExited(p.processIdentifier) }
        let seconds = Date().timeIntervalSince(start)
        p.waitUntilExit()
        return (seconds, p.terminationStatus)
    }

    /// SIGSTOP (a laptop lid), at a moment the ticker holds no write lock on the database: its own
    /// wake-ups run passes, and one stopped inside its transaction would make every command wait.
    func stopIdle(_ ticker: Process) throws {
        for _ in 0..<100 {
            kill(ticker.processIdentifier, SIGSTOP)
            if (try? sqlite("BEGIN IMMEDIATE; ROLLBACK;")) != nil { return }
            kill(ticker.processIdentifier, SIGCONT)
            usleep(50_000)
        }
        throw HarnessError("the ticker never let go of the database")
    }
}

@Suite struct TickerOnceTests {
    @Test func deliversTheDueSlotThroughStdout() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        #expect(try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:29:59") == "")
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:30:00.250")
        #expect(out == "Noti_AppOpenPromotion_2026_11_23_12_30\t2026-11-23T12:30:00+09:00\tTime to study?\n")
        #expect(try h.sqlite("SELECT identifier, lateness_ms >= 250 FROM delivered_notifications") == "Noti_AppOpenPromotion_2026_11_23_12_30|1")
        // Delivered once: running again delivers nothing.
        #expect(try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:31") == "")
    }

    @Test func afterASleepOnlyTheLatestStudySlotIsDeliveredAndEveryOneOff() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")
        for (id, time) in [("a", "2026-11-23T10:00"), ("b", "2026-11-23T11:50"), ("c", "2026-11-23T11:55")] {
            _ = try h.plannerOK(["add", "--at", time, "--title", id, "--id", id], now: "2026-11-23T09:00")
        }
        let out = try h.plannerOK(["tick", "--once", "--sink", "stdout", "--grace", "45m"], now: "2026-11-23T12:00", stderrAllowed: true)
        #expect(
            out.split(separator: "\n").map { $0.split(separator: "\t")[0] }
                == ["b", "c", "Noti_AppOpenPromotion_2026_11_23_12_00"])
        #expect(
            try h.sqlite(
                """
                SELECT group_concat(identifier || '=' || state || '/' || reason, ' ') FROM (SELECT * FROM request
                WHERE fire_at_ms <= (SELECT fire_at_ms FROM request WHERE identifier LIKE '%2026_11_23_12_00') ORDER BY fire_at_ms, id)
                """) == "Noti_AppOpenPromotion_2026_11_23_09_30=missed/past grace period "
                + "Noti_AppOpenPromotion_2026_11_23_10_00=missed/past grace period a=missed/past grace period Noti_AppOpenPromotion_2026_11_23_10_30=missed/past grace period "
                + "Noti_AppOpenPromotion_2026_11_23_11_00=missed/past grace period "
                + "Noti_AppOpenPromotion_2026_11_23_11_30=missed/superseded by a later study reminder due at the same time "
                + "b=delivered/delivered through stdout c=delivered/delivered through stdout "
                + "Noti_AppOpenPromotion_2026_11_23_12_00=delivered/delivered through stdout")
    }

    @Test func aSlotCancelledByOpenIsNotDelivered() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        _ = try h.plannerOK(["open"], now: "2026-11-23T12:29")
        #expect(try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T12:30") == "")
        #expect(try h.sqlite("SELECT count(*) FROM delivered_notifications") == "0")
    }

    @Test func execRunsTheProgramDirectlyWithTheRequestInItsEnvironment() throws {
        let h = try Harness()
        let title = "Time $(touch \(h.dir)/pwned) `id`; rm -rf ~ \"quoted\" 'single'"
        _ = try h.plannerOK(["add", "--at", "2026-11-23T12:05", "--title", title, "--body", "line1\nline2", "--id", "x"], now: "2026-11-23T12:00")
        // printf's arguments are the variables' values: the title never reaches a shell as code.
        _ = try h.plannerOK(
            [
                "tick", "--once", "--exec", "/bin/sh", "-c",
                "printf '%s|%s|%s|%s' \"$PLANNER_ID\" \"$PLANNER_TITLE\" \"$PLANNER_BODY\" \"$PLANNER_FIRE_AT\" > \(h.dir)/got",
            ],
            now: "2026-11-23T12:05")
        #expect(h.text("got") == "x|\(title)|line1\nline2|2026-11-23T12:05:00+09:00")
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/pwned"))
    }

    @Test func aFailingSinkIsRetriedWithinGraceThenRecordedAsFailed() throws {
        let h = try Harness()
        _ = try h.plannerOK(["add", "--at", "2026-11-23T12:05", "--title", "t", "--id", "x"], now: "2026-11-23T12:00")
        let r = try h.planner(["tick", "--db", h.db, "--now", "2026-11-23T12:05", "--once", "--grace", "3s", "--exec", "false"])
        #expect(r.status == 1)
        #expect(r.err.hasSuffix("error: delivery failed: x: false exited with status 1\n"), "\(r.err)")
        #expect(r.err.contains("(attempt 1): false exited with status 1"))
        #expect(r.err.contains("(attempt 2)"))
        #expect(try h.sqlite("SELECT state, attempts >= 2, error FROM request WHERE identifier = 'x'") == "failed|1|false exited with status 1")
        let history = try h.plannerOK(["history", "--json"], now: "2026-11-23T12:10")
        #expect(history.contains("\"state\": \"failed\""))
    }

    @Test func addRefusesThePastAndNonPositiveDurations() throws {
        let h = try Harness()
        for args in [
            ["--at", "2026-11-23T11:59", "--title", "t"], ["--in", "0s", "--title", "t"], ["--in", "-5m", "--title", "t"],
            ["--title", "t"], ["--at", "2026-11-23T13:00", "--in", "5m", "--title", "t"], ["--in", "5m"],
        ] {
            let r = try h.planner(["add", "--db", h.db, "--now", "2026-11-23T12:00"] + args)
            #expect(r.status == 64, "\(args): \(r.err)")
            #expect(r.err.hasPrefix("error: ") && r.err.filter { $0 == "\n" }.count == 1, "\(args): \(r.err)")
        }
    }
}

@Suite(.serialized) struct LiveTickerTests {
    @Test func deliversARequestAddedThreeSecondsAheadOnTimeAndStopsOnSigterm() throws {
        let h = try Harness()
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if ticker.isRunning { kill(ticker.processIdentifier, SIGKILL) } }
        // The ticker is asleep with nothing pending; another process adds a request 3 s ahead.
        let added = try h.planner(["add", "--db", h.db, "--in", "3s", "--title", "soon", "--id", "soon"])
        #expect(added.status == 0)
        try h.waitFor(seconds: 6) { h.text("tick.out").contains("soon\t") }
        // The outcome is committed just after the line is written.
        try h.waitFor(seconds: 2) { try h.sqlite("SELECT count(*) FROM delivered_notifications") == "1" }
        let lateness = Int(try h.sqlite("SELECT lateness_ms FROM delivered_notifications WHERE identifier = 'soon'")) ?? -1
        #expect(lateness >= 0 && lateness < 500, "lateness \(lateness) ms")
        let (seconds, status) = try h.stop(ticker)
        #expect(status == 0)
        #expect(seconds < 1.0)
        #expect(h.text("tick.err").contains("stopped"))
    }

    @Test func oneTickerPerDatabaseAndSigintStopsIt() throws {
        let h = try Harness()
        let first = try h.startTicker(["--sink", "stdout"])
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        let second = try h.planner(["tick", "--db", h.db, "--sink", "stdout"])
        #expect(second.status == 75)
        #expect(
            second.err
                == "error: another ticker (pid \(first.processIdentifier)) is already running on \(h.db): stop it first (e.g. systemctl --user stop planner-tick) or use another --db\n"
        )
        let (seconds, status) = try h.stop(first, signal: SIGINT)
        #expect(status == 0 && seconds < 1.0)
        // The lock dies with its owner: a new ticker starts.
        let third = try h.startTicker(["--sink", "stdout"], name: "third")
        #expect(try h.stop(third).status == 0)
    }

    /// The live ticker starts itself once more with glibc's per-thread cache off (`TickerTunables`: what an
    /// idle ticker keeps, bench/TICK_MEMORY.md) — the same process — and the programs it runs get the
    /// environment as the user had it: their own GLIBC_TUNABLES, and nothing of the restart.
    @Test func theLiveTickerRestartsWithoutTCacheAndItsProgramsGetTheUsersEnvironment() throws {
        var h = try Harness()
        h.env["GLIBC_TUNABLES"] = "glibc.malloc.check=0"
        let ticker = try h.startTicker(["--exec", "/bin/sh", "-c", "env > \(h.dir)/child.env"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        _ = try h.planner(["add", "--db", h.db, "--in", "1s", "--title", "t", "--id", "env"])
        try h.waitFor(seconds: 10) { (try? h.sqlite("SELECT state FROM request WHERE identifier = 'env'")) == "delivered" }
        let child = h.text("child.env").split(separator: "\n").map(String.init)
        #expect(child.contains("GLIBC_TUNABLES=glibc.malloc.check=0"), "\(child.filter { $0.hasPrefix("GLIBC") })")
        #expect(!child.contains { $0.hasPrefix("PLANNER_TICKER_") })
        // Its first environment (what /proc shows) is the second start's.
        let first = FileManager.default.contents(atPath: "/proc/\(ticker.processIdentifier)/environ") ?? Data()
        #expect(first.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "PLANNER_TICKER_RESTARTED=1" })
        // Still known by its name (setup --uninstall finds the ticker by it).
        let comm = String(decoding: FileManager.default.contents(atPath: "/proc/\(ticker.processIdentifier)/comm") ?? Data(), as: UTF8.self)
        #expect(comm.hasPrefix("planner"), "\(comm)")
        #expect(try h.stop(ticker).status == 0)
    }

    @Test func killedBetweenClaimAndDeliveryTheReminderIsLostNeverDoubled() throws {
        let h = try Harness()
        let ticker = try h.startTicker(["--exec", "/bin/sh", "-c", "echo $$ > \(h.dir)/child.pid; exec sleep 30"])
        _ = try h.planner(["add", "--db", h.db, "--in", "1s", "--title", "t", "--id", "victim"])
        do {
            try h.waitFor(seconds: 5) { FileManager.default.fileExists(atPath: h.dir + "/child.pid") }
        } catch {
            Issue.record("the sink never started; ticker stderr: \(h.text("tick.err")); rows: \(try h.sqlite("SELECT * FROM request"))")
            kill(ticker.processIdentifier, SIGKILL)
            return
        }
        kill(ticker.processIdentifier, SIGKILL)
        try h.waitFor(seconds: 5) { Harness.hasExited(ticker.processIdentifier) }
        if let child = Int32(h.text("child.pid").trimmingCharacters(in: .whitespacesAndNewlines)) { kill(child, SIGKILL) }
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'victim'") == "delivering")
        // A new ticker does not deliver it again; once the claim cannot still be in progress it is failed.
        let restarted = try h.startTicker(["--sink", "stdout"], name: "restarted")
        usleep(300_000)
        #expect(try h.stop(restarted).status == 0)
        #expect(!h.text("restarted.out").contains("victim"))
        let fireAt = try h.sqlite(
            "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', fire_at_ms / 1000.0 + 20 * 60 + 1, 'unixepoch') FROM request WHERE identifier = 'victim'")
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: fireAt)
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'victim'") == "failed")
        #expect(try h.sqlite("SELECT count(*) FROM delivered_notifications") == "0")
    }

    @Test func aDeletedDatabaseStopsTheTickerWithAnErrorInsteadOfGoingSilent() throws {
        let h = try Harness()
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: h.db + suffix) }
        _ = try h.planner(["add", "--db", h.db, "--in", "2s", "--title", "new", "--id", "new"])
        try h.waitFor(seconds: 3) { Harness.hasExited(ticker.processIdentifier) }
        ticker.waitUntilExit()
        #expect(ticker.terminationStatus == 74)
        #expect(h.text("tick.err").contains("error: the database \(h.db) was deleted or replaced while the ticker ran"))
    }

    /// Issue 19 item 15: `tick --once` (cron) on a database another program holds gives up after the one
    /// 10 s busy timeout the README names (exit 75), and changes nothing.
    @Test func tickOnceOnAHeldDatabaseGivesUpAfterOneBusyTimeout() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try h.sqlite("PRAGMA wal_checkpoint(TRUNCATE)")
        let before = h.bytes(h.db)
        let holder = try SQLiteHolder(h, "BEGIN IMMEDIATE;")
        defer { holder.release() }
        let start = Date()
        // 12:00:30: the 12:00 slot is due.
        let r = try h.planner(["tick", "--db", h.db, "--now", "2026-11-23T12:00:30", "--once", "--sink", "stdout"])
        let seconds = Date().timeIntervalSince(start)
        #expect(r.status == 75, "\(r.err)")
        #expect(
            r.err.hasPrefix("error: the database \(h.db) stayed locked by another program for 10 s")
                && r.err.filter { $0 == "\n" }.count == 1, "\(r.err)")
        #expect(r.out.isEmpty)
        #expect(seconds >= 9.0 && seconds < 12.0, "tick --once gave up after \(seconds) s")
        holder.release()
        #expect(h.bytes(h.db) == before)
        #expect(try h.sqlite("SELECT state FROM request WHERE identifier = 'Noti_AppOpenPromotion_2026_11_23_12_00'") == "pending")
    }

    @Test func aDatabaseHeldBusyNeitherKillsTheTickerNorDelaysSigterm() throws {
        let h = try Harness()
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        _ = try h.planner(["add", "--db", h.db, "--in", "1s", "--title", "held", "--id", "held"])
        // Another process holds the write lock for 12 s, longer than any command's 10 s busy timeout.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); time.sleep(12); c.execute('COMMIT')",
            h.db,
        ]
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        try h.waitFor(seconds: 5) { h.text("tick.err").contains("the database is busy") }
        #expect(!Harness.hasExited(ticker.processIdentifier))
        // Stopping is still prompt while the database is held.
        let (seconds, status) = try h.stop(ticker)
        #expect(status == 0, "\(h.text("tick.err"))")
        #expect(seconds < 1.0)
    }
}
