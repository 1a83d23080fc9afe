import CSQLite
import Glibc
import PlannerCore
import PlannerSystem

/// The planner's SQLite database: opened, checked and migrated before any command uses it.
public final class PlannerDatabase {
    /// Opens from Anki's review log applied by one transaction of a command (twenty years of daily study
    /// are 7,300): each slice holds the database for tens of milliseconds, not the whole history's time.
    public static let ankiOpensPerSlice = 1_000
    /// PRAGMA application_id of every planner database: "PLNR" in ASCII.
    public static let applicationID: Int32 = 0x504C_4E52
    public static var schemaVersion: Int32 { Migrations.latestVersion }
    /// How long a command waits for another process's write before giving up (SQLITE_BUSY).
    public static let busyTimeoutMilliseconds: Int32 = 10_000

    /// The path as given, for messages.
    public let path: String
    /// The file itself, symbolic links resolved: SQLite keeps the WAL beside it, so the ticker watches
    /// and locks this one (a ticker started through a link and one through the real path are the same).
    public let resolvedPath: String
    /// Reached through a `Transaction` (`write`, `read`, `change`), the only way the store's methods get
    /// a statement, and here (opening, PRAGMAs, checkpoints: `outsideTransactions`).
    private let connection: Connection
    /// Declared settings the last read of the plan found no row for.
    package var missingSettingKeys: [SettingKey] = []

    /// Where this database's warnings go (a command's stderr, a ticker's log), each once: the opener's.
    public let warnings: Warnings
    /// The sources of its changes (`EventSources`): the opener's.
    package let sourceMaker: SourceMaker

    package func warnOnce(_ message: String) { warnings.once(message) }

    /// Opens (creating or migrating when needed) the database at `path`.
    /// A file that is not a planner database is refused before anything is written to it.
    /// `forWriting: false` (list, status, history) still reads a database the user cannot write.
    /// `zoneForNewPlan`: the `zone` setting a new plan starts with (the creating command's `TZ`).
    /// `sources`: what each kind of change reads and writes besides the database (PlannerFolders' public
    /// initializer gives its folders).
    package init(
        path: String, busyTimeoutMilliseconds: Int32 = PlannerDatabase.busyTimeoutMilliseconds,
        forWriting: Bool = true, zoneForNewPlan: String? = nil, warnings: Warnings = Warnings(), sources: SourceMaker
    ) throws(PlannerError) {
        self.path = path
        self.warnings = warnings
        sourceMaker = sources
        let existing = try DatabaseFile.inspect(path)
        // On a read-only file system a reading command reads the file as it is (immutable: no -wal or -shm
        // can be made there, and nothing can change it); a writing one is told why it cannot.
        if case .sqlite = existing, DatabaseFile.isOnReadOnlyFileSystem(path) {
            guard !forWriting else {
                throw .io(
                    "cannot write the database \(path): its file system is mounted read-only; remount it read-write (or copy the database elsewhere and use --db)"
                )
            }
            resolvedPath = DatabaseFile.resolve(path)
            do {
                let wal = resolvedPath + "-wal"
                var info = stat()
                // A -wal left there holds changes the file alone does not: read through it (SQLite can when
                // its -shm is there too); else the file itself.
                connection =
                    stat(wal, &info) == 0 && info.st_size > 0
                    ? try Connection(path: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX)
                    : try Connection(path: DatabaseFile.immutableURI(path), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI)
            } catch {
                throw Self.translate(error, path: path)
            }
            csqlite_set_checkpoint_on_close(connection.handle, 0)
            do {
                try checkOwnership()
                guard (try connection.integer("PRAGMA user_version") ?? 0) >= Migrations.latestVersion else {
                    throw PlannerError.io(
                        "the database \(path) needs an upgrade for this planner, which cannot be written on a read-only file system: remount it read-write"
                    )
                }
            } catch {
                throw Self.plannerError(error, path: path)
            }
            connection.transactionsOnly = true
            return
        }
        if case .sqlite(let header) = existing {
            try Self.checkHeader(header, path: path)
        } else {
            try DatabaseFile.create(path)
        }
        // Refused before SQLite opens it: a write that fails inside SQLite leaves a `-wal` and a `-shm`
        // with the database's read-only mode behind.
        if forWriting, !DatabaseFile.isWritable(path) { throw Self.readOnly(path) }
        resolvedPath = DatabaseFile.resolve(path)
        let walBytes = try DatabaseFile.checkCompanions(of: resolvedPath)
        do {
            connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        } catch {
            throw Self.translate(error, path: path)
        }
        sqlite3_busy_timeout(connection.handle, busyTimeoutMilliseconds)
        csqlite_set_checkpoint_on_close(connection.handle, 0)
        do {
            try checkOwnership()
            // A reading command (`status`, `list`) folds a WAL back into the file as it closes only when it
            // found none (the close then just removes the `-wal` and `-shm` it made): one it found stays as it
            // is, whatever it holds (a `-wal` left from the file before a backup was put back is only read,
            // never written into the restored file). The next command that writes folds it in.
            csqlite_set_checkpoint_on_close(connection.handle, forWriting || walBytes == 0 ? 1 : 0)
            try switchToWAL(waitingUpTo: busyTimeoutMilliseconds)
            // FULL: a committed transaction (a delivery claim, an open) survives a power cut. The WAL keeps its
            // length between commits (the live ticker copies it back without truncating: docs/internals.md);
            // a burst that made it longer than 1 MiB is cut back to that when the log next starts over.
            try connection.execute("PRAGMA synchronous = FULL; PRAGMA journal_size_limit = 1048576")
            try migrate(zoneForNewPlan: zoneForNewPlan)
            DatabaseFile.makePrivate(resolvedPath)
        } catch {
            throw Self.plannerError(error, path: path)
        }
        connection.transactionsOnly = true
    }

