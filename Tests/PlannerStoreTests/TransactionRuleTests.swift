import PlannerCore
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// Once a database is open, the planner's code prepares its statements inside a transaction: the store's
/// methods reach the connection only through the `Transaction` a `read`, `write` or `change` hands them (the
/// compiler's check), and `Connection.transactionsOnly` stops a debug build on a statement prepared outside
/// one by what is left (`outsideTransactions`, a `Transaction` kept past its closure). The runtime rule itself,
/// since a stop cannot be caught in-process.
@Suite struct TransactionRuleTests {
    @Test func thePlannersStatementsAreRefusedOutsideATransactionAndNowhereElse() throws {
        let db = try PlannerDatabase(path: temporaryDatabasePath())
        let c = db.inspection
        #expect(c.transactionsOnly)
        // The planner's own modules, outside a transaction: refused.
        for file: StaticString in ["PlannerStore/PlanStore.swift", "PlannerFolders/SyncFolder.swift", "PlannerTicker/Ticker.swift"] {
            #expect(!c.mayPrepare("SELECT value FROM setting", file), "\(file)")
        }
        // A PRAGMA (a checkpoint cannot run inside one), or a test inspecting the file between commands: allowed.
        #expect(c.mayPrepare("PRAGMA wal_checkpoint(TRUNCATE)", "PlannerTicker/TickerDatabase.swift"))
        #expect(c.mayPrepare("SELECT value FROM setting", "PlannerStoreTests/TransactionRuleTests.swift"))
        // Inside a read or a write: allowed.
        #expect(try db.read { _ in c.mayPrepare("SELECT value FROM setting", "PlannerStore/PlanStore.swift") })
        #expect(try db.write { _ in c.mayPrepare("SELECT value FROM setting", "PlannerStore/PlanStore.swift") })
    }
}
