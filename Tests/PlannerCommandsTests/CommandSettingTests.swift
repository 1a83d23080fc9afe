import PlannerCommands
import PlannerCore
import PlannerStore
import PlannerSystem
import PlannerTestSupport
import Testing

/// Zone, clock and database path come from the context: its environment and its clock, never this
/// process's own.
@Suite struct CommandSettingTests {
    @Test func openRecordsTheOpenAtTheEnvironmentsTimeInItsZone() throws {
        let db = temporaryDatabasePath()
        // The fake clock says 2031; PLANNER_NOW (a wall time read in TZ) must win over it.
        let process = FakeProcess(
            environment: ["TZ": "America/New_York", "PLANNER_NOW": "2026-11-23T10:10", "PLANNER_DB": db],
            now: TestTime.seoul.at("2031-01-01T00:00"))
        let outcome = try OpenCommand.run(process.context, PlanCommandOptions())
        guard case .applied(let decision, nil) = outcome else {
            Issue.record("not applied: \(outcome)")
            return
        }
        let newYork = try SystemZone.named("America/New_York")
        let instant = try parseTime("2026-11-23T10:10", in: newYork)
        #expect(decision.date == LocalDate(iso: "2026-11-23"))
        // A new plan takes TZ's zone, and the open is recorded at that instant.
        let database = try PlannerDatabase(path: db, forWriting: false, zoneForNewPlan: nil)
        #expect(try database.planSettings().zone.name == "America/New_York")
        #expect(try database.status(now: instant, zone: newYork).firstOpenToday == instant)
        #expect(process.lines.isEmpty && process.notices.isEmpty)
    }

    @Test func withoutNowTheContextsClockIsNow() throws {
        let process = FakeProcess(
            environment: ["TZ": "Asia/Seoul", "PLANNER_DB": "/x/p.db"],
            now: TestTime.seoul.at("2027-03-04T05:06:07"))
        let setting = try process.context.resolveSetting(db: nil, now: nil)
        #expect(setting.now == TestTime.seoul.at("2027-03-04T05:06:07"))
        #expect(setting.path == "/x/p.db")
        #expect(setting.zone.name == "Asia/Seoul")
        #expect(setting.zoneForNewPlan == "Asia/Seoul")
        // --now beats PLANNER_NOW, and is read in TZ's zone.
        process.environment["PLANNER_NOW"] = "2026-01-01T00:00"
        #expect(try process.context.resolveSetting(db: nil, now: "2026-11-23T09:30Z").now == TestTime.seoul.at("2026-11-23T18:30"))
    }

    @Test func theDatabaseIsFoundFromTheContextsHomeAndXDGFolders() throws {
        let home = temporaryFolder()
        let process = FakeProcess(environment: ["HOME": home])
        #expect(try process.context.resolveSetting(db: nil, now: nil).path == home + "/.local/share/planner/planner.db")
        #expect(try process.context.resolveSetting(db: nil, now: nil).zoneForNewPlan == nil)
        process.environment["XDG_DATA_HOME"] = home + "/data"
        #expect(try process.context.resolveSetting(db: nil, now: nil).path == home + "/data/planner/planner.db")
        process.environment["PLANNER_DB"] = home + "/env.db"
        #expect(try process.context.resolveSetting(db: nil, now: nil).path == home + "/env.db")
        #expect(try process.context.resolveSetting(db: "given.db", now: nil).path == "given.db")
    }

    @Test func aBadPlannerNowIsAUsageErrorAndNoFileIsMade() throws {
        let db = temporaryDatabasePath()
        let process = FakeProcess(environment: ["TZ": "Asia/Seoul", "PLANNER_NOW": "yesterday", "PLANNER_DB": db])
        let error = #expect(throws: PlannerError.self) { try process.context.resolveSetting(db: nil, now: nil) }
        #expect(error?.kind == .usage)
        #expect(error?.message.hasPrefix("PLANNER_NOW: ") == true, "\(error?.message ?? "")")
        #expect(throws: PlannerError.self) { try OpenCommand.run(process.context, PlanCommandOptions()) }
        #expect(!fileExists(db))
    }

    @Test func anUnknownTZIsAUsageError() throws {
        let process = FakeProcess(environment: ["TZ": "Mars/Olympus_Mons", "PLANNER_DB": "/x/p.db"])
        let error = #expect(throws: PlannerError.self) { try process.context.resolveSetting(db: nil, now: nil) }
        #expect(error?.kind == .usage)
        #expect(error?.message.contains("Mars/Olympus_Mons") == true)
    }
}
