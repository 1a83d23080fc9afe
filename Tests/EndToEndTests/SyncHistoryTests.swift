import Foundation
import PlannerHarness
import Testing

/// `history` on a second computer says which device an answer or an open came from (issue 30): the laptop
/// answers its reminders on a real notification server (dunst, as in AnswerTests), the desktop reads the
/// laptop's events from the shared folder (one local folder, as if the sync engine carried each file at once).
@Suite(.serialized) struct SyncHistoryTests {
    static let snoozed = "Noti_AppOpenPromotion_2026_11_23_09_30_snoozed"
    static let started = "Noti_AppOpenPromotion_2026_11_23_10_00_snoozed"

    @Test func historyOnTheSecondComputerSaysTheAnswersCameFromTheFirst() throws {
        var laptop = try Harness()
        let desktop = try Harness()
        let screen = try PrivateDesktop(in: laptop.dir)
        defer { screen.stop() }
        laptop.env["DBUS_SESSION_BUS_ADDRESS"] = screen.busAddress
        let folder = laptop.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (h, name) in [(laptop, "laptop"), (desktop, "desktop")] {
            let set = try h.planner(["config", "set", "sync-folder", folder, "device-name", name, "--db", h.db])
            #expect(set.status == 0, "\(set.err)")
            #expect(try h.planner(["refill", "--db", h.db]).status == 0)
        }
        let ticker = try laptop.startTicker(["--verbose"])
        defer { ticker.terminate(); ticker.waitUntilExit() }
        func answer(_ id: String, _ label: String, count: Int) throws {
            let add = try laptop.planner(["add", "--in", "1s", "--title", "Time to study?", "--id", id, "--db", laptop.db])
            #expect(add.status == 0, "\(add.err)")
            try laptop.waitFor(seconds: 10) {
                try laptop.sqlite("SELECT state FROM request WHERE identifier = '\(id)' ORDER BY id DESC LIMIT 1") == "delivered"
            }
            _ = try screen.answer(label)
            try laptop.waitFor(seconds: 10) { try laptop.sqlite("SELECT count(*) FROM notification_action") == String(count) }
        }
        try answer(Self.snoozed, "Snooze", count: 1)
        try answer(Self.started, "Start studying", count: 2)
        // The laptop's ticker wrote both to its file in the folder: the snooze and the open.
        try laptop.waitFor(seconds: 5) {
            try laptop.sqlite("SELECT count(*) FROM event WHERE kind IN ('snooze', 'open') AND published_ms IS NOT NULL") == "2"
        }

        let sync = try desktop.planner(["sync", "--db", desktop.db])
        #expect(sync.status == 0, "\(sync.err)")
        let text = try desktop.planner(["history", "--db", desktop.db])
        #expect(text.status == 0, "\(text.err)")
        let lines = text.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("Start studying (answer) on laptop") && $0.contains("opened") }, "\(text.out)")
        #expect(
            lines.contains { $0.hasPrefix(Self.snoozed) && $0.contains("answered") && $0.contains("snooze on laptop") },
            "\(text.out)")
        let json = try desktop.planner(["history", "--json", "--db", desktop.db])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        let open = rows.first { $0["kind"] as? String == "open" }
        #expect(open?["device"] as? String == "laptop" && open?["identifier"] as? String == "answer", "\(json.out)")
        let snooze = rows.first { $0["state"] as? String == "answered" }
        #expect(snooze?["device"] as? String == "laptop" && snooze?["identifier"] as? String == Self.snoozed, "\(json.out)")

        // On the laptop itself the same rows name no device.
        let own = try laptop.planner(["history", "--db", laptop.db]).out
        #expect(!own.contains(" on laptop") && own.contains("Start studying (answer)"), "\(own)")
        let ownRows = try #require(
            try JSONSerialization.jsonObject(with: Data(laptop.planner(["history", "--json", "--db", laptop.db]).out.utf8))
                as? [[String: Any]])
        #expect(!ownRows.isEmpty && ownRows.allSatisfy { $0["device"] is NSNull }, "\(ownRows)")
    }
}
