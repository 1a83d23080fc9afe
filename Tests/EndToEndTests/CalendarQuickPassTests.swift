import Foundation
import PlannerHarness
import Testing

/// A calendar pass ends at its first look when the folder's quick digest and the plan's fingerprint are what
/// the last pass recorded (`CalendarPassHead`, the `''` row of `calendar_pass`). Each test here is a change that
/// must still reach the folder although the pass before it left such a record; CalendarPassPropertyTests
/// checks the same against a twin that never skips, over random commands.
@Suite struct CalendarQuickPassTests {
    static let slot1030 = "planner-Noti_AppOpenPromotion_2026_11_23_10_30.ics"

    /// The whole folder's record as the last pass left it.
    static func head(_ h: Harness) throws -> String { try h.sqlite("SELECT plan FROM calendar_pass WHERE bucket = ''") }

    static func has(_ folder: String, _ name: String) -> Bool { FileManager.default.fileExists(atPath: folder + "/" + name) }

    /// A pause without an end has no `until_ms`: it must move the fingerprint all the same, and so must its
    /// resume (a NULL dropped from the fingerprint's text left the day's reminders on the phone).
    @Test func anOpenEndedPauseAndItsResumeReachTheFolder() throws {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try h.configOK(["set", "calendar-folder", folder, "calendar-days", "3"], now: "2026-11-23T10:05")
        _ = try h.planner(["refill", "--db", h.db, "--now", "2026-11-23T10:06"])
        let recorded = try Self.head(h)
        #expect(recorded.contains("plan="), "the pass recorded no fingerprint: \(recorded)")
        #expect(Self.has(folder, Self.slot1030))

        let paused = try h.planner(["pause", "--db", h.db, "--now", "2026-11-23T10:10"])
        #expect(paused.status == 0, "\(paused.err)")
        #expect(!Self.has(folder, Self.slot1030), "a pause until resumed left the 10:30 reminder on the phone")

        let resumed = try h.planner(["resume", "--db", h.db, "--now", "2026-11-23T10:15"])
        #expect(resumed.status == 0, "\(resumed.err)")
        #expect(Self.has(folder, Self.slot1030), "the resume did not put the 10:30 reminder back")
    }

    /// A pass that finds every bucket as recorded, while the fingerprint moved (here a new UTC date, on a
    /// weekend: no key changed), records the new fingerprint, so that the next pass ends at its first look
    /// again (it was left behind, and every pass after listed the folder until a bucket changed).
    @Test func aPassWithNothingToWriteKeepsTheRecordCurrent() throws {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try h.configOK(["set", "zone", "Europe/Berlin", "calendar-folder", folder, "calendar-days", "3"], now: "2026-11-28T00:30+01:00")
        _ = try h.planner(["refill", "--db", h.db, "--now", "2026-11-28T00:30+01:00"])
        let saturday = try Self.head(h)
        #expect(saturday.contains("from=1795822200000"), "\(saturday)")  // 2026-11-28T00:30+01:00
        let before = try CalendarFolderFixture.snapshot(folder)
        _ = try h.planner(["refill", "--db", h.db, "--now", "2026-11-28T03:00+01:00"])
        #expect(try CalendarFolderFixture.snapshot(folder) == before)
        let later = try Self.head(h)
        #expect(later.contains("from=1795831200000"), "the record stayed behind: \(later)")  // 2026-11-28T03:00+01:00
    }

    /// An older planner's pass writes the folder's total (`listing`) alone and leaves the record beside it: that
    /// record, of the folder before, must not let a later change back to the same plan be skipped.
    @Test func aRecordLeftBehindByAnOlderPlannerIsNotTrusted() throws {
        let (h, folder) = try CalendarFolderFixture.setUp(Harness(), days: 3)
        try h.configOK(["set", "title", "Study"], now: "2026-11-23T12:11")
        let studied = try Self.head(h)
        #expect(studied.contains("plan="))
        // The older planner: it rewrites every item with another title, and updates the total alone.
        try h.configOK(["set", "title", "Lessons"], now: "2026-11-23T12:12")
        _ = try h.sqlite("UPDATE calendar_pass SET plan = '\(studied)' WHERE bucket = ''")
        // Back to the first title: the folder must say it again.
        try h.configOK(["set", "title", "Study"], now: "2026-11-23T12:13")
        let texts = try CalendarFolderFixture.snapshot(folder).filter { $0.key.hasPrefix("planner-Noti") }.values
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(!texts.isEmpty)
        #expect(texts.allSatisfy { $0.contains("SUMMARY:Study\r\n") }, "items kept the other title")
    }
}
