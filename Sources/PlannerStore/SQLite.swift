import CSQLite
import CSQLiteArena

/// An error from SQLite, with its extended result code and message.
package struct SQLiteError: Error, CustomStringConvertible {
    package var code: Int32
    package var message: String

    package var primaryCode: Int32 { code & 0xFF }
    package var description: String { "\(message) (SQLite code \(code))" }
}

/// Process-wide SQLite modes, chosen by the program before its first connection.
public enum SQLiteProcess {
    /// The planner binary has one thread, so SQLite's mutexes (8 % of `open`'s instructions,
    /// docs/benchmarks.md) guard nothing, and its small allocations can come from size classes kept without
    /// a lock (CSQLiteArena). Not for tests: their connections run on parallel threads.
    ///
    /// `arena: false` for a long-running process (the live ticker): the size classes keep what SQLite frees
    /// for SQLite alone, so an idle ticker could not give it back (`malloc_trim`); its memory counts there,
    /// a command's instructions here.
    public static func useOneThread(arena: Bool = true) {
        Connection.singleThreaded = true
        Connection.arena = arena
    }
}

/// One SQLite connection. Deliberately small: open, execute, prepare, transaction.
package final class Connection {
    package let handle: OpaquePointer

    package init(path: String, flags: Int32) throws(SQLiteError) {
        var db: OpaquePointer?
        _ = Connection.configured
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
    }

    /// Process-wide SQLite settings, applied once before the first connection.
    private static let configured: Void = {
        _ = csqlite_no_bulk_page_cache()
        _ = csqlite_no_memory_status()
        if singleThreaded {
            _ = csqlite_single_thread()
            if arena { _ = sqlite_arena_install() }
        }
    }()

    package nonisolated(unsafe) static var singleThreaded = false
    package nonisolated(unsafe) static var arena = false

    private var isClosed = false

    deinit { close() }

    package func close() {
        guard !isClosed else { return }
        isClosed = true
        kept = nil
        sqlite3_close_v2(handle)
    }

    /// Prepared statements kept for reuse, by their SQL text; nil: none kept (every command but the live
    /// ticker, which keeps them across the claim it makes just before a reminder is due and the claim at
    /// its time: preparing is three quarters of a claim's instructions, bench/TICK_RESULTS.md).
    private var kept: [String: Statement]?

    /// Set once the database is open (its migrations, PRAGMAs and checks done): from then on the planner's
    /// code prepares every statement inside a transaction (`PlannerDatabase.write`, `read`, `snapshot`), so that
    /// what one step reads is of the same moment as the next, and no read holds a snapshot between
    /// transactions. A debug build (the tests) stops on one prepared outside; a test's own inspection of the
    /// database between commands (a caller outside the planner's modules) is not the planner's and may.
    package var transactionsOnly = false

    /// Whether `caller` (a `#fileID`) may prepare `sql` now: see `transactionsOnly`. A PRAGMA acts on the
    /// connection or the file, not on a snapshot (a checkpoint cannot even run inside a transaction).
    package func mayPrepare(_ sql: String, _ caller: StaticString) -> Bool {
        guard transactionsOnly, sqlite3_get_autocommit(handle) != 0, !(sql.hasPrefix("PRAGMA ") && !sql.contains(";")) else { return true }
        let file = caller.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        return
            !(file.hasPrefix("PlannerStore/") || file.hasPrefix("PlannerFolders/") || file.hasPrefix("PlannerCommands/")
            || file.hasPrefix("PlannerTicker/") || file.hasPrefix("planner/"))
    }

    /// Starts keeping prepared statements, or stops and finalizes the kept ones (an idle ticker holds none).
    package func keepStatements(_ keep: Bool) {
        if !keep { kept = nil } else if kept == nil { kept = [:] }
    }

    /// Resets every kept statement: called as a transaction begins and ends, so none left mid-result (a
    /// one-row `integer`, say) holds a read snapshot across transactions.
    package func resetKeptStatements() {
        guard let kept else { return }
        for statement in kept.values { sqlite3_reset(statement.handle) }
    }

    package func lastError(_ rc: Int32) -> SQLiteError {
        // A file SQLite finds corrupt, or not a database, is refused as it is: closing would otherwise
        // checkpoint, writing the WAL's pages into it and deleting the WAL (a `-wal` left from the file
        // before a backup was put back would then damage the restored file for good).
        if rc & 0xFF == SQLITE_CORRUPT || rc & 0xFF == SQLITE_NOTADB { _ = csqlite_set_checkpoint_on_close(handle, 0) }
        return SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements that return no rows we need.
    package func execute(_ sql: String, caller: StaticString = #fileID) throws(SQLiteError) {
        assert(sql.hasPrefix("BEGIN") || mayPrepare(sql, caller), "\(caller) ran a statement outside a transaction: \(sql)")
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw lastError(rc) }
    }

    package func prepare(_ sql: String, caller: StaticString = #fileID) throws(SQLiteError) -> Statement {
        assert(mayPrepare(sql, caller), "\(caller) prepared a statement outside a transaction: \(sql)")
        if kept != nil, var statement = kept!.removeValue(forKey: sql) {
            // Reused only when nobody holds it (the same SQL may be stepping in an outer loop).
            let free = isKnownUniquelyReferenced(&statement)
            kept![sql] = statement
            if free {
                sqlite3_reset(statement.handle)
                sqlite3_clear_bindings(statement.handle)
                return statement
            }
        }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw lastError(rc) }
        let statement = Statement(connection: self, handle: stmt)
        if kept != nil, kept![sql] == nil { kept![sql] = statement }
        return statement
    }

    /// The first column of the first row of `sql` as an integer (for PRAGMAs and counts).
    package func integer(_ sql: String, _ bindings: SQLValue..., caller: StaticString = #fileID) throws(SQLiteError) -> Int64? {
        let stmt = try prepare(sql, caller: caller)
        try stmt.bind(bindings)
        return try stmt.step() ? stmt.int64(0) : nil
    }

    package func text(_ sql: String, _ bindings: SQLValue..., caller: StaticString = #fileID) throws(SQLiteError) -> String? {
        let stmt = try prepare(sql, caller: caller)
        if !bindings.isEmpty { try stmt.bind(bindings) }
        return try stmt.step() ? stmt.text(0) : nil
    }

    /// Every write goes through here: `BEGIN IMMEDIATE` takes the write lock up front, so a
    /// read-then-write transaction cannot fail half-way with SQLITE_BUSY (the busy timeout covers the wait).
    package func immediateTransaction<T>(_ body: () throws -> T) throws -> T {
        resetKeptStatements()
        defer { resetKeptStatements() }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }
}

