import Glibc
import PlannerCommands
import PlannerTestSupport
import Testing

/// Issue 49: `setup --uninstall` said "the database is kept" and kept the planner's private copy of the Anki
/// collection beside it too (as large as the collection). It goes with the rest; a file of the user's there
/// keeps the folder, said.
@Suite struct SetupAnkiCopyTests {
    func uninstall(_ files: [String]) throws -> (process: FakeProcess, copy: String) {
        let home = temporaryFolder()
        writeFile(home + "/.profile", "# mine\n")
        let process = FakeProcess(environment: ["HOME": home, "PATH": "/usr/bin:/bin", "TZ": "Asia/Seoul"])
        process.currentFolder = home
        process.answer = { $0.first == "systemctl" ? (1, "offline\n") : $0.first == "crontab" ? (0, "") : nil }
        let db = home + "/p.db"
        try SetupCommand.run(process.context, SetupCommand.Options(db: db, now: "2026-11-23T12:00", install: true), extras: SetupFactsTests.extras)
        let copy = db + ".anki-copy"
        try makeFolder(copy)
        for name in files { writeFile(copy + "/" + name, "x") }
        try SetupCommand.run(process.context, SetupCommand.Options(db: db, now: "2026-11-23T12:00", uninstall: true), extras: SetupFactsTests.extras)
        return (process, copy)
    }

    @Test func theAnkiCopyGoesWithTheRest() throws {
        let (process, copy) = try uninstall(["collection.anki2", "collection.anki2-wal", "lock", "collection.anki2.planner-tmp", "copied-from"])
        #expect(access(copy, F_OK) != 0)
        #expect(process.lines.contains("removed \(copy): the planner's private copy of the Anki collection"), "\(process.lines)")
    }

    @Test func aFileOfTheUsersKeepsTheFolder() throws {
        let (process, copy) = try uninstall(["collection.anki2", "notes.txt"])
        #expect(access(copy + "/notes.txt", F_OK) == 0 && access(copy + "/collection.anki2", F_OK) != 0)
        #expect(process.lines.contains("left \(copy): it holds files the planner did not write"), "\(process.lines)")
    }
}
