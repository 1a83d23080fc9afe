import Foundation
import PlannerHarness
import Testing

/// Issue 30: the documented order works — `config set calendar-folder` makes the folder (it did not: a
/// warning, and vdirsyncer then uploaded nothing) — and a folder given up is emptied of the planner's items
/// (the phone kept ringing), the user's own left byte for byte.
@Suite struct CalendarFolderSettingTests {
    @Test func settingAFolderThatDoesNotExistMakesItPrivateAndFillsIt() throws {
        let h = try Harness()
        let folder = h.dir + "/not/yet/planner"
        let r = try h.planner(["config", "set", "calendar-folder", folder, "--db", h.db, "--now", "2026-11-23T12:10"])
        #expect(r.status == 0)
        #expect(r.err.isEmpty, "\(r.err)")
        var info = stat()
        #expect(stat(folder, &info) == 0 && info.st_mode & 0o777 == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(names.filter { $0.hasPrefix("planner-") && $0.hasSuffix(".ics") }.count > 50)
    }

    @Test func aFolderGivenUpIsEmptiedOfThePlannersItemsOnly() throws {
        let h = try Harness()
        let old = h.dir + "/old"
        let next = h.dir + "/next"
        let set = try h.planner(["config", "set", "calendar-folder", old, "--db", h.db, "--now", "2026-11-23T12:10"])
        #expect(set.status == 0)
        let own = Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:mine\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        #expect(FileManager.default.createFile(atPath: old + "/mine.ics", contents: own))
        for (args, folder) in [(["set", "calendar-folder", next], old), (["reset", "calendar-folder"], next)] {
            let r = try h.planner(["config"] + args + ["--db", h.db, "--now", "2026-11-23T12:20"], env: ["PATH": "/nonexistent"])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.err.contains("of the planner's items from the old calendar folder \(folder)"), "\(r.err)")
            let left = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(left.filter { $0.hasPrefix("planner-") }.isEmpty, "\(left.prefix(3))")
        }
        #expect(FileManager.default.contents(atPath: old + "/mine.ics") == own)
    }

    /// A folder given up that cannot be emptied now (another process holds its lock) is never looked at
    /// again: the warning says so, and names what to delete, the hidden files a login's `open` left aside
    /// for the next pass included (issue 31's review found it promising a retry that never comes).
    @Test func aFolderGivenUpWhileLockedSaysWhatToDeleteByHand() throws {
        let h = try Harness()
        let old = h.dir + "/old"
        let next = h.dir + "/next"
        #expect(try h.planner(["config", "set", "calendar-folder", old, "--db", h.db, "--now", "2026-11-23T08:00"]).status == 0)
        #expect(try h.planner(["open", "--db", h.db, "--now", "2026-11-23T12:00"]).status == 0)
        let aside = try FileManager.default.contentsOfDirectory(atPath: old).filter { $0.hasPrefix(".planner-") }
        #expect(!aside.isEmpty)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); print(flush=True); time.sleep(60)",
            old,
        ]
        let ready = Pipe()
        holder.standardOutput = ready
        try holder.run()
        defer {
            kill(holder.processIdentifier, SIGKILL)
            holder.waitUntilExit()
        }
        _ = ready.fileHandleForReading.availableData  // the lock is held
        let r = try h.planner(["config", "set", "calendar-folder", next, "--db", h.db, "--now", "2026-11-23T12:10"], env: ["PATH": "/nonexistent"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("could not take the planner's items out of the old calendar folder \(old)"), "\(r.err)")
        #expect(r.err.contains("locked by another process"), "\(r.err)")
        #expect(r.err.contains(".planner-*.tmp") && r.err.contains("nothing tries again"), "\(r.err)")
        #expect(!r.err.contains("written again"), "\(r.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: old).filter { $0.hasPrefix(".planner-") }.sorted() == aside.sorted())
    }
}
