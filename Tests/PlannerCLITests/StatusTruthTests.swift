import Foundation
import PlannerHarness
import Testing

/// `planner status` says what is true: TZ unset (the system zone from /etc/localtime) or set, and as
/// "next" the reminder that will really be shown.
@Suite struct StatusTruthTests {
    /// The system zone as the system names it: the /etc/localtime link's target after `zoneinfo/`.
    static let systemZone = """
        import os
        path = "/etc/localtime"
        if not os.path.exists(path):
            print("unset (no /etc/localtime: using UTC)")
        else:
            target = os.readlink(path) if os.path.islink(path) else "localtime"
            print("unset (using /etc/localtime: " + (target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else "localtime") + ")")
        """

    @Test func statusSaysWhetherTZIsSet() throws {
        var h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let set = try h.plannerOK(["status"], now: "2026-11-23T12:01")
        #expect(set.split(separator: "\n").contains("TZ        Asia/Seoul"), "\(set)")
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(try h.plannerOK(["status", "--json"], now: "2026-11-23T12:01").utf8)) as? [String: Any])
        #expect(json["tz"] as? String == "Asia/Seoul")

        h.env["TZ"] = nil
        let expected = try h.python(Self.systemZone, []).trimmingCharacters(in: .whitespacesAndNewlines)
        let unset = try h.plannerOK(["status"], now: "2026-11-23T03:01Z")
        #expect(unset.split(separator: "\n").contains("TZ        \(expected)"), "\(unset)")
        let unsetJSON = try #require(
            JSONSerialization.jsonObject(with: Data(try h.plannerOK(["status", "--json"], now: "2026-11-23T03:01Z").utf8)) as? [String: Any])
        #expect(unsetJSON["tz"] is NSNull)
        // An empty TZ is unset too (glibc reads it as UTC; the planner as the system zone).
        h.env["TZ"] = ""
        #expect(try h.plannerOK(["status"], now: "2026-11-23T03:01Z").split(separator: "\n").contains("TZ        \(expected)"))
    }

    /// No ticker ran for two hours: 12:30 to 13:45 are past their grace (they will be recorded missed), so
    /// the next shown is 14:00, due now (the latest due slot, as the ticker decides).
    @Test func nextIsTheReminderThatWillReallyBeShown() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T12:00")
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(try h.plannerOK(["status", "--json"], now: "2026-11-23T14:05").utf8)) as? [String: Any])
        #expect(json["next_id"] as? String == "Noti_AppOpenPromotion_2026_11_23_14_00")
        _ = try h.plannerOK(["tick", "--once"], now: "2026-11-23T14:05", stderrAllowed: true)
        #expect(try h.sqlite("SELECT identifier FROM request WHERE state = 'delivered'") == "Noti_AppOpenPromotion_2026_11_23_14_00")
    }
}