    /// Cheap refusal from the raw header (someone else's or a newer planner's file).
    package static func checkHeader(_ header: [UInt8], path: String) throws(PlannerError) {
        let applicationID = Int32(bitPattern: DatabaseFile.bigEndian(header, 68, 4))
        let userVersion = Int32(bitPattern: DatabaseFile.bigEndian(header, 60, 4))
        if applicationID != 0 && applicationID != Self.applicationID {
            throw foreign(path)
        }
        if applicationID == Self.applicationID && userVersion > Migrations.latestVersion {
            throw newer(path, userVersion)
        }
    }

    /// The authoritative check, through SQLite (sees WAL content too), before any write.
    private func checkOwnership() throws {
        // One read transaction, so one snapshot: read apart, a new file's id could be read before another
        // process's migration committed and its tables after ("belongs to another program", "changed by hand").
        try connection.execute("BEGIN")
        defer { _ = sqlite3_exec(connection.handle, "ROLLBACK", nil, nil, nil) }
        let (applicationID, userVersion, objects, cookie) = try identityRow()
        if applicationID == Self.applicationID {
            if userVersion > Migrations.latestVersion { throw Self.newer(path, userVersion) }
            // SQLite adds one to the schema cookie at every change of the schema, so a file whose cookie is
            // exactly what migrations 1…version leave has had no other change (only `PRAGMA schema_version`
            // or `writable_schema`, both documented as ways to corrupt a file, could hide one): the
            // fingerprint (dear, and every command would pay it) is read only when the cookie differs.
            guard Self.schemaCookies.indices.contains(Int(userVersion)), Self.schemaCookies[Int(userVersion)] == cookie else {
                return try Transaction(self, connection).checkSchema(userVersion: userVersion)
            }
        } else if applicationID != 0 || objects > 0 {
            throw Self.foreign(path)
        }
    }

    package static func readOnly(_ path: String) -> PlannerError {
        .io("cannot write the database \(path): it or its folder is read-only; check the permissions")
    }

    /// application_id, user_version, the number of schema objects and the schema cookie.
    private func identityRow() throws -> (Int32, Int32, Int64, Int64) {
        let stmt = try connection.prepare(
            """
            SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version),
                   (SELECT count(*) FROM sqlite_schema), (SELECT schema_version FROM pragma_schema_version)
            """)
        _ = try stmt.step()
        return (Int32(truncatingIfNeeded: stmt.int64(0)), Int32(truncatingIfNeeded: stmt.int64(1)), stmt.int64(2), stmt.int64(3))
    }

    package static func foreign(_ path: String) -> PlannerError {
        .data(
            "\(path) is a SQLite database that belongs to another program (no planner application_id): pass another --db path; the file was not changed"
        )
    }

