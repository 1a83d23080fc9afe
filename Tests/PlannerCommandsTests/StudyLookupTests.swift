import PlannerCommands
import PlannerCore
import PlannerStore
import PlannerTestSupport
import Testing

/// `study` finds its program on the context's PATH, as a shell would, and refuses before recording the
/// open a name it cannot run (127) or a file that is no program (126).
@Suite struct StudyLookupTests {
    /// Two PATH folders: `first` with `lesson` (a #! script), `notes` (executable, but plain text) and
    /// `readme` (not executable); `second` with another `lesson` and an ELF-less `anki` script.
    static func folders() -> (first: String, second: String) {
        let first = temporaryFolder()
        let second = temporaryFolder()
        writeFile(first + "/lesson", "#!/bin/sh\nexit 0\n", mode: 0o755)
        writeFile(first + "/notes", "just some words\n", mode: 0o755)
        writeFile(first + "/readme", "#!/bin/sh\n", mode: 0o644)
        writeFile(second + "/lesson", "#!/bin/sh\nexit 1\n", mode: 0o755)
        writeFile(second + "/anki", "#!/bin/sh\n", mode: 0o755)
        return (first, second)
    }

    @Test func theContextsPathIsSearchedInOrder() throws {
        let (first, second) = Self.folders()
        #expect(try StudyProgram.find("lesson", path: "\(first):\(second)") == first + "/lesson")
        #expect(try StudyProgram.find("lesson", path: "\(second):\(first)") == second + "/lesson")
        #expect(try StudyProgram.find("anki", path: "\(first):\(second)") == second + "/anki")
        // A file without execute permission is passed over, as a shell does.
        writeFile(second + "/readme", "#!/bin/sh\n", mode: 0o755)
        #expect(try StudyProgram.find("readme", path: "\(first):\(second)") == second + "/readme")
    }

    @Test func aProgramOnlyOnThisProcesssPathIsNotFound() {
        let (first, _) = Self.folders()
        // /bin/sh exists, but not on the context's PATH.
        let error = #expect(throws: PlannerError.self) { try StudyProgram.find("sh", path: first) }
        #expect(error?.kind == .programNotFound)
        #expect(error?.message == "cannot run 'sh': not found on PATH")
    }

    @Test func aFileThatIsNoProgramIs126AndAMissingOne127() {
        let (first, _) = Self.folders()
        let notAProgram = #expect(throws: PlannerError.self) { try StudyProgram.find("notes", path: first) }
        #expect(notAProgram?.kind == .programNotRunnable)
        #expect(notAProgram?.message.contains("not a program") == true)
        let missing = #expect(throws: PlannerError.self) { try StudyProgram.find("nothing-here", path: first) }
        #expect(missing?.kind == .programNotFound)
        let notExecutable = #expect(throws: PlannerError.self) { try StudyProgram.find(first + "/readme", path: first) }
        #expect(notExecutable?.kind == .programNotFound)
    }

    @Test func aRefusedProgramRecordsNothingAndAFoundOneRecordsTheOpen() throws {
        let (first, _) = Self.folders()
        let db = temporaryDatabasePath()
        let process = FakeProcess(environment: ["TZ": "Asia/Seoul", "PLANNER_DB": db, "PATH": first])
        let refused = #expect(throws: PlannerError.self) {
            try StudyCommand.run(process.context, db: nil, now: "2026-11-23T10:10", command: ["notes"])
        }
        #expect(refused?.kind == .programNotRunnable)
        #expect(!fileExists(db))

        let launch = try StudyCommand.run(process.context, db: nil, now: "2026-11-23T10:10", command: ["lesson", "--today"])
        #expect(launch?.program == first + "/lesson")
        #expect(launch?.words == ["lesson", "--today"])
        let openedAt = TestTime.seoul.at("2026-11-23T10:10")
        let database = try PlannerDatabase(path: db, forWriting: false, zoneForNewPlan: nil)
        #expect(try database.status(now: openedAt, zone: TestTime.seoul.zone).firstOpenToday == openedAt)
        #expect(process.notices.isEmpty)
    }

    @Test func noProgramAtAllRecordsTheOpenAndSaysHowToSetOne() throws {
        let db = temporaryDatabasePath()
        let process = FakeProcess(environment: ["TZ": "Asia/Seoul", "PLANNER_DB": db, "PATH": temporaryFolder()])
        #expect(try StudyCommand.run(process.context, db: nil, now: "2026-11-23T10:10", command: []) == nil)
        #expect(
            process.notices == [
                "planner study: recorded the open; no study program to run: set one with planner config set study-command PROGRAM, or give it after --"
            ])
    }
}
