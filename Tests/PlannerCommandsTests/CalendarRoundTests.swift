import Glibc
import PlannerCommands
import PlannerCore
import PlannerSystem
import PlannerTestSupport
import Testing

/// The calendar job's rounds as a user learns of them: a failed round is in `status` with what to do, a race
/// with another computer carrying the same calendar (HTTP 412) is tried again at once, and a server
/// calendar emptied by another computer's uninstall is filled again from this computer's folder — never
/// this folder emptied by the server. vdirsyncer here is a script that says what vdirsyncer 0.19 says.
@Suite struct CalendarRoundTests {
    struct Home {
        let home: String, db: String, folder: String, vdirsyncer: String, statusFile: String
        let process: FakeProcess
    }

    /// A database carrying a calendar folder (refilled: the folder holds the planner's items), vdirsyncer's
    /// config as contrib/vdirsyncer.config has it, its status file for the pair, and a fake vdirsyncer
    /// running `script` (with `$CALLS` the number of this call, from 1).
    func home(_ script: String) throws -> Home {
        let home = temporaryFolder()
        // Where contrib/vdirsyncer.config's planner_folder (~/.local/share/planner/calendars/) and its
        // collection put it.
        let folder = home + "/.local/share/planner/calendars/planner"
        for part in ["/.local", "/.local/share", "/.local/share/planner", "/.local/share/planner/calendars"] { try makeFolder(home + part) }
        let process = FakeProcess(environment: ["HOME": home, "PATH": "/usr/bin:/bin", "TZ": "Asia/Seoul"])
        let db = home + "/p.db"
        _ = try ConfigCommand.set(process.context, db: db, now: "2026-11-23T12:00", pairs: ["calendar-folder", folder])
        try makeFolder(home + "/.config")
        try makeFolder(home + "/.config/vdirsyncer")
        writeFile(home + "/.config/vdirsyncer/config", readFile(repositoryRoot() + "/contrib/vdirsyncer.config") ?? "")
        for part in ["/.local/share/vdirsyncer", "/.local/share/vdirsyncer/status", "/.local/share/vdirsyncer/status/planner"] {
            try makeFolder(home + part)
        }
        let statusFile = home + "/.local/share/vdirsyncer/status/planner/planner.items"
        writeFile(statusFile, "sqlite status\n")
        let vdirsyncer = home + "/vdirsyncer"
        writeFile(
            vdirsyncer,
            "#!/bin/sh\nCALLS=$(( $(cat \(home)/calls 2>/dev/null || echo 0) + 1 )); echo $CALLS > \(home)/calls\nSTATUS=\(statusFile)\n\(script)\n",
            mode: 0o755)
        return Home(home: home, db: db, folder: folder, vdirsyncer: vdirsyncer, statusFile: statusFile, process: process)
    }

    func calendarSync(_ h: Home, at time: String) throws(PlannerError) -> CalendarSyncCommand.Report {
        var options = CalendarSyncCommand.Options(db: h.db, now: time, vdirsyncer: h.vdirsyncer)
        options.raceDelayMilliseconds = 10...30
        return try CalendarSyncCommand.run(h.process.context, options)
    }

    func calls(_ h: Home) -> Int { Int((readFile(h.home + "/calls") ?? "0").split(separator: "\n").first ?? "0") ?? 0 }

    @Test func aFailedRoundIsInStatusWithWhatToDoUntilOneWorks() throws {
        let h = try home(
            """
            if [ $CALLS -le 2 ]; then echo "error: Unknown error occurred for planner/planner: Cannot connect to host 127.0.0.1:5232"; exit 1; fi
            """)
        let before = try StatusCommand.run(h.process.context, db: h.db, now: "2026-11-23T12:00")
        #expect(before.calendarRound == nil)
        #expect(try calendarSync(h, at: "2026-11-23T12:01").failure?.contains("Cannot connect") == true)
        #expect(try calendarSync(h, at: "2026-11-23T12:06").failure != nil)
        let failing = try StatusCommand.run(h.process.context, db: h.db, now: "2026-11-23T12:07")
        let round = try #require(failing.calendarRound)
        #expect(round.at == TestTime.seoul.at("2026-11-23T12:06"))
        #expect(round.failingSince == TestTime.seoul.at("2026-11-23T12:01"))
        let problem = try #require(failing.calendarProblems.first { $0.contains("calendar job") })
        #expect(problem.contains("at 2026-11-23 12:06, failed (failing since 2026-11-23 12:01)"), "\(problem)")
        #expect(problem.contains("Cannot connect") && problem.contains("the server did not answer"), "\(problem)")
        #expect(try calendarSync(h, at: "2026-11-23T12:11").failure == nil)
        let working = try StatusCommand.run(h.process.context, db: h.db, now: "2026-11-23T12:12")
        #expect(working.calendarRound == CalendarRound(at: TestTime.seoul.at("2026-11-23T12:11")))
        #expect(!working.calendarProblems.contains { $0.contains("calendar job") })
    }

