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
            #expect(r.out.contains("Noti_AppOpenPromotion_2026_11_23_10_00"), "\(r.out)")
        }
    }
}
