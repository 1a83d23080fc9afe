import Foundation
import PlannerHarness
import Testing

/// Issue 30: two computers carrying one calendar settle. Each reads the other's copy of an item (vdirsyncer
/// brings it in) as its own when it says the same thing; before, each put the other's back as a newer
/// revision (SEQUENCE from its own clock), and the two rewrote each other for as long as the item lived.
@Suite struct CalendarTwoComputersTests {
    @Test func anEditPutBackByOneIsTakenAsItsOwnByTheOther() throws {
        let now = "2026-11-23T08:00"
        var computers: [(Harness, String)] = []
        for _ in 0..<2 {
            let h = try Harness()
            let folder = h.dir + "/calendar"
            for args in [["config", "set", "calendar-folder", folder, "calendar-days", "3"], ["refill"]] {
                let r = try h.planner(args + ["--db", h.db, "--now", now])
                #expect(r.status == 0, "\(args): \(r.err)")
            }
            computers.append((h, folder))
        }
        let name = "planner-Noti_AppOpenPromotion_2026_11_24_10_00.ics"
        // The phone edits the event (a location); vdirsyncer brings the edit into both folders.
        let original = try String(contentsOfFile: computers[0].1 + "/" + name, encoding: .utf8)
        let edited = original.replacingOccurrences(of: "TRANSP:TRANSPARENT\r\n", with: "TRANSP:TRANSPARENT\r\nLOCATION:desk\r\n")
        #expect(edited != original)
        for (_, folder) in computers { try edited.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        // Then each computer's copy travels to the other, in turn, a few rounds (a minute apart, as their
        // syncs would be), each one running its sync after the arrival.
        var rewrites: [Int] = []
        for round in 0..<6 {
            let (from, to) = round % 2 == 0 ? (computers[0], computers[1]) : (computers[1], computers[0])
            let (h, folder) = to
            let r = try h.planner(["sync", "--json", "--db", h.db, "--now", "2026-11-23T08:0\(round + 1)"])
            #expect(r.status == 0, "\(r.err)")
            let written = (try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])?["calendar_written"] as? Int ?? -1
            rewrites.append(written)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            // vdirsyncer carries `to`'s copy to the other side.
            try bytes.write(to: URL(fileURLWithPath: from.1 + "/" + name))
        }
        // The first two syncs put the phone's edit back (each computer once); after that nothing is rewritten.
        #expect(rewrites.suffix(4) == [0, 0, 0, 0], "calendar_written per round: \(rewrites)")
        let a = try String(contentsOfFile: computers[0].1 + "/" + name, encoding: .utf8)
        #expect(!a.contains("LOCATION"))
    }
}
