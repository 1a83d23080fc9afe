import CSQLite
import PlannerCore
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// The live ticker keeps its prepared statements between the claim just before a reminder is due and the claim
/// at its time (`Connection.keepStatements`): a kept statement is reused only when nobody holds it, and one
/// left mid-result never holds an old snapshot into the next transaction.
@Suite struct KeptStatementTests {
    func connection(_ path: String) throws -> Connection {
        let c = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try c.execute("PRAGMA journal_mode = WAL")
        return c
    }

    @Test func aKeptStatementIsReusedOnlyWhenFree() throws {
        let c = try connection(temporaryDatabasePath())
        c.keepStatements(true)
        var handle: OpaquePointer?
        do {
            let first = try c.prepare("SELECT 1")
            handle = first.handle
            #expect(try first.step())
            // `first` is still held here: the same SQL gets a statement of its own.
            let second = try c.prepare("SELECT 1")
            #expect(second.handle != handle)
        }
        // Once released, the kept one comes back, reset.
        let again = try c.prepare("SELECT 1")
        #expect(again.handle == handle)
        #expect(try again.step() && again.int64(0) == 1)
        c.keepStatements(false)
    }

    @Test func aStatementLeftMidResultHoldsNoSnapshotIntoTheNextTransaction() throws {
        let path = temporaryDatabasePath()
        let ticker = try connection(path)
        try ticker.execute("CREATE TABLE t (x INTEGER)")
        try ticker.execute("INSERT INTO t VALUES (1), (2)")
        ticker.keepStatements(true)
        // A one-row read, as `integer` does: stepped once, never to its end, then released.
        let count = try ticker.immediateTransaction { try ticker.integer("SELECT x FROM t ORDER BY x") }
        #expect(count == 1)
        let other = try connection(path)
        try other.execute("INSERT INTO t VALUES (0)")
        // The next transaction sees the other connection's row, and may write.
        let seen = try ticker.immediateTransaction { () throws -> Int64? in
            try ticker.execute("INSERT INTO t VALUES (3)")
            return try ticker.integer("SELECT x FROM t ORDER BY x")
        }
        #expect(seen == 0)
    }
}

/// `planner status` reads in one transaction (`PlannerDatabase.snapshot`): every store read inside it sees
/// the database as it was at the first, whatever another process commits between two of them.
@Suite struct SnapshotTests {
    @Test func readsInsideASnapshotSeeOneMoment() throws {
        let path = temporaryDatabasePath()
        let reader = try PlannerDatabase(path: path)
        let writer = try PlannerDatabase(path: path)
        let collection = "/nowhere/collection.anki2"
        func problem(_ text: String) throws {
            try writer.inspection.execute(
                "INSERT INTO anki_read (collection, problem, read_at_ms) VALUES ('\(collection)', '\(text)', 1) "
                    + "ON CONFLICT (collection) DO UPDATE SET problem = excluded.problem")
        }
        try problem("first")
        let seen = try reader.snapshot { () throws(PlannerError) -> [String?] in
            let before = try reader.ankiProblem(collection: collection)
            try? problem("second")  // another process commits between two reads
            let after = try reader.ankiProblem(collection: collection)
            return [before, after, try reader.ankiFreshness(collection: collection).synced.map { "\($0)" }]
        }
        #expect(seen[0] == "the Anki collection \(collection) first" && seen[1] == seen[0], "\(seen)")
        // Outside it, the next read sees the commit.
        #expect(try reader.ankiProblem(collection: collection) == "the Anki collection \(collection) second")
    }
}
