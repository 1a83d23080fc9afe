import Foundation
import Testing

@Suite struct DatabaseLocationTests {
    @Test func defaultPathUnderHomeWithPrivateFolders() throws {
        let h = try Harness()
        let r = try h.planner(["refill", "--now", "2026-11-23T12:00"])
        #expect(r.status == 0)
        let path = h.dir + "/.local/share/planner/planner.db"
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try h.mode(path) == 0o600)
        #expect(try h.mode(h.dir + "/.local/share/planner") == 0o700)
        #expect(try h.mode(h.dir + "/.local/share") == 0o700)
    }

    @Test func xdgDataHomeThenPlannerDbThenOption() throws {
        let h = try Harness()
        _ = try h.planner(["refill", "--now", "2026-11-23T12:00"], env: ["XDG_DATA_HOME": h.dir + "/xdg"])
        #expect(FileManager.default.fileExists(atPath: h.dir + "/xdg/planner/planner.db"))
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        _ = try h.planner(["refill", "--now", "2026-11-23T12:00"], env: ["XDG_DATA_HOME": "relative"])
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/relative/planner/planner.db"))
        _ = try h.planner(["refill", "--now", "2026-11-23T12:00"], env: ["PLANNER_DB": h.dir + "/env.db", "XDG_DATA_HOME": h.dir + "/xdg2"])
        #expect(FileManager.default.fileExists(atPath: h.dir + "/env.db"))
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/xdg2"))
        _ = try h.planner(["refill", "--now", "2026-11-23T12:00", "--db", h.dir + "/opt.db"], env: ["PLANNER_DB": h.dir + "/env2.db"])
        #expect(FileManager.default.fileExists(atPath: h.dir + "/opt.db"))
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/env2.db"))
    }

    @Test func emptyFileIsInitialised() throws {
        let h = try Harness()
        _ = FileManager.default.createFile(atPath: h.db, contents: Data())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests") == "64")
    }

    @Test func binaryCopiedAloneStillWorks() throws {
        let h = try Harness()
        let copy = h.dir + "/bin/planner"
        try FileManager.default.createDirectory(atPath: h.dir + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Harness.binary, toPath: copy)
        let r = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T12:00"], binary: copy)
        #expect(r.status == 0, "\(r.err)")
        #expect(try h.sqlite("SELECT count(*) FROM pending_requests") == "64")
    }
}