    package static func newer(_ path: String, _ version: Int32) -> PlannerError {
        .data(
            "\(path) was written by a newer planner (schema \(version), this binary knows up to \(Migrations.latestVersion)): install a newer planner; the file was not changed"
        )
    }

    /// Once per file, at its first use. Leaving the rollback journal needs every other connection's
    /// lock released, and SQLite returns SQLITE_BUSY for that without calling the busy handler: when many
    /// processes use a new file at once, this waits for them as the busy timeout would.
    private func switchToWAL(waitingUpTo milliseconds: Int32) throws(SQLiteError) {
        var waited: Int32 = 0
        while true {
            do throws(SQLiteError) {
                if try connection.text("PRAGMA journal_mode") != "wal" {
                    _ = try connection.text("PRAGMA journal_mode = WAL")
                }
                return
            } catch {
                guard error.primaryCode == SQLITE_BUSY, waited < milliseconds else { throw error }
                usleep(2_000)
                waited += 2
            }
        }
    }

    /// Applies the missing migrations in order, each in its own IMMEDIATE transaction.
    /// The version is re-read inside the transaction: another process may have just migrated.
    private func migrate(zoneForNewPlan: String?) throws {
        // Up to date (every command but the first after an upgrade): one read, not one per migration.
        if (try connection.integer("PRAGMA user_version") ?? 0) >= Migrations.latestVersion { return }
        for migration in Migrations.all {
            if (try connection.integer("PRAGMA user_version") ?? 0) >= migration.version { continue }
            try connection.immediateTransaction {
                guard (try connection.integer("PRAGMA user_version") ?? 0) < migration.version else { return }
                try connection.execute(migration.sql)
                // Settings start with the zone the plan was made in until now (its latest slot's, else the
                // creating command's TZ): from then on a process's TZ no longer moves it.
                if migration.version == 3 {
                    let planned = try connection.text("SELECT zone FROM request WHERE kind = 'slot' ORDER BY created_at_ms DESC, id DESC LIMIT 1")
                    if let zone = [planned, zoneForNewPlan].compactMap({ $0 }).first(where: Self.isUsableZoneSetting) {
                        // Also its default: `config reset` brings the plan back to the zone it was made in.
                        try connection.prepare("UPDATE setting SET value = ?, default_value = ? WHERE key = 'zone'").run(.text(zone), .text(zone))
                    }
                }
                try connection.execute("PRAGMA application_id = \(Self.applicationID)")
                try connection.execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }

    package static func isUsableZoneSetting(_ name: String) -> Bool {
        (try? SettingKey.zone.canonical(name)) != nil && (try? SystemZone.named(name)) != nil
    }

    /// A long-running ticker waits at most this long for the lock per attempt, then retries in its own
    /// loop, where it can notice SIGTERM (signals are read from a signalfd, not during SQLite's wait).
    /// Gives back the pages SQLite caches and no statement uses (a ticker going idle for hours: a pass over a
    /// calendar folder's rows left them in its heap, bench/TICK_MEMORY.md); the next use reads them again.
    public func releaseCachedPages() {
        sqlite3_db_release_memory(connection.handle)
    }

    /// Whether prepared statements are kept for reuse (`Connection.keepStatements`): the live ticker keeps
    /// them from the claim just before a reminder is due to the claim at its time, and lets them go idle.
    public func keepStatements(_ keep: Bool) {
        connection.keepStatements(keep)
    }

    public func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(connection.handle, milliseconds)
    }

    /// The file's identity, to notice it being deleted or replaced under a long-running ticker.
    public func fileIdentity() -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(resolvedPath, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Runs `body` in one IMMEDIATE transaction, turning SQLite failures into user-facing errors. Nothing
    /// else: a change that reads the outside sources first goes through `change(at:from:)`.
    package func write<T>(_ body: (Transaction) throws -> T) throws(PlannerError) -> T {
        do {
            return try connection.immediateTransaction { try body(Transaction(self, connection)) }
        } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
            throw ownTriggerError(error) ?? Self.translate(error, path: path)
        } catch {
            throw Self.plannerError(error, path: path)
        }
    }

    /// `body` in one read transaction: every read inside it (each store method's `read`) sees the database
    /// as it was at its first, whatever other processes commit meanwhile (`planner status`: the plan, the
    /// folders' problems and Anki's freshness from one moment).
    public func snapshot<T>(_ body: () throws(PlannerError) -> T) throws(PlannerError) -> T {
        try read { (_: Transaction) throws -> T in try body() }
    }

    package func read<T>(_ body: (Transaction) throws -> T) throws(PlannerError) -> T {
        // Inside `snapshot` (or a write): the transaction already open is the one read.
        if sqlite3_get_autocommit(connection.handle) == 0 {
            do { return try body(Transaction(self, connection)) } catch { throw Self.plannerError(error, path: path) }
        }
        connection.resetKeptStatements()
        defer { connection.resetKeptStatements() }
        do {
            try connection.execute("BEGIN")
            defer { _ = sqlite3_exec(connection.handle, "ROLLBACK", nil, nil, nil) }
            return try body(Transaction(self, connection))
        } catch {
            throw Self.plannerError(error, path: path)
        }
    }

    /// The connection with no transaction open: for what acts on the file or the connection rather than on
    /// a snapshot (a checkpoint, which cannot run inside a transaction; closing). Anything else prepared here
    /// stops a debug build (`Connection.transactionsOnly`).
    package func outsideTransactions<T>(_ body: (Connection) throws -> T) rethrows -> T {
        try body(connection)
    }

    /// SQLite's result codes, said in terms of what the user can do.
    /// What any failure inside a transaction or the opening becomes: a `PlannerError` as it is, SQLite's
    /// translated for the user (`translate`), anything else a failure.
    package static func plannerError(_ error: any Error, path: String) -> PlannerError {
        switch error {
        case let error as PlannerError: error
        case let error as SQLiteError: translate(error, path: path)
        default: .failure("\(error)")
        }
    }

    package static func translate(_ error: SQLiteError, path: String) -> PlannerError {
        // A full disk often surfaces as an I/O error (the WAL index cannot grow), not SQLITE_FULL.
        if error.primaryCode == SQLITE_IOERR || error.primaryCode == SQLITE_FULL, DatabaseFile.diskIsFull(beside: path) {
            return .io("the disk holding \(path) is full: free some space and try again; nothing was changed")
        }
        switch error.primaryCode {
        case SQLITE_NOTADB:
            return .data("\(path) is not a SQLite database: pass another --db path, or move the file away to start a new plan")
        case SQLITE_CORRUPT:
            // Pages of another file in its WAL read as corruption too: the most likely cause once a backup
            // was put back without moving the old `-wal` away (SQLite cannot tell whose WAL it is).
            let wal = DatabaseFile.resolve(path) + "-wal"
            var info = stat()
            if stat(wal, &info) == 0, info.st_size > 0 {
                return .data(
                    "\(path) is corrupt (\(error.message)), or \(wal) is not its own: if you put the file back from a backup, move that -wal away and try again; else restore both from a backup or move them away to start a new plan"
                )
            }
            return .data("\(path) is corrupt (\(error.message)): restore it from a backup or move it away to start a new plan")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return .busy(
                "the database \(path) stayed locked by another program for \(busyTimeoutMilliseconds / 1000) s (a sqlite3 shell or database browser in the middle of a change, a stalled process, or another planner command): finish or close it and try again; nothing was changed"
            )
        case SQLITE_READONLY:
            return readOnly(path)
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            return .io("cannot open the database \(path): check that it and its folder are readable and writable by you")
        case SQLITE_FULL:
            return .io("the disk holding \(path) is full: free some space and try again; nothing was changed")
        case SQLITE_IOERR:
            return .io("input/output error on \(path) (\(error.message)): check the disk; nothing was changed")
        default:
            return .failure("database error on \(path): \(error.message)")
        }
    }
}

/// The database inside one open transaction: what `PlannerDatabase.write`, `read` and `change` hand their
/// body, and the only way the store's methods reach its statements. What one method reads is therefore of the
/// same moment as the next (GRDB hands its closures a transaction-scoped `Database` for the same reason).
/// Not to be kept past the closure it was given to.
package struct Transaction {
    package let database: PlannerDatabase
    package let connection: Connection

    fileprivate init(_ database: PlannerDatabase, _ connection: Connection) {
        (self.database, self.connection) = (database, connection)
    }

    /// The database's path, for messages.
    package var path: String { database.path }
    package func warnOnce(_ message: String) { database.warnOnce(message) }
}
