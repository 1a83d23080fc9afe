import Foundation
import PlannerHarness
import Testing

/// End-to-end because each planner process warns once about the same thing (`PlannerDatabase.warnOnce`): the
/// last command's warning is what a user sees, which in-process runs sharing one process cannot show.
@Suite struct CalendarFolderLostTests {
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
        // Today was opened: 25 series (one per time of day) and the 10 study days' tasks of 14 days.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 35)
    }
}
