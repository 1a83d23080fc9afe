import Foundation
import PlannerHarness
import Testing

/// A network mount whose server went away (an sshfs or NFS mount that stalls): every lookup, getattr,
/// readdir and read waits for as long as the server is gone, and a process caught in one cannot be ended
/// until it answers. `scripts/stall-fs` is such a file system (FUSE, Debian's fuse3 and python3-pyfuse3),
/// stalling while a flag file exists. The promise (docs/sync.md): a folder can never hold up a command or
/// the ticker.
@Suite(.serialized) struct StalledMountTests {
    static let usable: Bool = {
        guard getuid() == 0, FileManager.default.fileExists(atPath: "/dev/fuse") else { return false }
        let check = try? Harness.run("/usr/bin/python3", ["-c", "import pyfuse3, trio"], env: ["PATH": "/usr/bin:/bin"])
        return check?.status == 0
    }()

    /// `scripts/stall-fs` over a folder of the test's, mounted at `point`; `stall()` makes every request wait.
    final class StalledMount {
        let point: String
        let source: String
        let flag: String
        let process = Process()

        init(_ h: Harness) throws {
            source = h.dir + "/server"
            point = h.dir + "/mount"
            flag = h.dir + "/server-gone"
            for folder in [source, point] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [Harness.repository.appendingPathComponent("scripts/stall-fs").path, source, point, flag]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            let said = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            guard said.contains("mounted") else { throw HarnessError("stall-fs did not mount: \(said)") }
        }

        func stall() { FileManager.default.createFile(atPath: flag, contents: nil) }
        func answer() { unlink(flag) }

        /// Answers whatever waits on the mount, then unmounts it (the test calls it in a `defer`).
        func close() {
            guard process.isRunning else { return }
            answer()
            usleep(200_000)
            kill(process.processIdentifier, SIGTERM)
            for _ in 0..<200 where process.isRunning { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            _ = try? Harness.run("/bin/umount", ["-l", point], env: ["PATH": "/usr/bin:/bin"])
        }

        deinit { close() }
    }

    /// A database with a sync folder and a calendar folder on the mount, and a plan.
    func planOnMount(_ h: Harness, _ mount: StalledMount) throws {
        for name in ["shared", "calendar"] {
            try FileManager.default.createDirectory(atPath: mount.point + "/" + name, withIntermediateDirectories: false)
        }
        let set = try h.planner([
            "config", "set", "sync-folder", mount.point + "/shared", "device-name", "laptop", "calendar-folder",
            mount.point + "/calendar", "--db", h.db, "--now", "2026-11-23T08:00",
        ])
        try #require(set.status == 0, "\(set.err)")
    }

    /// Runs `planner ARGS` and says how long it took; a command still caught after `seconds` is let go by
    /// answering the mount (so the test ends), and then says so.
    func timed(_ h: Harness, _ mount: StalledMount, _ args: [String], seconds: Double = 8) throws -> (r: Harness.Result, seconds: Double) {
        let start = Date()
        let watchdog = DispatchWorkItem { [weak mount] in mount?.answer() }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        let r = try h.planner(args)
        watchdog.cancel()
        return (r, Date().timeIntervalSince(start))
    }

    /// `status` (a status bar polls `status --json`) shows what the database knows and says the folders are
    /// not answering, within a second; it had waited in D state for as long as the mount stalled.
    @Test(.enabled(if: usable, "needs root, /dev/fuse and python3-pyfuse3")) func statusNeverWaitsOnAStalledMount() throws {
        let h = try Harness(productDeadline: true)
        let mount = try StalledMount(h)
        defer { mount.close() }
        try planOnMount(h, mount)
        mount.stall()
        for json in [false, true] {
            let (r, seconds) = try timed(h, mount, ["status", "--db", h.db, "--now", "2026-11-23T10:00"] + (json ? ["--json"] : []))
            #expect(r.status == 0 && seconds < 2, "status took \(seconds) s: \(r.status) \(r.err)")
            #expect(r.out.contains("the sync folder \(mount.point)/shared is not answering"), "\(r.out)")
            #expect(r.out.contains("the calendar folder \(mount.point)/calendar is not answering"), "\(r.out)")
            #expect(r.out.contains(json ? "Noti_AppOpenPromotion_2026_11_23_10_00" : "Mon 2026-11-23 10:00 +09:00"), "\(r.out)")
        }
    }

