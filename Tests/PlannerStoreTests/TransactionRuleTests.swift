import PlannerCore
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// Once a database is open, the planner's code prepares its statements inside a transaction
/// (`Connection.transactionsOnly`; a debug build stops on one prepared outside): the rule itself, since a
/// stop cannot be caught in-process. It found two reads outside one (Anki's last read before its copy, the
/// triggers named after a failed change).
@Suite struct TransactionRuleTests {
    @Test func thePlannersStatementsAreRefusedOutsideATransactionAndNowhereElse() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        let c = db.connection
        #expect(c.transactionsOnly)
        // The planner's own modules, outside a transaction: refused.
        for file: StaticString in ["PlannerStore/PlanStore.swift", "PlannerFolders/SyncFolder.swift", "PlannerTicker/Ticker.swift"] {
            #expect(!c.mayPrepare("SELECT value FROM setting", file), "\(file)")
        }
        // A PRAGMA (a checkpoint cannot run inside one), or a test inspecting the file between commands: allowed.
        #expect(c.mayPrepare("PRAGMA wal_checkpoint(TRUNCATE)", "PlannerTicker/TickerDatabase.swift"))
        #expect(c.mayPrepare("SELECT value FROM setting", "PlannerStoreTests/TransactionRuleTests.swift"))
        // Inside a read or a write: allowed.
        #expect(try db.read { c.mayPrepare("SELECT value FROM setting", "PlannerStore/PlanStore.swift") })
        #expect(try db.write { c.mayPrepare("SELECT value FROM setting", "PlannerStore/PlanStore.swift") })
    }
}
