import Foundation
import Testing
import Glibc
import PlannerCore
import PlannerSystem
import PlannerTestSupport
@testable import PlannerStore

/// The spool of opens saved while another program held the database (`OpenSpool`).
@Suite struct OpenSpoolTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }
    func entry(_ text: String, zone: String = "Asia/Seoul") -> OpenSpool.Entry {
        OpenSpool.Entry(openedAt: at(text), zoneName: zone, offsetSeconds: 32_400, graceMilliseconds: 900_000)
    }

    @Test func aSavedOpenIsOneLineThatReadsBackTheSame() {
        let e = entry("2026-11-23T10:10")
        #expect(e.text == "planner-open 1 1795396200000 32400 900000 Asia/Seoul\n")
        #expect(OpenSpool.Entry(text: e.text) == e)
        #expect(OpenSpool.Entry(text: "planner-open 1 1 0 0 America/Argentina/Buenos_Aires\n")?.zoneName == "America/Argentina/Buenos_Aires")
        for bad in ["", "planner-open 1 1795396200000 32400 900000 Asia/Seoul", "planner-open 2 1 0 0 UTC\n",
                    "planner-open 1 x 0 0 UTC\n", "planner-open 1 1 0 -5 UTC\n", "planner-open 1 1 0 0 \n", "hello\n"] {
            #expect(OpenSpool.Entry(text: bad) == nil, "\(bad)")
        }
    }

    @Test func anyWriteAppliesSavedOpensAtTheirOwnTimeThenRemovesTheSpool() throws {
        let path = temporaryDatabasePath()
        // A saved open closes the plan's day, in the plan's zone.
        let db = try PlannerDatabase(path: path, zoneForNewPlan: "Asia/Seoul")
        try db.refill(now: at("2026-11-23T08:00"), zone: seoul)
        try OpenSpool.save(entry("2026-11-23T10:10"), databasePath: path)
        try OpenSpool.save(entry("2026-11-23T09:40"), databasePath: path)
        var info = stat()
        #expect(lstat(path + ".opens", &info) == 0 && info.st_mode & 0o777 == 0o700)

        // `add` is a write like any other: the opens come first, in the order they happened.
        try db.add(NewRequest(identifier: "x", fireAt: at("2026-11-24T07:00"), title: "t", body: "b"),
                   now: at("2026-11-23T11:00"), zone: seoul)
        #expect(try db.connection.text("SELECT group_concat(local_time || '=' || cancelled, ' ') FROM (SELECT * FROM app_open ORDER BY id)")
            == "2026-11-23T09:40:00+09:00=25 2026-11-23T10:10:00+09:00=0")
        #expect(try db.connection.integer("SELECT count(*) FROM request WHERE local_date = '2026-11-23' AND state = 'pending'") == 0)
        #expect(access(path + ".opens", F_OK) != 0)
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
        #expect(FileManager.default.createFile(atPath: planted, contents: Data(entry("2026-11-23T10:10").text.utf8)))
        #expect(chown(path + ".opens", 65534, 65534) == 0)
        #expect(throws: PlannerError.self) { try OpenSpool.save(entry("2026-11-23T10:20"), databasePath: path) }
        try db.refill(now: at("2026-11-23T10:30"), zone: seoul)
        #expect(try db.connection.integer("SELECT count(*) FROM app_open") == 0)
        #expect(FileManager.default.fileExists(atPath: planted))
    }

    /// A link is never followed or moved; a file of ours that is not a saved open is set aside
    /// (`*.rejected`), so it is not read again and `status` can say so.
    @Test func aFileNotOursIsLeftAloneAndOneNotAnOpenIsSetAside() throws {
        let path = temporaryDatabasePath()
        let db = try PlannerDatabase(path: path)
        try OpenSpool.save(entry("2026-11-23T10:10"), databasePath: path)
        let folder = path + ".opens"
        #expect(FileManager.default.createFile(atPath: folder + "/junk.open", contents: Data("not an open\n".utf8)))
        #expect(symlink(folder + "/junk.open", folder + "/link.open") == 0)
        try db.refill(now: at("2026-11-23T10:30"), zone: seoul)
        #expect(try db.connection.integer("SELECT count(*) FROM app_open") == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["junk.open.rejected", "link.open"])
    }

    @Test func aDatabaseReachedThroughALinkSharesItsSpool() throws {
        let path = temporaryDatabasePath()
        let db = try PlannerDatabase(path: path)
        let link = path + "-link"
        #expect(symlink(path, link) == 0)
        let folder = try OpenSpool.save(entry("2026-11-23T10:10"), databasePath: link)
        #expect(folder == DatabaseFile.resolve(path) + ".opens")
        try db.refill(now: at("2026-11-23T10:30"), zone: seoul)
        #expect(try db.connection.integer("SELECT count(*) FROM app_open") == 1)
    }
}
