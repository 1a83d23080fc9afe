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
        defer {
            ticker.terminate()
            ticker.waitUntilExit()
        }
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

    /// A conflict copy of another device's file with its open moved to another day (an edit by hand) and the
    /// greater hash: every device keeps that version, and the day the open leaves gets its future reminders
    /// back here, as a settings change that moves an open already does. Before: Monday kept its reminders
    /// cancelled for good while `plan` said it was not opened.
    @Test func anOpenMovedByAWinningConflictCopyGivesItsOldDayItsRemindersBack() throws {
        let laptop = try Harness()
        let desktop = try Harness()
        let folder = laptop.dir + "/shared"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for h in [laptop, desktop] { try h.configOK(["set", "sync-folder", folder], now: "2026-11-23T08:00") }
        _ = try laptop.plannerOK(["open"], now: "2026-11-23T10:00")
        _ = try laptop.plannerOK(["sync"], now: "2026-11-23T10:01")
        _ = try desktop.plannerOK(["sync"], now: "2026-11-23T10:05")
        #expect(try desktop.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_23%'") == "0")
        // The copy: the open's `at` on Tuesday, at the first minute whose line has the greater SHA-256.
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first {
                $0.hasSuffix(".events") && (try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8))?.contains("kind=open") == true
            })
        let copy = try laptop.python(
            """
            import hashlib, re, sys
            folder, name = sys.argv[1], sys.argv[2]
            lines = open(folder + '/' + name).read().splitlines(keepends=True)
            i = next(i for i, l in enumerate(lines) if 'kind=open' in l)
            old = lines[i]
            for minute in range(600):
                new = re.sub(r' at=[0-9]+', ' at=%d' % (1795399200000 + 86400000 + minute * 60000), old)
                if hashlib.sha256(new.encode()).digest() > hashlib.sha256(old.encode()).digest():
                    lines[i] = new
                    break
            out = name[:-len('.events')] + '.sync-conflict-20261123-100500-ABCDEFG.events'
            open(folder + '/' + out, 'w').write(''.join(lines))
            print(out)
            """, [folder, file])
        #expect(copy.hasSuffix(".events\n"), "\(copy)")
        for h in [desktop, laptop] { _ = try h.planner(["sync", "--now", "2026-11-23T10:30", "--db", h.db]) }
        for h in [desktop, laptop] {
            #expect(try h.sqlite("SELECT group_concat(local_date) FROM app_open") == "2026-11-24")
            // Monday's reminders from 11:00 on are back (22 of them); Tuesday's are cancelled.
            #expect(try h.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_23%'") == "22")
            #expect(try h.sqlite("SELECT count(*) FROM pending_requests WHERE identifier LIKE '%2026_11_24%'") == "0")
        }
    }
}
