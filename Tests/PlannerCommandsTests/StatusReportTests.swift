import PlannerCommands
import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerTestSupport
import Testing

/// `status` as a value: what the inbox holds, counted, and whether TZ names another zone than the plan's.
@Suite struct StatusReportTests {
    @Test func opensSavedInTheInboxAreCountedAndTodaysFirstIsNamed() throws {
        let db = temporaryDatabasePath()
        _ = try refilledPlan(at: "2026-11-23T08:00", path: db)
        let seoul = TestTime.seoul
        for time in ["2026-11-22T21:00", "2026-11-23T10:40", "2026-11-23T10:10"] {
            let event = PlannerDatabase.openEvent(now: seoul.at(time), takenIn: seoul.zone, policy: nil, origin: "open")
            _ = try Inbox.save(event, databasePath: db)
        }
        let process = FakeProcess(environment: ["TZ": "Asia/Seoul", "PLANNER_DB": db])
        let report = try StatusCommand.run(process.context, db: nil, now: "2026-11-23T12:00")
        let inbox = try #require(report.inbox)
        #expect(inbox.folder == db + ".opens")
        #expect(inbox.opensWaiting == 3)
        #expect(inbox.othersWaiting == 0)
        #expect(inbox.firstOpenTodayWaiting == seoul.at("2026-11-23T10:10"))
        #expect(inbox.setAside == 0 && inbox.ignored == 0)
        #expect(report.status.firstOpenToday == nil)
        #expect(report.status.pendingCount == 64)
        #expect(report.otherEnvironmentZone == nil)
        #expect(report.databasePath == db)
        #expect(process.lines.isEmpty)
    }

    @Test func anEmptyInboxIsNoneAndAnotherTZIsNamed() throws {
        let db = temporaryDatabasePath()
        _ = try refilledPlan(at: "2026-11-23T08:00", path: db)
        let process = FakeProcess(environment: ["TZ": "Europe/Berlin", "PLANNER_DB": db])
        let report = try StatusCommand.run(process.context, db: nil, now: "2026-11-23T04:00")
        #expect(report.inbox == nil)
        #expect(report.zone.name == "Asia/Seoul")
        #expect(report.otherEnvironmentZone == "Europe/Berlin")
        // --now is read in TZ's zone (Berlin), the report is in the plan's.
        #expect(report.now == TestTime.seoul.at("2026-11-23T12:00"))
    }
}
