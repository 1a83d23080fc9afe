import Foundation
import Glibc
import PlannerHarness
import Testing

/// `planner calendar-sync` never leaves a vdirsyncer behind, nor lets two run on one status folder: vdirsyncer
/// runs in the job's process group (the ticker's deadline kills the group) and holds the job's lock while it
/// lives (a job killed alone leaves a vdirsyncer that still holds it). A hostile review found both: an
/// orphaned vdirsyncer, and a second one started beside it.
@Suite struct CalendarSyncJobTests {
    func setUp() throws -> (Harness, String, String) {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        let r = try h.planner(["config", "set", "calendar-folder", folder, "--db", h.db, "--now", "2026-11-23T12:00"])
        #expect(r.status == 0, "\(r.err)")
        // A vdirsyncer that hangs, and says when each one starts.
        let fake = h.dir + "/vdirsyncer"
        try Harness.writeProgram("#!/bin/sh\necho $$ >> \(h.dir)/started\nexec sleep 30\n", to: fake)
        return (h, folder, fake)
    }

    func job(_ h: Harness, _ fake: String) throws -> Process {
        let p = Process()
        // Its own session and group, with the job's own pid (setsid(1) may fork: its pid would not be the job's).
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // (Foundation may already have made it a group leader: setsid then refuses, and it is one already.)
        p.arguments = [
            "-c", "import os, sys\ntry: os.setsid()\nexcept OSError: pass\nassert os.getpgrp() == os.getpid()\nos.execv(sys.argv[1], sys.argv[1:])",
            Harness.binary, "calendar-sync", "--quiet", "--db", h.db, "--vdirsyncer", fake,
        ]
        p.environment = h.env
        p.standardOutput = FileHandle.nullDevice
        FileManager.default.createFile(atPath: h.dir + "/job.err", contents: nil)
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: h.dir + "/job.err"))
        try p.run()
        return p
    }

    func started(_ h: Harness) -> [Int32] {
        ((try? String(contentsOfFile: h.dir + "/started", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    func alive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        // A zombie (not reaped by its parent yet) is gone as a program.
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.contains(") Z ")
    }

    func waitFor(_ seconds: Double, _ test: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if test() { return true }
            usleep(50_000)
        }
        return test()
    }

    @Test func killingTheJobsGroupEndsItsVdirsyncer() throws {
        let (h, _, fake) = try setUp()
        let p = try job(h, fake)
        #expect(waitFor(10) { started(h).count == 1 }, "\((try? String(contentsOfFile: h.dir + "/job.err", encoding: .utf8)) ?? "")")
        let vdirsyncer = try #require(started(h).first)
        // What the ticker does at its deadline: SIGKILL to the job's process group (setsid: its pid).
        kill(-p.processIdentifier, SIGKILL)
        #expect(waitFor(5) { !alive(p.processIdentifier) })
        #expect(waitFor(5) { !alive(vdirsyncer) }, "vdirsyncer \(vdirsyncer) outlived its job")
        if alive(vdirsyncer) { kill(vdirsyncer, SIGKILL) }
    }

    @Test func aVdirsyncerLeftBehindStillHoldsTheLock() throws {
        let (h, _, fake) = try setUp()
        let first = try job(h, fake)
        #expect(waitFor(10) { started(h).count == 1 })
        // The job alone is killed (not its group): its vdirsyncer runs on, and must still hold the lock.
        kill(first.processIdentifier, SIGKILL)
        // (Not waitUntilExit: Foundation waits there for whatever still holds the job's output, the vdirsyncer.)
        #expect(waitFor(5) { !alive(first.processIdentifier) })
        let second = try job(h, fake)
        usleep(2_000_000)
        #expect(started(h).count == 1, "a second vdirsyncer started beside the first: \(started(h))")
        kill(-second.processIdentifier, SIGKILL)
        second.waitUntilExit()
        for pid in started(h) { kill(pid, SIGKILL) }
    }

    @Test func aMissingFolderIsOneLineAndAFailure() throws {
        let (h, folder, fake) = try setUp()
        try FileManager.default.removeItem(atPath: folder)
        let r = try h.planner(["calendar-sync", "--quiet", "--db", h.db, "--vdirsyncer", fake])
        #expect(r.status != 0)
        #expect(r.err.split(separator: "\n").count == 1 && r.err.contains("is not there"), "\(r.err)")
        #expect(started(h).isEmpty)
    }
}
