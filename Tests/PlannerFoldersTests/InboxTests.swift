import Foundation
import Glibc
import PlannerCore
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerFolders
@testable import PlannerStore

/// The inbox of events saved by other processes (opens saved while another program held the database).
@Suite struct InboxTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }
    func entry(_ text: String, zone: String = "Asia/Seoul") -> PlanEvent {
        PlanEvent(
            id: PlannerDatabase.newEventID(), at: at(text), origin: "open",
            change: .open(zoneName: zone, offsetSeconds: 32_400, graceMilliseconds: 900_000))
    }

    /// Files saved by planners before events (`planner-open 1 …`) are still read, as the opens they are.
    @Test func aFileSavedBeforeEventsIsReadAsItsOpen() {
        let open = Inbox.LegacyOpen(text: "planner-open 1 1795396200000 32400 900000 Asia/Seoul\n")
        #expect(
            open?.event(fileName: "001795396200000-12-ab.open")
                == PlanEvent(
                    id: "spooled-001795396200000-12-ab", at: Instant(milliseconds: 1_795_396_200_000), origin: "open",
                    change: .open(zoneName: "Asia/Seoul", offsetSeconds: 32_400, graceMilliseconds: 900_000)))
        #expect(
            Inbox.LegacyOpen(text: "planner-open 1 1 0 -1 America/Argentina/Buenos_Aires\n")?.event(fileName: "1-1-1.open").change
                == .open(zoneName: "America/Argentina/Buenos_Aires", offsetSeconds: 0, graceMilliseconds: nil))
        for bad in [
            "", "planner-open 1 1795396200000 32400 900000 Asia/Seoul", "planner-open 2 1 0 0 UTC\n",
            "planner-open 1 x 0 0 UTC\n", "planner-open 1 1 0 -5 UTC\n", "planner-open 1 1 0 0 \n", "hello\n",
        ] {
            #expect(Inbox.LegacyOpen(text: bad) == nil, "\(bad)")
        }
    }

    @Test func anyWriteAppliesSavedOpensAtTheirOwnTimeAndKeepsTheFolder() throws {
        let path = temporaryDatabasePath()
        // A saved open closes the plan's day, in the plan's zone.
        let db = try PlannerDatabase(path: path, zoneForNewPlan: "Asia/Seoul")
        try db.refill(now: at("2026-11-23T08:00"), zone: seoul)
        try Inbox.save(entry("2026-11-23T10:10"), databasePath: path)
        try Inbox.save(entry("2026-11-23T09:40"), databasePath: path)
        var info = stat()
        #expect(lstat(path + ".opens", &info) == 0 && info.st_mode & 0o777 == 0o700)

        // `add` is a write like any other: the opens come first, in the order they happened.
        try db.add(
            NewRequest(identifier: "x", fireAt: at("2026-11-24T07:00"), title: "t", body: "b"),
            now: at("2026-11-23T11:00"), zone: seoul)
        #expect(
            try db.inspection.text("SELECT group_concat(local_time || '=' || cancelled, ' ') FROM (SELECT * FROM app_open ORDER BY id)")
                == "2026-11-23T09:40:00+09:00=25 2026-11-23T10:10:00+09:00=0")
        #expect(try db.inspection.integer("SELECT count(*) FROM request WHERE local_date = '2026-11-23' AND state = 'pending'") == 0)
        // Emptied, not removed: a ticker watches it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: path + ".opens").isEmpty)
        // Applied once: a write after changes nothing.
        try db.refill(now: at("2026-11-23T11:30"), zone: seoul)
        #expect(try db.inspection.integer("SELECT count(*) FROM app_open") == 2)
        #expect(
            try db.inspection.text("SELECT group_concat(origin || ':' || (event_id IN (SELECT id FROM event)), ' ') FROM app_open") == "open:1 open:1"
        )
    }

    @Test(.enabled(if: getuid() == 0, "chown to another user needs root"))
    func aFolderThatIsNotOursIsNeitherReadNorWrittenThrough() throws {
        let path = temporaryDatabasePath()
        let db = try PlannerDatabase(path: path)
        try db.refill(now: at("2026-11-23T08:00"), zone: seoul)
        // Another user's folder where the spool goes.
        #expect(mkdir(path + ".opens", 0o777) == 0)
        chmod(path + ".opens", 0o777)
        let planted = path + ".opens/001795396200000-1-1.open"
        #expect(FileManager.default.createFile(atPath: planted, contents: Data(PlanEventText.line(entry("2026-11-23T10:10")).utf8)))
        #expect(chown(path + ".opens", 65534, 65534) == 0)
        #expect(throws: PlannerError.self) { try Inbox.save(entry("2026-11-23T10:20"), databasePath: path) }
        try db.refill(now: at("2026-11-23T10:30"), zone: seoul)
        #expect(try db.inspection.integer("SELECT count(*) FROM app_open") == 0)
        #expect(FileManager.default.fileExists(atPath: planted))
    }

    /// A link is never followed or moved; a file of ours that is not a saved open is set aside
    /// (`*.rejected`), so it is not read again and `status` can say so.
    @Test func aFileNotOursIsLeftAloneAndOneNotAnOpenIsSetAside() throws {
        let path = temporaryDatabasePath()
        let db = try PlannerDatabase(path: path)
        try Inbox.save(entry("2026-11-23T10:10"), databasePath: path)
        let folder = path + ".opens"
        #expect(FileManager.default.createFile(atPath: folder + "/junk.open", contents: Data("not an open\n".utf8)))
        #expect(symlink(folder + "/junk.open", folder + "/link.open") == 0)
        try db.refill(now: at("2026-11-23T10:30"), zone: seoul)
        #expect(try db.inspection.integer("SELECT count(*) FROM app_open") == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["junk.open.rejected", "link.open"])
    }

    @Test func aDatabaseReachedThroughALinkSharesItsSpool() throws {
        let path = temporaryDatabasePath()
        let db = try PlannerDatabase(path: path)
        let link = path + "-link"
        #expect(symlink(path, link) == 0)
        let folder = try Inbox.save(entry("2026-11-23T10:10"), databasePath: link)
        #expect(folder == DatabaseFile.resolve(path) + ".opens")
        try db.refill(now: at("2026-11-23T10:30"), zone: seoul)
        #expect(try db.inspection.integer("SELECT count(*) FROM app_open") == 1)
    }
}
