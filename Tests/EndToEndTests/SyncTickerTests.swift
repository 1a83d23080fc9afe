import Foundation
import PlannerHarness
import Testing

/// Two devices sharing a sync folder (here one local folder, as if the sync engine carried each file at
/// once; scripts/sync-check does it with two real Syncthing instances): an open on one makes the other's
/// running ticker take the rest of the day off, with no other command run there.
@Suite(.serialized) struct SyncTickerTests {
    @Test func anOpenOnOneDeviceQuietsTheOthersRunningTicker() throws {
        let a = try Harness()
        let b = try Harness()
        let folder = a.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (h, name) in [(a, "laptop"), (b, "desktop")] {
            let set = try h.planner([
                "config", "set", "window", "00:00-23:55", "interval", "5m", "days", "daily",
                "sync-folder", folder, "device-name", name, "--db", h.db,
            ])
            #expect(set.status == 0, "\(set.err)")
            #expect(try h.planner(["refill", "--db", h.db]).status == 0)
        }
        let ticker = try b.startTicker(["--sink", "stdout"])
        defer { _ = try? b.stop(ticker) }
        let today = "date('now', '+9 hours')"
        let before = try b.sqlite("SELECT count(*) FROM request WHERE state = 'pending' AND local_date = \(today)")

        let open = try a.planner(["open", "--db", a.db])
        #expect(open.status == 0, "\(open.err)")
        // Waits on the ticker's log only: looking into B's database would wake its ticker by itself.
        try b.waitFor(seconds: 5) { b.text("tick.err").contains("opened there") }
        #expect(b.text("tick.err").contains("applied 1 change from other devices; opened there: "), "\(b.text("tick.err"))")
        #expect(try b.sqlite("SELECT count(*) FROM app_open_events WHERE device = 'laptop'") == "1")
        let nearMidnight = try b.sqlite("SELECT time('now', '+9 hours') >= '23:54'") == "1"
        #expect(nearMidnight || before != "0", "today had slots left")
        #expect(try b.sqlite("SELECT count(*) FROM request WHERE state = 'pending' AND local_date = \(today)") == "0")
        #expect(try b.sqlite("SELECT count(*) FROM request WHERE reason = 'app opened on another device'") == before)

        // `devices` and `sync` on A see B once B wrote something (its refill had nothing to write; a skip has).
        #expect(try b.planner(["skip", "2030-01-02", "--db", b.db]).status == 0)
        let sync = try a.planner(["sync", "--json", "--db", a.db])
        #expect(
            sync.status == 0 && sync.out.contains("\"applied\": 2"),
            "B's settings and its skip (B joined a folder holding A's claim of the plan's zone: it made none): \(sync.out) \(sync.err)")
        #expect(try a.sqlite("SELECT count(*) FROM skipped_dates WHERE local_date = '2030-01-02'") == "1")
        let devices = try a.planner(["devices", "--db", a.db])
        #expect(devices.out.contains("laptop (this device)") && devices.out.contains("desktop"), "\(devices.out)")
        #expect(ticker.isRunning)
    }

    @Test func syncWithoutAFolderSaysHowToSetOne() throws {
        let h = try Harness()
        let r = try h.planner(["sync", "--db", h.db])
        #expect(r.status == 64 && r.err.contains("planner config set sync-folder"), "\(r.err)")
    }
}