    /// A stalled read of the sync folder is said as it happens, not only by `planner sync` (it cost the
    /// command 600 ms and said nothing). A `refill`'s first child reads the folder.
    @Test(.enabled(if: usable, "needs root, /dev/fuse and python3-pyfuse3")) func aStalledReadOfTheSyncFolderIsAWarning() throws {
        let h = try Harness(productDeadline: true)
        let mount = try StalledMount(h)
        defer { mount.close() }
        try planOnMount(h, mount)
        mount.stall()
        let (r, seconds) = try timed(h, mount, ["refill", "--db", h.db, "--now", "2026-11-24T10:00"])
        #expect(r.status == 0 && seconds < 3, "refill took \(seconds) s: \(r.status) \(r.err)")
        #expect(r.err.contains("warning: the sync folder") && r.err.contains("cannot be read (it did not answer within"), "\(r.err)")
    }

    /// A login while the mount holding the sync and calendar folders stalls: `open --login` records the
    /// open in the database and returns within its second, saying which folders wait; the next change
    /// writes them once the mount answers.
    @Test(.enabled(if: usable, "needs root, /dev/fuse and python3-pyfuse3")) func aLoginNeverWaitsOnAStalledMount() throws {
        let h = try Harness(productDeadline: true)
        let mount = try StalledMount(h)
        defer { mount.close() }
        try planOnMount(h, mount)
        _ = try h.planner(["refill", "--db", h.db, "--now", "2026-11-24T08:00"]).check()
        mount.stall()
        let (login, seconds) = try timed(h, mount, ["open", "--login", "--db", h.db, "--now", "2026-11-24T10:00"])
        #expect(login.status == 0 && seconds < 1.5, "login took \(seconds) s: \(login.status) \(login.err)")
        #expect(login.err.contains("cannot write the calendar folder") && login.err.contains("cannot write to the sync folder"), "\(login.err)")
        #expect(try h.sqlite("SELECT local_date, origin FROM app_open") == "2026-11-24|login")
        mount.answer()
        // The next change writes what the login could not (once the login's children caught in the mount
        // have ended: until then no other is sent to those folders).
        // Each folder's child ends on its own: the calendar's may be free while the sync folder's still waits.
        let task = mount.point + "/calendar/planner-day-2026-11-24.ics"
        func published() throws -> String {
            let shared = try FileManager.default.contentsOfDirectory(atPath: mount.point + "/shared").filter { $0.hasSuffix(".events") }
            return try shared.map { try String(contentsOfFile: mount.point + "/shared/" + $0, encoding: .utf8) }.joined()
        }
        try h.waitFor(seconds: 10) {
            let r = try h.planner(["refill", "--db", h.db, "--now", "2026-11-24T10:01"])
            return r.status == 0 && (try? String(contentsOfFile: task, encoding: .utf8))?.contains("STATUS:COMPLETED") == true
                && (try? published())?.contains("kind=open") == true
        }
        let lines = try published()
        #expect(lines.components(separatedBy: "kind=open").count - 1 == 1, "\(lines)")
    }

    /// `config set calendar-folder` with a folder on a mount that stalls: the command says so in one line
    /// and exits 74 within the folder deadline, the setting unchanged; it had sat in `mkdir` (and `stat`,
    /// comparing the old folder with the new) for as long as the mount stalled, unkillable.
    @Test(.enabled(if: usable, "needs root, /dev/fuse and python3-pyfuse3")) func settingAFolderOnAStalledMountIsOneLine() throws {
        let h = try Harness(productDeadline: true)
        let mount = try StalledMount(h)
        defer { mount.close() }
        try planOnMount(h, mount)
        mount.stall()
        let (r, seconds) = try timed(
            h, mount, ["config", "set", "calendar-folder", mount.point + "/other", "--db", h.db, "--now", "2026-11-24T10:00"])
        #expect(r.status == 74 && seconds < 3, "config set took \(seconds) s: \(r.status) \(r.err)")
        #expect(r.err.hasPrefix("error: cannot create the calendar folder \(mount.point)/other (it did not answer within"), "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(try h.sqlite("SELECT value FROM setting WHERE key = 'calendar-folder'") == mount.point + "/calendar")
    }

