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
        let old = h.dir + "/old", next = h.dir + "/next"
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

    /// A folder that lost every file the planner wrote (an unmounted mount point: an empty folder in its place)
    /// is not filled again: vdirsyncer refuses to sync a folder found empty, but one holding only the planner's
    /// items would make it delete the user's own from the server.
    @Test func aFolderThatLostEverythingIsNotFilledAgain() throws {
        let h = try Harness()
        let folder = h.dir + "/cal"
        #expect(try h.planner(["config", "set", "calendar-folder", folder, "--db", h.db, "--now", "2026-11-23T12:10"]).status == 0)
        try FileManager.default.moveItem(atPath: folder, toPath: folder + ".away")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for command in ["refill", "open", "sync"] {
            let r = try h.planner([command, "--db", h.db, "--now", "2026-11-23T12:20"])
            #expect(r.status == 0, "\(command): \(r.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "\(command) filled the empty folder")
        }
        let warned = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T12:30"])
        #expect(warned.err.contains("has lost every file the planner wrote there"), "\(warned.err)")
        // Set again (reset, then set): written as new.
        for args in [["config", "reset", "calendar-folder"], ["config", "set", "calendar-folder", folder]] {
            #expect(try h.planner(args + ["--db", h.db, "--now", "2026-11-23T12:40"]).status == 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count > 50)
    }
}
