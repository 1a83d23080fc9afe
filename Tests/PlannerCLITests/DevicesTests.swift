import Foundation
import PlannerHarness
import Testing

/// `planner devices` on two accounts on one clock (issue 30 saw "-1s"): a change that took the sync engine
/// a second or so to carry is no sign of a clock out of step; a clock really behind still shows.
@Suite struct DevicesTests {
    /// The laptop skips a date at 12:00:00 by its clock; the desktop reads it at `readAt` by its own.
    func laptopRow(readAt: String) throws -> (row: String, json: String, offset: String) {
        let laptop = try Harness()
        let desktop = try Harness()
        let folder = laptop.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        // The desktop joins first: a device reads the folder as it joins, and would otherwise take the
        // laptop's first changes as they were then, in step.
        for (h, name) in [(desktop, "desktop"), (laptop, "laptop")] {
            let set = try h.planner([
                "config", "set", "sync-folder", folder, "device-name", name,
                "--db", h.db, "--now", "2026-11-23T12:00:00",
            ])
            #expect(set.status == 0, "\(set.err)")
        }
        _ = try laptop.plannerOK(["skip", "2026-12-02"], now: "2026-11-23T12:00:00")
        _ = try desktop.plannerOK(["sync"], now: readAt)
        let devices = try desktop.plannerOK(["devices"], now: readAt)
        let row = devices.split(separator: "\n").first { $0.hasPrefix("laptop ") }.map(String.init) ?? devices
        return (
            row, try desktop.plannerOK(["devices", "--json"], now: readAt),
            try desktop.sqlite("SELECT offset_ms FROM device WHERE name = 'laptop'")
        )
    }

    @Test func aCarriageOfASecondIsNoClockOffset() throws {
        // Read 1.4 s later on the same clock: Syncthing's watcher delay (1 s) and its transfer.
        let (row, json, offset) = try laptopRow(readAt: "2026-11-23T12:00:01.400")
        #expect(offset == "-1400")
        #expect(row.hasSuffix("in step"), "\(row)")
        #expect(json.contains("\"offset_ms\": -1400"), "the JSON keeps the measurement: \(json)")
        // The devices view's names and values (its SQL is the oracle), and the earlier names beside them.
        let rows = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let laptop = try #require(rows.first { $0["name"] as? String == "laptop" })
        #expect(laptop["is_self"] as? Bool == false && laptop["this_device"] as? Bool == false)
        #expect(laptop["last_event"] as? String == "2026-11-23T03:00:00Z", "\(json)")
        #expect(laptop["last_event_at"] as? String == "2026-11-23T12:00:00+09:00", "\(json)")
    }

    @Test func aClockBehindShows() throws {
        let (row, _, offset) = try laptopRow(readAt: "2026-11-23T12:00:41.400")
        #expect(offset == "-41400")
        #expect(row.hasSuffix("-41s (at most)"), "\(row)")
    }
}
