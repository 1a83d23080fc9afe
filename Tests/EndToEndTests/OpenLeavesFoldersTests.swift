import Foundation
import PlannerHarness
import Testing

/// With a live ticker watching the database, `planner open` leaves the sync and calendar folders to it: the
/// open's commit wakes the ticker, whose pass publishes the event and rewrites the calendar. A login then
/// never waits on a folder nor pays for the child process that would (issue 31). Without one, or when the
/// sign is not the planner's own, `open` does its folders itself, as before.
@Suite(.serialized) struct OpenLeavesFoldersTests {
    /// A plan with a sync folder and a calendar folder, every 5 minutes all day, filled.
    func planWithFolders() throws -> (Harness, sync: String, calendar: String) {
        let h = try Harness()
        let sync = h.dir + "/sync"
        let calendar = h.dir + "/calendar"
        for folder in [sync, calendar] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) }
        let set = try h.planner([
            "config", "set", "window", "00:00-23:55", "interval", "5m", "days", "daily", "device-name", "laptop",
            "sync-folder", sync, "calendar-folder", calendar, "--db", h.db,
        ])
        #expect(set.status == 0, "\(set.err)")
        #expect(try h.planner(["refill", "--db", h.db]).status == 0)
        return (h, sync, calendar)
    }

    /// Every file of a folder and its bytes.
    func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files[name] = FileManager.default.contents(atPath: folder + "/" + name)
        }
        return files
    }

    func unpublished(_ h: Harness) throws -> Int { Int(try h.sqlite("SELECT count(*) FROM event WHERE published_ms IS NULL")) ?? -1 }

    @Test func anOpenLeavesItsFoldersToTheLiveTicker() throws {
        let (h, sync, calendar) = try planWithFolders()
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        // Its first pass has brought both folders in line.
        try h.waitFor(seconds: 10) { try unpublished(h) == 0 }
        // Stopped (a laptop lid), the ticker still holds its sign: what `open` left waits for it. Stopped
        // outside a transaction of its own (else `open` would find the database busy and save its open).
        try h.stopIdle(ticker)
        let syncBefore = try snapshot(sync)
        let calendarBefore = try snapshot(calendar)
        let open = try h.planner(["open", "--db", h.db])
        #expect(open.status == 0 && open.err.isEmpty, "\(open.err)")
        #expect(try unpublished(h) == 1, "open published its event itself")
        #expect(try snapshot(sync) == syncBefore)
        #expect(try snapshot(calendar) == calendarBefore, "open wrote the calendar itself")
        let event = try h.sqlite("SELECT id FROM event WHERE published_ms IS NULL")

        kill(ticker.processIdentifier, SIGCONT)
        try h.waitFor(seconds: 10) { try unpublished(h) == 0 }
        let published = try snapshot(sync).values.contains { String(decoding: $0, as: UTF8.self).contains(event) }
        #expect(published, "the ticker published the open")
        try h.waitFor(seconds: 10) { try snapshot(calendar) != calendarBefore }
        // Its pass done: the first file it changed is seen before the last, and the pass records what it did
        // while it still holds the folder's lock (a refill now would find the folder locked, and wait).
        var settled = try snapshot(calendar)
        try h.waitFor(seconds: 10) {
            usleep(200_000)
            let now = try snapshot(calendar)
            defer { settled = now }
            return now == settled
        }
        // What the ticker wrote is what a full pass writes: a refill (which reads and writes every folder)
        // finds nothing to change.
        #expect(try h.planner(["refill", "--db", h.db]).status == 0)
        let after = try snapshot(calendar)
        #expect(
            after == settled,
            "refill changed \(Set(after.keys).symmetricDifference(settled.keys).sorted()) and \(after.keys.filter { settled[$0] != nil && settled[$0] != after[$0] }.sorted())"
        )
        #expect(try h.stop(ticker).status == 0)

        // Once the ticker has stopped, `open` does its folders itself again.
        let again = try h.planner(["open", "--db", h.db])
        #expect(again.status == 0, "\(again.err)")
        #expect(try unpublished(h) == 0)
    }

    /// A ticker that begins to stop while an open waits for the database runs no pass for that commit: the
    /// open, finding the sign gone after its commit, does its folders itself.
    @Test func anOpenWhoseTickerStopsMeanwhileDoesItsFoldersItself() throws {
        let (h, _, _) = try planWithFolders()
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        try h.waitFor(seconds: 10) { try unpublished(h) == 0 }
        // Another program holds the database for 0.8 s: `open` sees the sign, then waits for its write.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10); c.execute('BEGIN IMMEDIATE'); print('held', flush=True); time.sleep(0.8); c.execute('COMMIT')",
            h.db,
        ]
        let held = Pipe()
        holder.standardOutput = held
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        #expect(String(decoding: held.fileHandleForReading.availableData, as: UTF8.self).contains("held"))
        let open = Process()
        open.executableURL = URL(fileURLWithPath: Harness.binary)
        open.arguments = ["open", "--db", h.db]
        open.environment = h.env
        open.standardError = FileHandle.nullDevice
        try open.run()
        usleep(200_000)
        #expect(try h.stop(ticker).status == 0)
        open.waitUntilExit()
        holder.waitUntilExit()
        #expect(open.terminationStatus == 0)
        #expect(try unpublished(h) == 0, "the open was left to a ticker that had stopped")
    }

    /// The race a loaded machine showed: an `open` that saw the ticker's sign after its commit, and a ticker
    /// that stops before a pass for that commit. Made certain here: the ticker is stopped (SIGSTOP keeps its
    /// sign), the open leaves its folders to it, then SIGTERM and SIGCONT: the stopping ticker brings the
    /// folders in line once after it withdrew its sign. Before: the open waited for the next command.
    @Test func aTickerThatStopsBeforeItsPassStillWritesTheOpenItWasLeft() throws {
        let (h, _, _) = try planWithFolders()
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        try h.waitFor(seconds: 10) { try unpublished(h) == 0 }
        try h.stopIdle(ticker)
        let open = try h.planner(["open", "--db", h.db])
        #expect(open.status == 0, "\(open.err)")
        #expect(try unpublished(h) == 1, "the open did not leave its folders to the ticker")
        kill(ticker.processIdentifier, SIGTERM)
        kill(ticker.processIdentifier, SIGCONT)
        try h.waitFor(seconds: 10) { Harness.hasExited(ticker.processIdentifier) }
        #expect(try unpublished(h) == 0, "the open was left to a ticker that stopped without writing it")
    }

    /// Ctrl-Z (SIGTSTP) on a ticker in a terminal: it withdraws its sign before it stops, so `open` does its
    /// folders itself; continued, it holds the sign again.
    @Test func aTickerSuspendedWithCtrlZLeavesTheFoldersToOpen() throws {
        let (h, _, _) = try planWithFolders()
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        try h.waitFor(seconds: 10) { try unpublished(h) == 0 }
        kill(ticker.processIdentifier, SIGTSTP)
        try h.waitFor(seconds: 5) { Self.state(ticker.processIdentifier) == "T" }
        let open = try h.planner(["open", "--db", h.db])
        #expect(open.status == 0, "\(open.err)")
        #expect(try unpublished(h) == 0, "open left its folders to a suspended ticker")

        kill(ticker.processIdentifier, SIGCONT)
        try h.waitFor(seconds: 5) { Self.state(ticker.processIdentifier) != "T" }
        usleep(300_000)  // its pass after continuing
        try h.stopIdle(ticker)
        let again = try h.planner(["open", "--db", h.db])
        #expect(again.status == 0, "\(again.err)")
        #expect(try unpublished(h) == 1, "the continued ticker did not hold its sign again")
        kill(ticker.processIdentifier, SIGCONT)
        try h.waitFor(seconds: 10) { try unpublished(h) == 0 }
        #expect(try h.stop(ticker).status == 0)
    }

    /// The one-letter state in /proc/PID/stat ("T": stopped).
    static func state(_ pid: Int32) -> String {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return "" }
        let text = String(decoding: stat, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return "" }
        return String(text[text.index(close, offsetBy: 2)])
    }

    /// The sign counts only on the planner's own lock file: a link planted in its place, to a file someone
    /// holds locked, does not make `open` leave its folders.
    @Test func aSignThroughALinkIsNotBelieved() throws {
        let (h, _, _) = try planWithFolders()
        let other = h.dir + "/elsewhere.lock"
        FileManager.default.createFile(atPath: other, contents: Data())
        try FileManager.default.createSymbolicLink(atPath: h.db + ".tick.lock", withDestinationPath: other)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            """
            import fcntl, os, struct, sys, time
            fd = os.open(sys.argv[1], os.O_RDWR)
            fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack('hhqqi', fcntl.F_WRLCK, os.SEEK_SET, 0, 1, 0))
            print('held', flush=True)
            time.sleep(30)
            """,
            other,
        ]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        #expect(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).contains("held"))
        let open = try h.planner(["open", "--db", h.db])
        #expect(open.status == 0, "\(open.err)")
        #expect(try unpublished(h) == 0, "open left its folders to a sign through a link")
    }
}
