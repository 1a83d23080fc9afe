import PlannerCore
import PlannerStore
import PlannerTestSupport
import Testing

@testable import PlannerFolders

/// The folder deadline and the memory of a stall belong to one run (a command, a live ticker), handed to
/// the database that runs it, not to the process: two in-process commands each keep their own.
@Suite struct FolderTimingTests {
    @Test func theEnvironmentsValueIsReadOrRefused() throws {
        #expect(try FolderTiming.reading(nil).get().deadlineMilliseconds == 600)
        #expect(try FolderTiming.reading("").get().deadlineMilliseconds == 600)
        #expect(try FolderTiming.reading("1500").get().deadlineMilliseconds == 1500)
        for bad in ["99", "60001", "1.5", "x", " 600", "-600"] {
            guard case .failure(let error) = FolderTiming.reading(bad) else {
                Issue.record("\(bad) was taken")
                continue
            }
            #expect(error.kind == .usage && error.message.hasPrefix("PLANNER_FOLDER_DEADLINE_MS must be whole milliseconds"), "\(bad)")
        }
    }

    @Test func aStallShortensOnlyItsOwnRunsWaits() {
        let stalled = FolderTiming(deadlineMilliseconds: 1500)
        let other = FolderTiming(deadlineMilliseconds: 1500)
        #expect(stalled.limit == 1500 && stalled.lockWaitMilliseconds == 290)
        stalled.stalled()
        #expect(stalled.limit == FolderTiming.stalledDeadlineMilliseconds && stalled.lockWaitMilliseconds == 50)
        #expect(other.limit == 1500)
    }

    @Test func theDatabaseKeepsItsOpenersTiming() throws {
        let timing = FolderTiming(deadlineMilliseconds: 2000)
        let db = try PlannerDatabase(path: temporaryDatabasePath(), folderTiming: timing)
        #expect(db.folderTiming === timing)
        #expect(try PlannerDatabase(path: temporaryDatabasePath()).folderTiming.deadlineMilliseconds == 600)
    }
}