    /// A ticker started by the desktop session while the mount stalls (its calendar folder, sync folder and
    /// Anki's collection on it): it delivers its reminders on time and stops at SIGTERM. It had sat in
    /// `inotify_add_watch` on the calendar folder (or `readlink` on the collection), delivering nothing and
    /// deaf to SIGTERM; the watches are now set by a child, and set once the mount answers.
    @Test(.enabled(if: usable, "needs root, /dev/fuse and python3-pyfuse3")) func aTickerStartedWhileTheMountStallsDeliversAndStops() throws {
        let h = try Harness(productDeadline: true)
        let mount = try StalledMount(h)
        defer { mount.close() }
        try planOnMount(h, mount)
        try FileManager.default.createDirectory(atPath: mount.point + "/Anki2", withIntermediateDirectories: false)
        FileManager.default.createFile(atPath: mount.point + "/Anki2/collection.anki2", contents: nil)
        #expect(try h.planner(["config", "set", "anki-collection", mount.point + "/Anki2/collection.anki2", "--db", h.db]).status == 0)
        mount.stall()
        let ticker = Process()
        ticker.executableURL = URL(fileURLWithPath: Harness.binary)
        ticker.arguments = ["tick", "--db", h.db, "--sink", "stdout"]
        ticker.environment = h.env
        FileManager.default.createFile(atPath: h.dir + "/tick.err", contents: nil)
        ticker.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        ticker.standardError = FileHandle(forWritingAtPath: h.dir + "/tick.err")
        try ticker.run()
        defer {
            if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) }
            mount.answer()
            ticker.waitUntilExit()
        }
        for (id, delay) in [("first", "3s"), ("second", "4s"), ("third", "5s")] {
            _ = try h.planner(["add", "--db", h.db, "--in", delay, "--title", "t", "--id", id])
        }
        do {
            try h.waitFor(seconds: 12) { try h.sqlite("SELECT count(*) FROM delivered_notifications") == "3" }
        } catch {
            Issue.record("not 3 deliveries within 12 s: \(h.text("tick.err"))")
        }
        let lateness = try h.sqlite("SELECT max(lateness_ms) FROM delivered_notifications")
        #expect((Int(lateness) ?? .max) < 1000, "a reminder was \(lateness) ms late; \(h.text("tick.err"))")
        // Once the mount answers, the watches are set (the kernel's list of the ticker's inotify watches names
        // the three folders' inodes), and another device's change arriving in the sync folder is applied.
        mount.answer()
        func watchedInodes() -> Set<UInt64> { Self.watchedInodes(ticker.processIdentifier) }
        let folders = ["shared", "calendar", "Anki2"].map { name -> UInt64 in
            var info = stat()
            return stat(mount.point + "/" + name, &info) == 0 ? UInt64(info.st_ino) : 0
        }
        do {
            try h.waitFor(seconds: 5) { watchedInodes().isSuperset(of: folders) }
        } catch {
            Issue.record("the ticker's watches \(watchedInodes()) do not cover the folders \(folders) 5 s after the mount answered")
        }
        let desktop = try Harness(productDeadline: true)
        #expect(
            try desktop.planner(["config", "set", "sync-folder", mount.point + "/shared", "device-name", "desktop", "--db", desktop.db]).status
                == 0)
        #expect(try desktop.planner(["skip", "2030-01-05", "--db", desktop.db]).status == 0)
        do {
            try h.waitFor(seconds: 5) { try h.sqlite("SELECT count(*) FROM skipped_dates WHERE local_date = '2030-01-05'") == "1" }
        } catch {
            Issue.record("the ticker did not apply the other device's change within 5 s: \(h.text("tick.err"))")
        }
        mount.stall()
        let start = Date()
        kill(ticker.processIdentifier, SIGTERM)
        try? h.waitFor(seconds: 5) { Harness.hasExited(ticker.processIdentifier) }
        let seconds = Date().timeIntervalSince(start)
        #expect(Harness.hasExited(ticker.processIdentifier) && seconds < 1.5, "the ticker was still there \(seconds) s after SIGTERM")
    }

    /// The inodes a process's inotify instances watch, as the kernel lists them (/proc/PID/fdinfo).
    static func watchedInodes(_ pid: Int32) -> Set<UInt64> {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        var inodes: Set<UInt64> = []
        for fd in fds where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) == "anon_inode:inotify" {
            let info = (try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8)) ?? ""
            for word in info.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("ino:") {
                if let inode = UInt64(word.dropFirst(4), radix: 16) { inodes.insert(inode) }
            }
        }
        return inodes
    }

    /// Every planner process caught on the mount (its folder children; a child a FUSE request holds cannot be
    /// killed until the mount answers).
    static func caught(beside keep: Set<Int32> = []) -> [Int32] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return all.compactMap { Int32($0) }.filter { pid in
            guard !keep.contains(pid), let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return false }
            let text = String(decoding: stat, as: UTF8.self)
            guard text.contains("(planner)"), let close = text.lastIndex(of: ")") else { return false }
            let state = text[text.index(close, offsetBy: 2)]
            return state != "Z"
        }
    }

    /// On a mount that stalls, commands and a live ticker of two databases leave at most one child per folder
    /// behind on the whole machine, not one per command or pass (13 after 10 s, 90 after 90 s before: a
    /// night's outage reached the user's process limit, and then every fork failed).
    @Test(.enabled(if: usable, "needs root, /dev/fuse and python3-pyfuse3")) func aStalledMountKeepsAtMostOneChildPerFolder() throws {
        let h = try Harness(productDeadline: true)
        let mount = try StalledMount(h)
        defer { mount.close() }
        try planOnMount(h, mount)
        // A second database with the same two folders (another plan on this account).
        let other = try Harness(productDeadline: true)
        #expect(
            try other.planner([
                "config", "set", "sync-folder", mount.point + "/shared", "device-name", "desktop", "calendar-folder",
                mount.point + "/calendar", "--db", other.db, "--now", "2026-11-23T08:00",
            ]).status == 0)
        let before = Set(Self.caught())
        mount.stall()
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer {
            if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) }
            mount.answer()
            ticker.waitUntilExit()
        }
        for round in 0..<4 {
            for (harness, command) in [(h, ["refill"]), (other, ["refill"]), (h, ["status"]), (other, ["skip", "2030-01-0\(round + 1)"])] {
                let (r, seconds) = try timed(harness, mount, command + ["--db", harness.db])
                #expect(r.status == 0 && seconds < 3, "\(command) took \(seconds) s: \(r.status) \(r.err)")
            }
            _ = try h.planner(["add", "--db", h.db, "--in", "1s", "--title", "t", "--id", "r\(round)"])
            usleep(1_500_000)
        }
        // This test's own (a forked child keeps its parent's command line, with its database): other tests'
        // tickers run beside it.
        let described = Self.caught(beside: before.union([ticker.processIdentifier])).map { pid in
            String(decoding: FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data(), as: UTF8.self)
                .replacingOccurrences(of: "\u{0}", with: " ")
        }.filter { $0.contains(h.db) || $0.contains(other.db) }
        let left = described
        #expect(left.count <= 2, "\(left.count) planner processes caught on the mount (one per folder at most: 2): \(described)")
        #expect(try h.sqlite("SELECT count(*) FROM delivered_notifications") == "4", "\(h.text("tick.err"))")
        // The ticker still stops at once.
        let stop = try h.stop(ticker)
        #expect(stop.seconds < 1.5 && stop.status == 0, "\(stop)")
    }

    /// A folder that was not there when the ticker tried to watch it is tried again at its time, without
    /// waiting for anything else to wake the ticker (a reminder hours away): the retry wakes the loop.
    @Test func aFolderThatAppearsLaterIsWatchedWithoutAnotherWakeUp() throws {
        let h = try Harness(productDeadline: true)
        let folder = h.dir + "/calendar"
        #expect(try h.planner(["config", "set", "calendar-folder", folder, "--db", h.db]).status == 0)
        try FileManager.default.removeItem(atPath: folder)
        let ticker = try h.startTicker(["--sink", "stdout"])
        defer { _ = try? h.stop(ticker) }
        usleep(500_000)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var info = stat()
        #expect(stat(folder, &info) == 0)
        do {
            try h.waitFor(seconds: 6) { Self.watchedInodes(ticker.processIdentifier).contains(UInt64(info.st_ino)) }
        } catch {
            Issue.record("the calendar folder made 0.5 s after the ticker started was not watched 6 s later: \(h.text("tick.err"))")
        }
    }
}
