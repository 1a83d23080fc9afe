import Foundation
import PlannerHarness
import Testing

/// A device restored whole from a backup (its database and its own file in the sync folder, as a backup of
/// the home folder puts both back) gets back the changes it had published since: the other device, which
/// read them, finds the file put back and writes them again for it (`via=`), and so carries them to a
/// computer that joins later; each says so once. With the
/// restored device appending before the other reads (the file longer than what was read, other bytes at
/// that place), the other still reads its new changes from the file's start.
@Suite(.serialized) struct RestoredDeviceTests {
    static func files(_ folder: String, of h: Harness) throws -> [String] {
        let id = try h.sqlite("SELECT id FROM device WHERE is_self = 1")
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("planner-\(id)-") }.sorted()
    }

    @Test(arguments: [false, true]) func aDeviceRestoredWholeGetsBackWhatItPublished(appendsFirst: Bool) throws {
        let laptop = try Harness()
        let desktop = try Harness()
        let folder = laptop.dir + "/shared"
        let backup = laptop.dir + "/backup"
        for path in [folder, backup] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
        for h in [laptop, desktop] { try h.configOK(["set", "sync-folder", folder], now: "2026-11-23T08:00") }
        for h in [laptop, desktop] { _ = try h.plannerOK(["sync"], now: "2026-11-23T08:05") }
        _ = try laptop.plannerOK(["skip", "2026-11-25"], now: "2026-11-23T08:10")
        _ = try laptop.plannerOK(["sync"], now: "2026-11-23T08:11")

        // The backup: the database and the laptop's own files.
        _ = try laptop.sqlite("VACUUM INTO '\(backup)/planner.db'")
        let saved = try Self.files(folder, of: laptop)
        for name in saved { try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: backup + "/" + name) }

        // Changes after it, which the desktop reads.
        try laptop.configOK(["set", "title", "Lesson time"], now: "2026-11-23T08:20")
        _ = try laptop.plannerOK(["skip", "2026-11-26"], now: "2026-11-23T08:21")
        _ = try laptop.plannerOK(["sync"], now: "2026-11-23T08:25")
        _ = try desktop.plannerOK(["sync"], now: "2026-11-23T08:30")
        #expect(try desktop.sqlite("SELECT value FROM setting WHERE key = 'title'") == "Lesson time")

        // The laptop put back whole.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: laptop.db + suffix) }
        try FileManager.default.copyItem(atPath: backup + "/planner.db", toPath: laptop.db)
        for name in try Self.files(folder, of: laptop) { try FileManager.default.removeItem(atPath: folder + "/" + name) }
        for name in saved { try FileManager.default.copyItem(atPath: backup + "/" + name, toPath: folder + "/" + name) }
        var expected = "2026-11-25,2026-11-26"
        if appendsFirst {
            for (day, at) in [("2026-11-27", "08:40"), ("2026-11-30", "08:41"), ("2026-12-01", "08:42")] {
                _ = try laptop.plannerOK(["skip", day], now: "2026-11-23T" + at)
            }
            _ = try laptop.plannerOK(["sync"], now: "2026-11-23T08:43")
            expected += ",2026-11-27,2026-11-30,2026-12-01"
        }

        let told = try desktop.planner(["sync", "--db", desktop.db, "--now", "2026-11-23T08:50"])
        #expect(told.status == 0 && told.err.contains("was put back to an earlier state"), "\(told.err)")
        let back = try laptop.planner(["sync", "--db", laptop.db, "--now", "2026-11-23T08:55"])
        #expect(back.status == 0 && back.err.contains("came back from another device"), "\(back.err)")
        _ = try desktop.plannerOK(["sync"], now: "2026-11-23T09:00")
        for h in [laptop, desktop] {
            #expect(try h.sqlite("SELECT value FROM setting WHERE key = 'title'") == "Lesson time")
            let skips = try h.sqlite(
                "SELECT group_concat(local_date) FROM (SELECT local_date FROM skipped_date WHERE removed_at_ms IS NULL ORDER BY local_date)")
            #expect(skips == expected, "\(h.dir == laptop.dir ? "laptop" : "desktop"): \(skips)")
        }
        // The desktop's file carries them (relayed), so a computer that joins later gets them too.
        let desktopFiles = try Self.files(folder, of: desktop).map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }.joined()
        #expect(desktopFiles.contains("set.title=Lesson%20time") && desktopFiles.contains(" via="), "\(desktopFiles)")
        let newcomer = try Harness()
        try newcomer.configOK(["set", "sync-folder", folder], now: "2026-11-23T09:02")
        #expect(try newcomer.sqlite("SELECT value FROM setting WHERE key = 'title'") == "Lesson time")
        let skips = try newcomer.sqlite(
            "SELECT group_concat(local_date) FROM (SELECT local_date FROM skipped_date WHERE removed_at_ms IS NULL ORDER BY local_date)")
        #expect(skips == expected, "newcomer: \(skips)")
        // Said once: the next read says nothing.
        for h in [laptop, desktop] { _ = try h.plannerOK(["sync"], now: "2026-11-23T09:05") }
    }
}