package enum SQLValue {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case double(Double)
    case null
}

/// A prepared statement; finalized when released.
package final class Statement {
    unowned let connection: Connection
    package let handle: OpaquePointer

    package init(connection: Connection, handle: OpaquePointer) {
        self.connection = connection
        self.handle = handle
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds every parameter in order: user data never becomes SQL text.
    package func bind(_ values: [SQLValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        // Every parameter is bound again below; only those past the values given keep an old binding to clear.
        if values.count < sqlite3_bind_parameter_count(handle) { sqlite3_clear_bindings(handle) }
        var index: Int32 = 0
        for value in values {
            index += 1
            let rc: Int32
            switch value {
            case .integer(let n): rc = sqlite3_bind_int64(handle, index, n)
            case .text(var s):
                // The string's own UTF-8, up to its first NUL as a C string would end there: no C string made
                // (a first sync binds 80,000 texts). An empty one is bound from a literal: a nil pointer binds NULL.
                rc = s.withUTF8 { utf8 in
                    let count = utf8.firstIndex(of: 0) ?? utf8.count
                    guard count <= Int(Int32.max) else { return SQLITE_TOOBIG }  // as SQLite says of a C string as long
                    guard let base = utf8.baseAddress, count > 0 else { return sqlite3_bind_text(handle, index, "", 0, csqlite_transient()) }
                    return base.withMemoryRebound(to: CChar.self, capacity: count) {
                        sqlite3_bind_text(handle, index, $0, Int32(count), csqlite_transient())
                    }
                }
            case .blob(let b):
                rc = b.withUnsafeBytes {
                    sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), csqlite_transient())
                }
            case .double(let x): rc = sqlite3_bind_double(handle, index, x)
            case .null: rc = sqlite3_bind_null(handle, index)
            }
            guard rc == SQLITE_OK else { throw connection.lastError(rc) }
        }
    }

    /// Advances to the next row; false when done.
    package func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastError(rc)
        }
    }

    /// Binds, runs to completion and discards rows.
    package func run(_ values: SQLValue...) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let p = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: count))
    }
    package func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: p)
    }

    /// The column's text as SQLite holds it, valid until the next step: no String made (hashing it needs none).
    package func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let p = sqlite3_column_text(handle, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, column)))
    }
}
