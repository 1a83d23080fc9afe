import Foundation
import PlannerHarness
import Testing

/// The phone never holds an alarm that already fired: a reminder's event leaves the calendar folder at the
/// pass that delivers it (the folder holds only what is still ahead), so a calendar app has no fired alarm
/// to list as missed once the day is studied — which is why no RFC 9074 ACKNOWLEDGED is written
/// (docs/phone.md).
@Suite struct CalendarFiredAlarmTests {
    @Test func aRemindersEventLeavesTheFolderWhenItIsDelivered() throws {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        try h.configOK(["set", "calendar-folder", folder], now: "2026-11-23T09:00")
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")
        func has(_ time: String) -> Bool {
            FileManager.default.fileExists(atPath: folder + "/planner-Noti_AppOpenPromotion_2026_11_23_\(time).ics")
        }
        #expect(has("09_30") && has("10_00"))
        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T09:30:01", stderrAllowed: true)
        #expect(!has("09_30"), "the fired 09:30 alarm is still in the folder")
        #expect(has("10_00"))
        // Studied: the rest of the day leaves too, and the day's task is ticked.
        _ = try h.plannerOK(["open"], now: "2026-11-23T09:40")
        _ = try h.plannerOK(["sync"], now: "2026-11-23T09:41")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains("2026_11_23") }
        #expect(left.isEmpty, "\(left)")
        let task = try String(contentsOfFile: folder + "/planner-day-2026-11-23.ics", encoding: .utf8)
        #expect(task.contains("STATUS:COMPLETED"))
    }
}
