import Foundation
import PlannerHarness
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

    /// The default database under HOME: a relative HOME put it under the current folder (and `planner setup`
    /// put the login file elsewhere); a missing HOME was created. Both refused, nothing created.
    @Test func aRelativeOrMissingHomeIsRefused() throws {
        let h = try Harness()
        for home in ["rel", h.dir + "/gone/home"] {
            let r = try h.planner(["refill", "--now", "2026-11-23T12:00"], env: ["HOME": home])
            #expect(r.status == 64 && r.err.hasPrefix("error: HOME (\(home)) ") && r.err.filter { $0 == "\n" }.count == 1, "\(r.err)")
            #expect(r.err.contains("--db PATH or PLANNER_DB"), "\(r.err)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.dir).isEmpty, "nothing created")
        // A database named otherwise does not need HOME.
        let r = try h.planner(["refill", "--now", "2026-11-23T12:00"], env: ["HOME": "rel", "PLANNER_DB": h.db])
        #expect(r.status == 0, "\(r.err)")
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