    /// A round is bounded as a whole, not only each run: it stops starting runs once its time is spent, and
    /// says so, well before the ticker that started it stops it (whose limit is CalendarCarry's, 900 s).
    /// Before, three runs could follow each other (each up to 300 s) after each of three steps: 45 minutes.
    @Test func aRoundStopsStartingRunsOnceItsTimeIsSpent() throws {
        let h = try home(
            """
            sleep 1
            echo "error: Unknown error occurred for planner/planner: Precondition Failed (412)"; exit 1
            """)
        var options = CalendarSyncCommand.Options(db: h.db, now: "2026-11-23T12:01", vdirsyncer: h.vdirsyncer)
        options.raceDelayMilliseconds = 10...30
        options.roundLimitMilliseconds = 2_500
        let began = SystemClock.monotonicMilliseconds()
        let report = try CalendarSyncCommand.run(h.process.context, options)
        #expect(calls(h) == 2, "a run was started with less than a second of the round left")
        #expect(report.failure?.contains("the round took over 2 s") == true, "\(report.failure ?? "no failure")")
        #expect(SystemClock.monotonicMilliseconds() - began < 5_000)
        #expect(CalendarSyncCommand.Options().roundLimitMilliseconds < CalendarCarry.runLimitMilliseconds)
    }

    @Test func aFolderThatIsNotThereIsAFailedRoundToo() throws {
        let h = try home("exit 0")
        for name in filesBelow(h.folder) { unlink(h.folder + "/" + name) }
        #expect(rmdir(h.folder) == 0)
        #expect(throws: PlannerError.self) { try calendarSync(h, at: "2026-11-23T12:01") }
        let status = try StatusCommand.run(h.process.context, db: h.db, now: "2026-11-23T12:02")
        #expect(status.calendarRound?.failure?.contains("is not there") == true)
    }

    @Test func aRaceWithAnotherComputerIsTriedAgainAtOnce() throws {
        let h = try home(
            """
            if [ $CALLS -eq 1 ]; then echo "error: Unknown error occurred for planner/planner: Precondition Failed"; echo "Use \\`-vdebug\\` to see the full traceback."; exit 0; fi
            echo "info: Copying (updating) item planner-slot-x to planner_server/planner"
            """)
        let report = try calendarSync(h, at: "2026-11-23T12:01")
        #expect(report.failure == nil, "\(report.failure ?? "")")
        #expect(report.raced == 1)
        #expect(report.updated >= 1)
    }

    /// vdirsyncer listed an item another computer then removed (both rewrote the same series after a shared
    /// change): its fetch found nothing (HTTP 404). Run again, vdirsyncer sees it gone (scripts/first-week).
    @Test func anItemRemovedByAnotherComputerMeanwhileIsARaceToo() throws {
        let h = try home(
            """
            if [ $CALLS -eq 1 ]; then echo "error: Unknown error occurred for planner/planner: Not Found"; exit 1; fi
            echo "info: Copying (updating) item planner-series-0930 to planner_server/planner"
            """)
        let report = try calendarSync(h, at: "2026-11-23T12:01")
        #expect(report.failure == nil, "\(report.failure ?? "")")
        #expect(report.raced == 1)
        #expect(!CalendarRound.lostRace("error: Unknown error occurred for planner/planner: Unauthorized"))
    }

