import Foundation
import PlannerHarness
import Testing

/// An event the phone changed is put back as the plan says, and the put-back copy must differ from the
/// planner's earlier one in a property vdirsyncer compares: vdirsyncer 0.19 records a downloaded item
/// under the hash of the copy it replaced (sync/__init__.py, Update), so bytes equal to that earlier copy
/// (bar DTSTAMP, which it ignores) look unchanged to it and never reach the server (scripts/calendar-check).
@Suite struct CalendarRestoreTests {
    /// The lines vdirsyncer hashes: without the properties it ignores (vobject.IGNORE_PROPS) and DTSTAMP.
    static func hashed(_ text: String) -> [String] {
        let ignored = ["PRODID", "METHOD", "X-RADICALE-NAME", "X-WR-CALNAME", "REV", "LAST-MODIFIED", "CREATED", "DTSTAMP", "UID"]
        return text.components(separatedBy: "\r\n").filter { line in
            !ignored.contains { line.hasPrefix($0 + ":") || line.hasPrefix($0 + ";") }
        }
    }

    /// Tomorrow's 10:00 is the first occurrence of the series at 10:00: the phone moved the whole series.
    @Test func anEventMovedOnThePhoneComesBackAsANewRevision() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness())
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:10")
        let path = folder + "/planner-series-1000.ics"
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("DTSTART;TZID=Asia/Seoul:20261124T100000\r\n"))
        // The phone moved it 45 minutes later (what vdirsyncer writes into the folder).
        let moved = written.replacing("DTSTART;TZID=Asia/Seoul:20261124T100000", with: "DTSTART;TZID=Asia/Seoul:20261124T104500")
        try Data(moved.utf8).write(to: URL(fileURLWithPath: path + ".tmp"))
        #expect(rename(path + ".tmp", path) == 0)

        _ = try h.plannerOK(["sync"], now: "2026-11-23T12:20")
        let restored = try String(contentsOfFile: path, encoding: .utf8)
        #expect(restored.contains("DTSTART;TZID=Asia/Seoul:20261124T100000\r\n"), "\(restored)")
        #expect(Self.hashed(restored) != Self.hashed(written), "the put-back copy is the earlier one to vdirsyncer:\n\(restored)")
        // Once put back it stays: the next run writes nothing.
        let again = try h.planner(["sync", "--json", "--db", h.db, "--now", "2026-11-23T12:30"])
        #expect(again.status == 0 && again.out.contains("\"calendar_written\": 0"), "\(again.out) \(again.err)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == restored)
    }
}
