import CSQLite
import Foundation
import PlannerCore
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerFolders
@testable import PlannerStore

/// Devices sharing one plan through a folder: here the folder is one local folder both databases use, as if
/// the sync engine carried every file at once. Each test sees the shared state converge.
@Suite struct SyncFolderTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }
    func date(_ text: String) -> LocalDate { LocalDate(iso: text)! }

    func folder() -> String {
        let path = temporaryDatabasePath() + ".sync"
        mkdir(path, 0o700)
        return path
    }

    /// A database syncing through `folder`, its plan made at `time`.
    func device(_ folder: String, name: String, at time: String) throws -> PlannerDatabase {
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul")
        try db.configure(set: [(.syncFolder, folder), (.deviceName, name), (.window, "09:30-21:30"), (.days, "daily")], reset: [], now: at(time))
        return db
    }

    /// Every row's first column.
    func texts(_ db: PlannerDatabase, _ sql: String) throws -> [String] {
        let stmt = try db.inspection.prepare(sql)
        var rows: [String] = []
        while try stmt.step() { rows.append(stmt.text(0)) }
        return rows
    }

    /// What every device must agree on.
    func agreed(_ db: PlannerDatabase) throws -> [String] {
        var rows: [String] = []
        for (sql, label) in [
            ("SELECT key || '=' || value FROM setting WHERE key NOT IN ('sync-folder', 'device-name') ORDER BY key", "setting"),
            ("SELECT local_date FROM skipped_dates ORDER BY local_date", "skipped"),
            ("SELECT DISTINCT local_date FROM app_open ORDER BY local_date", "opened"),
            (
                """
                SELECT identifier || ' ' || fire_at_ms || ' ' || title || ' ' || body FROM request
                WHERE kind = 'oneoff' AND state IN \(RequestState.waitingSQL) ORDER BY identifier
                """, "one-off"
            ),
        ] {
            let stmt = try db.inspection.prepare(sql)
            while try stmt.step() { rows.append(label + ":" + stmt.text(0)) }
        }
        let pause = try db.currentPause(now: at("2026-11-25T12:00"))
        rows.append("pause:" + (pause.map { "\($0.since.milliseconds)-\($0.until?.milliseconds ?? -1)" } ?? "none"))
        return rows
    }

    @Test func anOpenOnOneDeviceCancelsTheRestOfTheDayOnTheOther() throws {
        let shared = folder()
        let a = try device(shared, name: "laptop", at: "2026-11-25T08:00")
        let b = try device(shared, name: "desktop", at: "2026-11-25T08:00")
        try b.refill(now: at("2026-11-25T08:00"))
        #expect(try b.pendingRequests().contains { $0.identifier.contains("2026_11_25") })

        try a.recordAppOpen(now: at("2026-11-25T10:03"))
        let report = try #require(try b.sync(now: at("2026-11-25T10:03:02")).sync)
        #expect(report.applied >= 1)
        #expect(report.openedElsewhere == [date("2026-11-25")])
        #expect(try !b.pendingRequests().contains { $0.identifier.contains("2026_11_25") }, "the day opened on the laptop is quiet on the desktop")
        let cancelled = try b.inspection.integer(
            "SELECT count(*) FROM request WHERE local_date = '2026-11-25' AND state = 'cancelled' AND reason = 'app opened on another device'")
        #expect(cancelled == 25, "09:30 to 21:30 every 30 minutes: the two past ones were never delivered (no ticker)")
        let devices = try b.devices()
        #expect(devices.map(\.name) == ["desktop", "laptop"] && devices[0].isSelf && !devices[1].isSelf)
        // The laptop's open is the desktop's record too: once.
        #expect(try b.inspection.integer("SELECT count(*) FROM app_open_events WHERE device = 'laptop'") == 1)
        let again = try #require(try b.sync(now: at("2026-11-25T10:04")).sync)
        #expect(again.applied == 0)
    }

    /// A ticker starting at login after days away reads another computer's file in slices (its budget): a
    /// reminder already late waits until the slices that may say the day was studied there are read.
    @Test func aLateReminderWaitsUntilWhatTheFolderHoldsIsRead() throws {
        let shared = folder()
        let a = try device(shared, name: "laptop", at: "2026-11-25T08:00")
        let b = try device(shared, name: "desktop", at: "2026-11-25T08:00")
        try b.refill(now: at("2026-11-25T08:00"))
        for n in 0..<20 { try a.configure(set: [(.body, "Body \(n)")], reset: [], now: at("2026-11-25T08:\(10 + n)")) }
        try a.recordAppOpen(now: at("2026-11-25T09:05"))
        // 09:31: the 09:30 reminder is a minute late; the laptop's open of 09:05 is far into its file.
        var shown: [String] = []
        var passes = 0
        for pass in 0..<100 {
            passes += 1
            let (_, claimed, _, sources) = try b.claimDue(
                now: at("2026-11-25T09:31") + Int64(pass), holdLate: true, limits: SourceLimits(syncReadBytes: 1_024))
            shown += claimed.map(\.identifier)
            if sources.sync?.more != true { break }
        }
        #expect(passes > 2, "the folder was read in one pass")
        #expect(shown.isEmpty, "shown before the laptop's open was read: \(shown)")
        #expect(try b.inspection.integer("SELECT count(*) FROM app_open WHERE local_date = '2026-11-25'") == 1)
    }

    /// `tick --once` (cron) has no next pass in milliseconds: it never holds a late reminder back (it would
    /// wait a minute per slice of the backlog, and be missed).
    @Test func aPassThatIsNotFollowedAtOnceDoesNotHoldALateReminder() throws {
        let shared = folder()
        let a = try device(shared, name: "laptop", at: "2026-11-25T08:00")
        let b = try device(shared, name: "desktop", at: "2026-11-25T08:00")
        try b.refill(now: at("2026-11-25T08:00"))
        for n in 0..<20 { try a.configure(set: [(.body, "Body \(n)")], reset: [], now: at("2026-11-25T08:\(10 + n)")) }
        let (_, claimed, _, sources) = try b.claimDue(now: at("2026-11-25T09:31"), limits: SourceLimits(syncReadBytes: 1_024))
        #expect(sources.sync?.more == true)
        #expect(claimed.map(\.identifier) == ["Noti_AppOpenPromotion_2026_11_25_09_30"])
    }

    /// Two accounts on one clock: a command that read the clock, then waited seconds for its database (held
    /// by another process), reads a change the other device made meanwhile. That is no clock offset.
    @Test func aChangeMadeWhileThisCommandWaitedForItsDatabaseIsNoClockOffset() throws {
        let shared = folder()
        let a = try device(shared, name: "laptop", at: "2026-11-25T08:00")
        let b = try device(shared, name: "desktop", at: "2026-11-25T08:00")
        _ = try a.skip([date("2026-12-02")], reason: nil, now: at("2026-11-25T10:00:03"))
        // Another process holds the desktop's database for 3.5 s.
        final class Holder: @unchecked Sendable {  // used by one thread at a time
            let connection: Connection
            init(_ connection: Connection) { self.connection = connection }
        }
        let holder = Holder(try Connection(path: b.path, flags: SQLITE_OPEN_READWRITE))
        try holder.connection.execute("BEGIN IMMEDIATE")
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            usleep(3_500_000)
            try? holder.connection.execute("COMMIT")
            holder.connection.close()
            released.signal()
        }
        // The desktop's clock read 10:00:00; it applies the laptop's change of 10:00:03 after the wait.
        _ = try b.sync(now: at("2026-11-25T10:00:00"))
        released.wait()
        let offset = try #require(try b.devices().first { $0.name == "laptop" }?.offsetMilliseconds)
        #expect(offset <= 0, "a clock offset of \(offset) ms between two accounts of one clock")
    }

    @Test func theLaterChangeWinsWhicheverArrivesFirst() throws {
        let shared = folder()
        let a = try device(shared, name: "a", at: "2026-11-25T08:00")
        let b = try device(shared, name: "b", at: "2026-11-25T08:00")
        // Neither has seen the other's change when making its own.
        try a.configure(set: [(.title, "From A")], reset: [], now: at("2026-11-25T09:00"))
        try b.configure(set: [(.title, "From B")], reset: [], now: at("2026-11-25T09:05"))
        _ = try a.sync(now: at("2026-11-25T09:10"))
        _ = try b.sync(now: at("2026-11-25T09:10"))
        #expect(try a.planSettings().settings.title == "From B")
        #expect(try b.planSettings().settings.title == "From B")
        #expect(try agreed(a) == agreed(b))
    }

    @Test func aDeviceWithASlowClockStillWinsWithAChangeMadeAfterSeeingTheOther() throws {
        let shared = folder()
        let a = try device(shared, name: "a", at: "2026-11-25T08:00")
        let b = try device(shared, name: "b", at: "2026-11-25T05:00")
        try a.configure(set: [(.title, "Early")], reset: [], now: at("2026-11-25T12:00"))
        // B's clock says 09:00 (three hours behind): it has seen A's change, so its own comes after it.
        _ = try b.sync(now: at("2026-11-25T09:00"))
        #expect(try b.planSettings().settings.title == "Early")
        try b.configure(set: [(.title, "Later")], reset: [], now: at("2026-11-25T09:01"))
        _ = try a.sync(now: at("2026-11-25T12:02"))
        #expect(try a.planSettings().settings.title == "Later", "B's change came after A's, whatever B's clock said")
        let offset = try #require(try a.devices().first { $0.name == "b" }?.offsetMilliseconds)
        #expect(offset <= -3 * 3_600_000 + 120_000 && offset >= -3 * 3_600_000 - 120_000, "about three hours behind: \(offset)")
    }

    @Test func skipsAndPausesMeetInTheMiddle() throws {
        let shared = folder()
        let a = try device(shared, name: "a", at: "2026-11-25T08:00")
        let b = try device(shared, name: "b", at: "2026-11-25T08:00")
        try a.skip([date("2026-11-27")], reason: "trip", now: at("2026-11-25T09:00"))
        try b.pause(now: at("2026-11-25T09:30"), until: at("2026-11-25T15:00"))
        try b.skip([date("2026-11-28")], reason: nil, now: at("2026-11-25T09:40"))
        _ = try a.sync(now: at("2026-11-25T10:00"))
        _ = try b.sync(now: at("2026-11-25T10:00"))
        _ = try a.sync(now: at("2026-11-25T10:00"))
        #expect(try agreed(a) == agreed(b))
        #expect(try agreed(a).contains("skipped:2026-11-27") && agreed(a).contains("skipped:2026-11-28"))
        #expect(try a.currentPause(now: at("2026-11-25T12:00"))?.until == at("2026-11-25T15:00"))
        // A resumes; B unskips the 27th later: both see both.
        _ = try a.resume(now: at("2026-11-25T11:00"))
        _ = try b.unskip([date("2026-11-27")], now: at("2026-11-25T11:05"))
        _ = try a.sync(now: at("2026-11-25T11:10"))
        _ = try b.sync(now: at("2026-11-25T11:10"))
        #expect(try agreed(a) == agreed(b))
        #expect(try !agreed(a).contains("skipped:2026-11-27") && agreed(a).contains("pause:none"))
    }

    /// "Snooze" answered on one device snoozes the same reminder on the other: the copy there still waiting
    /// is cancelled (answered), and both have the snoozed one-off at the same instant.
    @Test func aSnoozeTravelsAndReplacesTheSameReminderElsewhere() throws {
        let shared = folder()
        let a = try device(shared, name: "a", at: "2026-11-25T08:00")
        let b = try device(shared, name: "b", at: "2026-11-25T08:00")
        try b.refill(now: at("2026-11-25T09:00"))
        let slot = "Noti_AppOpenPromotion_2026_11_25_09_30"
        let until = at("2026-11-25T09:45")
        let event = PlanEvent(
            id: PlannerDatabase.newEventID(), at: at("2026-11-25T09:30:05"), origin: "answer",
            change: .snooze(identifier: slot, day: date("2026-11-25"), until: until))
        let outcome = try #require(try a.apply(event))
        #expect(outcome.snoozed.map(\.identifier) == [slot + "_snoozed"])
        _ = try b.sync(now: at("2026-11-25T09:30:06"))
        #expect(
            try b.inspection.text("SELECT state || ' ' || reason FROM request WHERE identifier = '\(slot)' ORDER BY id DESC LIMIT 1")
                == "cancelled snoozed on another device")
        #expect(
            try b.inspection.integer("SELECT fire_at_ms FROM request WHERE identifier = '\(slot)_snoozed' AND state = 'pending'")
                == until.milliseconds)
        // A snooze of a day opened by then adds nothing.
        try a.recordAppOpen(now: at("2026-11-25T09:40"))
        let late = PlanEvent(
            id: PlannerDatabase.newEventID(), at: at("2026-11-25T09:41"), origin: "answer",
            change: .snooze(identifier: slot + "_snoozed", day: date("2026-11-25"), until: at("2026-11-25T09:56")))
        #expect(try a.apply(late)?.snoozed.isEmpty == true)
    }

    /// A one-off added on one device rings on the other too: the same identifier, time, title and body,
    /// the identifier made unique once, where it was added. One that arrives past its grace adds nothing.
    @Test func aOneOffAddedOnOneDeviceIsWaitingOnTheOther() throws {
        let shared = folder()
        let a = try device(shared, name: "laptop", at: "2026-11-25T08:00")
        let b = try device(shared, name: "desktop", at: "2026-11-25T08:00")
        let request = NewRequest(identifier: "Noti_Reminder_tea", fireAt: at("2026-11-25T18:00"), title: "물 마시기", body: "green, 80 °C\n3 min")
        _ = try a.add(request, now: at("2026-11-25T09:00"), zone: seoul)
        let second = try a.add(request, makeUnique: true, now: at("2026-11-25T09:01"), zone: seoul)
        #expect(second.identifier == "Noti_Reminder_tea_2")
        let report = try #require(try b.sync(now: at("2026-11-25T09:02")).sync)
        #expect(report.applied >= 2)
        let waiting = """
            SELECT identifier || ' ' || fire_at_ms || ' ' || title || ' ' || body || ' ' || state FROM request
            WHERE kind = 'oneoff' ORDER BY identifier
            """
        let expected = ["Noti_Reminder_tea", "Noti_Reminder_tea_2"].map {
            "\($0) \(at("2026-11-25T18:00").milliseconds) 물 마시기 green, 80 °C\n3 min pending"
        }
        #expect(try texts(b, waiting) == expected)
        #expect(try agreed(a) == agreed(b))
        // Read a day later, on a third device: over before it arrived, so nothing waits there.
        let c = try device(shared, name: "tablet", at: "2026-11-26T08:00")
        _ = try c.sync(now: at("2026-11-26T08:01"))
        #expect(try texts(c, waiting).isEmpty)
        #expect(try c.inspection.integer("SELECT count(*) FROM event WHERE kind = 'add'") == 2, "recorded, as every change is")
    }

    /// Two devices add the same identifier, each before seeing the other's: the later add is the one waiting
    /// on both, whichever arrives first.
    @Test func theLaterAddOfAnIdentifierWinsEverywhere() throws {
        let shared = folder()
        let a = try device(shared, name: "a", at: "2026-11-25T08:00")
        let b = try device(shared, name: "b", at: "2026-11-25T08:00")
        _ = try a.add(
            NewRequest(identifier: "call", fireAt: at("2026-11-25T18:00"), title: "Earlier", body: ""), now: at("2026-11-25T09:00"), zone: seoul)
        _ = try b.add(
            NewRequest(identifier: "call", fireAt: at("2026-11-25T19:00"), title: "Later", body: ""), now: at("2026-11-25T09:05"), zone: seoul)
        _ = try a.sync(now: at("2026-11-25T09:10"))
        _ = try b.sync(now: at("2026-11-25T09:10"))
        #expect(try agreed(a) == agreed(b))
        let state = try agreed(a)
        #expect(state.contains("one-off:call \(at("2026-11-25T19:00").milliseconds) Later "), "\(state)")
    }

    @Test func thisDevicesOwnSettingsStayOnIt() throws {
        let shared = folder()
        let a = try device(shared, name: "a", at: "2026-11-25T08:00")
        let b = try device(shared, name: "b", at: "2026-11-25T08:00")
        try a.configure(set: [(.studyCommand, "anki"), (.interval, "45m")], reset: [], now: at("2026-11-25T09:00"))
        _ = try b.sync(now: at("2026-11-25T09:01"))
        #expect(try b.planSettings().settings.studyCommand == [])
        #expect(try b.planSettings().settings.schedule.intervalMinutes == 45)
        let text = try String(
            contentsOfFile: shared + "/"
                + (FileManager.default.contentsOfDirectory(atPath: shared).first {
                    $0.contains("-000") && !$0.isEmpty
                        && (try? String(contentsOfFile: shared + "/" + $0, encoding: .utf8))?.contains("name=a") == true
                })!, encoding: .utf8)
        #expect(!text.contains("study-command") && !text.contains("sync-folder") && text.contains("set.interval=45m"))
    }

    /// A folder as a bad day leaves it: every kind of junk is one problem, and the good events still apply.
    @Test func junkInTheFolderChangesNothingElse() throws {
        let shared = folder()
        let a = try device(shared, name: "a", at: "2026-11-25T08:00")
        let b = try device(shared, name: "b", at: "2026-11-25T08:00")
        try a.configure(set: [(.title, "Good")], reset: [], now: at("2026-11-25T09:00"))
        _ = try a.sync(now: at("2026-11-25T09:00"))
        let other = String(repeating: "e", count: 32)
        let fake = String(repeating: "f", count: 32)
        func put(_ name: String, _ text: String) { FileManager.default.createFile(atPath: shared + "/" + name, contents: Data(text.utf8)) }
        let good =
            "planner-event 2 id=\(String(repeating: "1", count: 32)) at=\(at("2026-11-25T09:02").milliseconds) origin=skip kind=skip device=\(other) stamp=\(at("2026-11-25T09:02").milliseconds).0 dates=2026-11-30\n"
        put(
            SyncFileText.fileName(device: other, sequence: 1),
            "garbage\n" + good
                + "planner-event 2 id=\(String(repeating: "2", count: 32)) at=\(at("2026-12-25T09:00").milliseconds) origin=skip kind=skip device=\(other) stamp=\(at("2026-12-25T09:00").milliseconds).0 dates=2026-12-01\n"
                + "planner-event 2 id=\(String(repeating: "3", count: 32)) at=\(at("2026-11-25T09:03").milliseconds) origin=skip kind=skip device=\(fake) stamp=\(at("2026-11-25T09:03").milliseconds).0 dates=2026-12-02\n"
                + "planner-event 2 id=\(String(repeating: "4", count: 32)) at=\(at("2026-11-25T09:03").milliseconds) origin=config kind=settings device=\(other) stamp=\(at("2026-11-25T09:03").milliseconds).0 set.study-command=rm%20-rf\n"
                + "planner-event 2 id=\(String(repeating: "5", count: 32)) at=\(at("2026-11-25T09:04").milliseconds) origin=skip kind=skip device=\(other) stamp=\(at("2026-11-25T09:04").milliseconds).0 dates=2026-12-03"
        )
        put(SyncFileText.fileName(device: fake, sequence: 1) + ".sync-conflict-20261125-090000-ABCDEFG.events", "\u{0}\u{1}binary\n")
        put("planner-notes.txt", "mine\n")
        put(".syncthing.planner-x.tmp", "partial")
        symlink("/etc/passwd", shared + "/" + SyncFileText.fileName(device: String(repeating: "9", count: 32), sequence: 1))
        mkfifo(shared + "/" + SyncFileText.fileName(device: String(repeating: "8", count: 32), sequence: 1), 0o600)
        mkdir(shared + "/" + SyncFileText.fileName(device: String(repeating: "7", count: 32), sequence: 1), 0o700)
        let huge = shared + "/" + SyncFileText.fileName(device: String(repeating: "6", count: 32), sequence: 1)
        FileManager.default.createFile(atPath: huge, contents: nil)
        truncate(huge, off_t(SyncFileText.maximumFileBytes + 1))

        let report = try #require(try b.sync(now: at("2026-11-25T09:10")).sync)
        #expect(try b.planSettings().settings.title == "Good")
        #expect(try agreed(b).contains("skipped:2026-11-30"))
        #expect(try !agreed(b).contains("skipped:2026-12-01"), "dated a month ahead")
        #expect(try !agreed(b).contains("skipped:2026-12-02"), "a line of another device than its file's")
        #expect(try !agreed(b).contains("skipped:2026-12-03"), "a last line without its line break waits")
        #expect(try b.planSettings().settings.studyCommand == [])
        let problems = report.problems.joined(separator: "\n")
        for expected in [
            "3 lines refused", "1 line dated more than a day ahead", "not a planner file", "symbolic link", "not a regular file",
            "larger than", "1 line refused",
        ] {
            #expect(problems.contains(expected), "\(expected) in \(problems)")
        }
        #expect(!problems.contains(".syncthing.") && !problems.contains("planner-notes"))
        // The last line completed later (the engine delivered the rest): applied then.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: shared + "/" + SyncFileText.fileName(device: other, sequence: 1)))
        handle.seekToEndOfFile()
        handle.write(Data("\n".utf8))
        try handle.close()
        _ = try b.sync(now: at("2026-11-25T09:11"))
        #expect(try agreed(b).contains("skipped:2026-12-03"))
    }

    /// A database copied to a second machine: both would write as one device. The first to notice another
    /// writer in its files takes a new id; nothing is lost and both still converge.
    @Test func aCopiedDatabaseTakesANewIDWhenItSeesAnotherWriterInItsFiles() throws {
        let shared = folder()
        let a = try device(shared, name: "a", at: "2026-11-25T08:00")
        try a.configure(set: [(.title, "Before the copy")], reset: [], now: at("2026-11-25T09:00"))
        let copyPath = temporaryDatabasePath()
        try a.inspection.execute("VACUUM INTO '\(copyPath)'")
        let copy = try PlannerDatabase(path: copyPath)
        let id = try #require(try a.read({ try $0.selfDeviceID() }))
        #expect(try copy.read({ try $0.selfDeviceID() }) == id)
        try a.skip([date("2026-11-26")], reason: nil, now: at("2026-11-25T09:10"))
        try copy.skip([date("2026-11-27")], reason: nil, now: at("2026-11-25T09:20"))
        _ = try a.sync(now: at("2026-11-25T09:30"))
        _ = try copy.sync(now: at("2026-11-25T09:31"))
        _ = try a.sync(now: at("2026-11-25T09:32"))
        let ids = [try a.read({ try $0.selfDeviceID() }), try copy.read({ try $0.selfDeviceID() })]
        #expect(ids[0] != ids[1], "one of them took a new id")
        // The one that moved keeps the old id as another device's (its events stay theirs).
        #expect(try a.devices().contains { $0.id == id && !$0.isSelf } || copy.devices().contains { $0.id == id && !$0.isSelf })
        #expect(try agreed(a) == agreed(copy))
        #expect(try agreed(a).contains("skipped:2026-11-26") && agreed(a).contains("skipped:2026-11-27"))
    }

    /// N devices, random changes, every device receiving the others' files in its own random order,
    /// some twice and some as conflict copies, with clocks hours apart: the same shared state everywhere.
    @Test(arguments: [1, 2, 3, 4, 5]) func anyArrivalOrderConverges(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let count = 3
        let folders = (0..<count).map { _ in folder() }
        let skew: [Int64] = [0, -3 * 3_600_000, 2 * 3_600_000]
        var devices: [PlannerDatabase] = []
        for i in 0..<count { devices.append(try device(folders[i], name: "d\(i)", at: "2026-11-25T07:00")) }
        var clock = at("2026-11-25T08:00").milliseconds
        for _ in 0..<40 {
            clock += Int64.random(in: 1_000...600_000, using: &random)
            let i = Int.random(in: 0..<count, using: &random)
            let now = Instant(milliseconds: clock + skew[i])
            let db = devices[i]
            switch Int.random(in: 0..<8, using: &random) {
            case 0: try db.recordAppOpen(now: now)
            case 1: try db.configure(set: [(.title, "t\(Int.random(in: 0..<5, using: &random))")], reset: [], now: now)
            case 2: try db.configure(set: [], reset: [.title], now: now)
            case 3: try db.skip([date("2026-11-2\(Int.random(in: 6...9, using: &random))")], reason: nil, now: now)
            case 4: _ = try db.unskip([date("2026-11-2\(Int.random(in: 6...9, using: &random))")], now: now)
            case 5: try db.pause(now: now, until: Bool.random(using: &random) ? nil : now + 7_200_000)
            case 6:
                // Two identifiers, so that devices add the same one in turn; the times days ahead, never past.
                let fire = at("2026-11-27T10:00") + Int64.random(in: 0..<48, using: &random) * 1_800_000
                try db.add(
                    NewRequest(
                        identifier: "tea\(Int.random(in: 0..<2, using: &random))", fireAt: fire, title: "t\(i)",
                        body: Bool.random(using: &random) ? "" : "b \(clock)"), now: now, zone: seoul)
            default: _ = try db.resume(now: now)
            }
            // Now and then a device hears from another one (copies one of its files into its folder).
            if Int.random(in: 0..<3, using: &random) == 0 {
                let from = Int.random(in: 0..<count, using: &random)
                let to = Int.random(in: 0..<count, using: &random)
                try carry(
                    from: folders[from], to: folders[to], conflictCopy: Bool.random(using: &random),
                    own: try devices[to].read({ try $0.selfDeviceID() }))
                _ = try devices[to].sync(now: Instant(milliseconds: clock + skew[to]))
            }
        }
        // In the end everything reaches everyone, in a random order of folders, some files twice.
        for _ in 0..<2 {
            for to in (0..<count).shuffled(using: &random) {
                for from in (0..<count).shuffled(using: &random) where from != to {
                    try carry(
                        from: folders[from], to: folders[to], conflictCopy: false, own: try devices[to].read({ try $0.selfDeviceID() }))
                }
                _ = try devices[to].sync(now: Instant(milliseconds: clock + 60_000 + skew[to]))
            }
        }
        let states = try devices.map { try agreed($0) }
        #expect(states[0] == states[1] && states[1] == states[2], "\(states)")
    }

    /// Copies the planner files of `from` into `to`, as a sync engine would (a temporary name renamed into
    /// place), except the files `to`'s device writes itself; a conflict copy is a second name, same content.
    func carry(from: String, to: String, conflictCopy: Bool, own: String?) throws {
        guard from != to else { return }
        for name in try FileManager.default.contentsOfDirectory(atPath: from) where name.hasPrefix("planner-") && !name.contains("sync-conflict") {
            if let own, name.hasPrefix("planner-\(own)-") { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: from + "/" + name))
            let target = to + "/" + name
            try data.write(to: URL(fileURLWithPath: to + "/.syncthing." + name + ".tmp"))
            rename(to + "/.syncthing." + name + ".tmp", target)
            if conflictCopy {
                try data.write(
                    to: URL(fileURLWithPath: target.replacingOccurrences(of: ".events", with: ".sync-conflict-20261125-000000-XXXXXXX.events")))
            }
        }
    }
}