    @Test func aRaceLostThreeTimesIsAFailureThatSaysSo() throws {
        let h = try home(#"echo "error: Unknown error occurred for planner/planner: Precondition Failed"; exit 1"#)
        let report = try calendarSync(h, at: "2026-11-23T12:01")
        #expect(report.failure?.contains("Precondition Failed") == true)
        #expect(report.raced == 2 && calls(h) == 3)
        let status = try StatusCommand.run(h.process.context, db: h.db, now: "2026-11-23T12:02")
        #expect(status.calendarProblems.contains { $0.contains("another computer rewrote the same items") })
    }

    static let emptied =
        #"echo "error: planner/planner: Storage \"STORAGE/planner\" was completely emptied. If you want to delete ALL entries on BOTH sides, then use \`vdirsyncer sync --force-delete planner/planner\`. Otherwise delete the files for planner/planner in your status directory.""#

    @Test func aServerCalendarEmptiedElsewhereIsFilledAgainFromThisFolder() throws {
        let h = try home(
            """
            if [ -e "$STATUS" ]; then \(Self.emptied.replacingStorage("planner_server")); exit 0; fi
            echo "info: Copying (uploading) item planner-slot-a to planner_server/planner"
            echo "info: Copying (uploading) item planner-slot-b to planner_server/planner"
            """)
        let report = try calendarSync(h, at: "2026-11-23T12:01")
        #expect(report.failure == nil, "\(report.failure ?? "")")
        #expect(report.putBack == h.statusFile)
        #expect(report.copied >= 2)
        #expect(!fileExists(h.statusFile))
    }

    /// vdirsyncer syncs every pair of its config: a pair of the user's own whose server side was emptied on
    /// purpose (contacts) is never "recovered"; the planner's own pair still is when it is listed after it.
    @Test func anotherPairEmptiedOnPurposeIsLeftAsVdirsyncerSaid() throws {
        let contacts = "CONTACTS"
        let h = try home(
            """
            if [ -e "$STATUS" ]; then \(Self.emptied.replacingStorage("contacts_remote").replacingPair("contacts/default")); \(Self.emptied.replacingStorage("planner_server")); exit 0; fi
            echo "info: Copying (uploading) item planner-slot-a to planner_server/planner"
            """)
        let config = h.home + "/.config/vdirsyncer/config"
        writeFile(
            config,
            (readFile(config) ?? "")
                + "\n[pair contacts]\na = \"contacts_local\"\nb = \"contacts_remote\"\ncollections = [\"default\"]\n\n[storage contacts_local]\ntype = \"filesystem\"\npath = \"~/.contacts/\"\nfileext = \".vcf\"\n\n[storage contacts_remote]\ntype = \"carddav\"\nurl = \"https://dav.example.com/\"\n"
        )
        try makeFolder(h.home + "/.local/share/vdirsyncer/status/contacts")
        let contactsStatus = h.home + "/.local/share/vdirsyncer/status/contacts/default.items"
        writeFile(contactsStatus, contacts)
        let report = try calendarSync(h, at: "2026-11-23T12:01")
        #expect(report.putBack == h.statusFile, "\(report)")
        #expect(fileExists(contactsStatus), "the contacts pair's status was removed")
    }

    @Test func thisFolderEmptiedIsNeverTakenForTheTruth() throws {
        let h = try home("if [ -e \"$STATUS\" ]; then \(Self.emptied.replacingStorage("planner_folder")); exit 0; fi")
        let report = try calendarSync(h, at: "2026-11-23T12:01")
        #expect(report.failure?.contains("was completely emptied") == true)
        #expect(report.putBack == nil)
        #expect(fileExists(h.statusFile))
    }

    @Test func anEmptiedServerIsNotFilledFromAFolderWithoutThePlannersItems() throws {
        let h = try home("if [ -e \"$STATUS\" ]; then \(Self.emptied.replacingStorage("planner_server")); exit 0; fi")
        for name in filesBelow(h.folder) { unlink(h.folder + "/" + name) }
        let report = try calendarSync(h, at: "2026-11-23T12:01")
        #expect(report.failure?.contains("was completely emptied") == true)
        #expect(fileExists(h.statusFile))
    }

    @Test func vdirsyncersConfigAsShippedIsRead() throws {
        let config = try #require(VdirsyncerConfig(readFile(repositoryRoot() + "/contrib/vdirsyncer.config") ?? ""))
        #expect(config.statusPath == "~/.local/share/vdirsyncer/status/")
        #expect(config.storageTypes == ["planner_folder": "filesystem", "planner_server": "caldav"])
        #expect(config.storagePaths["planner_folder"] == "~/.local/share/planner/calendars/")
        #expect(config.pairs["planner"].map { [$0.a, $0.b] } == ["planner_folder", "planner_server"])
        #expect(VdirsyncerConfig("[general]\nstatus_path = \"a\\\"b\"\n")?.statusPath == "a\"b")
        #expect(VdirsyncerConfig("[general\n") == nil)
    }

    @Test func aRoundLineFromANewerPlannerOrJunkIsReadSafely() {
        let round = CalendarRound(at: Instant(milliseconds: 5), failure: "x\u{1B}[2J y", failingSince: Instant(milliseconds: 1))
        let read = CalendarRound(bytes: Array((round.line + "tail of an older line\n").utf8)[...])
        #expect(read?.failure == "x [2J y" || read?.failure?.contains("\u{1B}") == false)
        #expect(read?.failingSince == Instant(milliseconds: 1))
        #expect(CalendarRound(bytes: Array("planner-calendar-round 1 at=7 more=1\n".utf8)[...]) == CalendarRound(at: Instant(milliseconds: 7)))
        #expect(CalendarRound(bytes: Array("planner-calendar-round 1 at=-1\n".utf8)[...]) == nil)
        #expect(CalendarRound(bytes: Array("\0\0\0".utf8)[...]) == nil)
        // A failure as long as a deep folder's path, spaces escaped three bytes each: still one line the
        // reader's 4 KiB hold.
        let long = CalendarRound.after(nil, at: Instant(milliseconds: 9), failure: String(repeating: "a b ", count: 2000))
        #expect(long.line.utf8.count < 4000)
        #expect(CalendarRound(bytes: Array(long.line.utf8)[...])?.failure?.hasPrefix("a b a b") == true)
    }
}

extension String {
    fileprivate func replacingStorage(_ name: String) -> String {
        split(separator: "STORAGE", omittingEmptySubsequences: false).joined(separator: name)
    }

    fileprivate func replacingPair(_ name: String) -> String {
        split(separator: "planner/planner", omittingEmptySubsequences: false).joined(separator: name)
    }
}

/// The repository's root (this file is Tests/PlannerCommandsTests/…).
private func repositoryRoot(_ file: String = #filePath) -> String {
    var parts = file.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}
