import Foundation
import PlannerHarness
import Testing

/// A phone's tick against a planner that is rewriting the calendar folder at that very moment.
@Suite struct CalendarTickRaceTests {
    /// A "Study today" ticked on the phone is never lost when vdirsyncer renames it into the calendar folder
    /// while the planner rewrites the folder: whenever the rename lands (before, during or after the rewrite),
    /// the next `planner sync` opens the day from the calendar and leaves its task COMPLETED.
    ///
    /// Each round is one study day (`--now` moves a day on): `config set` changes the title (every event file)
    /// and the window's end (every task's DUE, today's too), and while it runs the tick is written aside and
    /// rename(2)d over today's task, as vdirsyncer does, at a random moment spread over one timed rewrite.
    /// Failed on the previous main (before FolderChild and RENAME_EXCHANGE): a tick renamed in between the
    /// planner's look at the task file and its own rename over it was overwritten with NEEDS-ACTION.
    @Test func aTickRenamedInWhileThePlannerRewritesTheFolderIsNeverLost() throws {
        let h = try Harness()
        let folder = h.dir + "/calendar"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        // 60 days of 49 slots: a rewrite touches about 3000 files and takes around a second.
        try h.configOK(["set", "calendar-folder", folder, "calendar-days", "60", "interval", "15m", "days", "daily"], now: "2026-11-23T10:00")
        // Rename times follow how long a whole rewrite takes on this machine: one timed run first.
        let started = Date()
        try h.configOK(["set", "title", "Study warm-up", "window", "09:30-21:45"], now: "2026-11-23T10:00")
        let span = max(Date().timeIntervalSince(started), 0.05)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let first = try #require(utc.date(from: DateComponents(year: 2026, month: 11, day: 23)))
        let format = DateFormatter()
        format.calendar = utc
        format.timeZone = utc.timeZone
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyy-MM-dd"
        var generator = SystemRandomNumberGenerator()
        let rounds = 10
        var lost: [String] = []
        var midRewrite = 0
        for round in 0..<rounds {
            let day = format.string(from: try #require(utc.date(byAdding: .day, value: round, to: first)))
            let now = day + "T10:00"
            let task = folder + "/planner-day-\(day).ics"
            #expect(try String(contentsOfFile: task, encoding: .utf8).contains("STATUS:NEEDS-ACTION"), "round \(round): \(day)")
            // Ticked at 10:00 in Seoul (the Harness's zone), 01:00 UTC.
            let tick = CalendarFolderFixture.phoneTick(day: day, completedUTC: day.replacingOccurrences(of: "-", with: "") + "T010000Z")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Harness.binary)
            p.arguments = [
                "config", "set", "title", "Study \(round)", "window", round % 2 == 0 ? "09:30-21:30" : "09:30-21:45",
                "--db", h.db, "--now", now,
            ]
            p.environment = h.env
            p.standardOutput = FileHandle.nullDevice
            let err = Pipe()
            p.standardError = err
            p.standardInput = FileHandle.nullDevice
            try p.run()
            let errText = PipeText(err)
            usleep(UInt32(Double.random(in: 0.05...0.95, using: &generator) * span * 1_000_000))
            // vdirsyncer: the whole object written under a name that is not an item's, then renamed over it.
            let temp = folder + "/.vdirsyncer-tmp-" + UUID().uuidString.prefix(8)
            try Data(tick.utf8).write(to: URL(fileURLWithPath: temp))
            #expect(rename(temp, task) == 0, "round \(round): rename: \(errno)")
            if p.isRunning { midRewrite += 1 }
            p.waitUntilExit()
            let said = String(decoding: errText.wait(), as: UTF8.self)
            #expect(p.terminationStatus == 0, "round \(round): config set exited \(p.terminationStatus): \(said)")
            let sync = try h.planner(["sync", "--db", h.db, "--now", now])
            #expect(sync.status == 0, "round \(round): \(sync.err)")
            let opened = try h.sqlite("SELECT count(*) FROM app_open WHERE local_date = '\(day)' AND origin = 'calendar'")
            let text = (try? String(contentsOfFile: task, encoding: .utf8)) ?? ""
            if (Int(opened) ?? 0) < 1 || !text.contains("STATUS:COMPLETED") {
                lost.append("\(day) (opened \(opened), task \(text.contains("STATUS:COMPLETED") ? "COMPLETED" : "not COMPLETED"))")
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        print("ticks lost: \(lost.count) of \(rounds); renamed in mid-rewrite: \(midRewrite); rewrite \(span) s; total \(elapsed) s")
        #expect(lost.isEmpty, "ticks lost: \(lost)")
        #expect(midRewrite > 0, "no rename landed while the planner was rewriting the folder: the test proved nothing")
    }
}
