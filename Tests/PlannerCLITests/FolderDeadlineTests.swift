import PlannerHarness
import Testing

/// `PLANNER_FOLDER_DEADLINE_MS` is read from the run's own environment (`RunContext.folderTiming`), not the
/// process's: an in-process command with a bad value is refused as the binary refuses it, and one beside it
/// without the variable runs.
@Suite struct FolderDeadlineTests {
    @Test func theRunsOwnEnvironmentSetsTheDeadline() throws {
        let h = try Harness()
        let refused = try h.planner(["status", "--db", h.db], env: ["PLANNER_FOLDER_DEADLINE_MS": "50"])
        #expect(refused.status == 64)
        #expect(refused.err.hasPrefix("error: PLANNER_FOLDER_DEADLINE_MS must be whole milliseconds from 100 to 60000"), "\(refused.err)")
        let taken = try h.planner(["refill", "--db", h.db], env: ["PLANNER_FOLDER_DEADLINE_MS": "1500"])
        #expect(taken.status == 0, "\(taken.err)")
        #expect(try h.planner(["status", "--db", h.db]).status == 0)
    }
}
