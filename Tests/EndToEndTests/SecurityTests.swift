import Foundation
import PlannerHarness
import Testing

@Suite(.serialized) struct SecurityTests {
    @Test func aSymlinkedDatabaseIsFollowedAndSharesOneTicker() throws {
        let h = try Harness()
        try FileManager.default.createDirectory(atPath: h.dir + "/real", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: h.dir + "/links", withIntermediateDirectories: true)
        let real = h.dir + "/real/planner.db"
        let link = h.dir + "/links/planner.db"
        _ = try h.planner(["list", "--db", real])
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../real/planner.db")
        // A ticker started through the link …
        let ticker = try h.startTicker(["--sink", "stdout"], at: link)
        defer { if !Harness.hasExited(ticker.processIdentifier) { kill(ticker.processIdentifier, SIGKILL) } }
        // … is the one ticker of the real file (bounded: were it not refused, it would run on),
        let second = try h.run("/usr/bin/timeout", ["5", Harness.binary, "tick", "--db", real, "--sink", "stdout"], env: h.env)
        #expect(second.status == 75, "\(second.err)")
        // and wakes for a request added through the real path (the WAL lives beside the real file).
        _ = try h.planner(["add", "--db", real, "--in", "2s", "--title", "via real path", "--id", "r"])
        try h.waitFor(seconds: 5) { h.text("tick.out").contains("r\t") }
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/links/planner.db-wal"))
        #expect(try h.stop(ticker).status == 0)
    }

    @Test func aDatabaseOthersCanReadIsMadePrivate() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        chmod(h.db, 0o644)
        _ = try h.plannerOK(["list"], now: "2026-11-23T12:00")
        #expect(try h.mode(h.db) == 0o600)
    }

    @Test func userTextIsDataNotSQL() throws {
        let h = try Harness()
        let hostile = "x'); DROP TABLE request; --"
        let title = "\(hostile) \"; DELETE FROM app_open; -- ? ?1 :name"
        let out = try h.plannerOK(["add", "--in", "1h", "--id", hostile, "--title", title, "--body", "' OR 1=1 --"], now: "2026-11-23T12:00")
        #expect(out.hasPrefix("added \(hostile) "))
        let list = try parseList(h.plannerOK(["list", "--json"], now: "2026-11-23T12:00"))
        #expect(list.count == 1)
        #expect(list.first?["identifier"] == hostile)
        #expect(list.first?["title"] == title)
        #expect(list.first?["body"] == "' OR 1=1 --")
        #expect(try h.sqlite("SELECT count(*) FROM sqlite_schema WHERE name = 'request'") == "1")
    }
}
