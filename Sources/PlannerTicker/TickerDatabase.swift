import PlannerCore
import PlannerFolders
import PlannerStore

/// The ticker's connection, kept for days, and kept honest: before each use it checks that the database is
/// still the file it started on, and that SQLite's `-wal`/`-shm` are still the files this connection uses.
/// Someone deleting or replacing them (a cleanup script, a user "fixing" a lock) would otherwise leave the
/// ticker on its own private copies, and its next write would overwrite other processes' commits.
public final class TickerDatabase {
    public private(set) var database: PlannerDatabase
    /// What the ticker reads of the sync folder per pass: a 64 MiB peer file is applied 256 KiB at a time,
    /// reminders due meanwhile claimed between the passes (`Ticker.folderBacklog`).
    static let syncReadBudgetBytes: Int64 = 256 << 10
    /// Opens from Anki's review log applied per pass: twenty years read at once come in passes, reminders
    /// due meanwhile claimed between them.
    static let ankiOpensPerPass = PlannerDatabase.ankiOpensPerSlice

    /// What one pass reads of the outside: Anki's collection only when asked (its files changed).
    static func limits(readingAnki: Bool) -> SourceLimits {
        SourceLimits(syncReadBytes: syncReadBudgetBytes, ankiOpens: ankiOpensPerPass, readsAnki: readingAnki)
    }
    private let identity: FileIdentity?
    private var walFiles: PlannerDatabase.WALFiles
    private let log: (String) -> Void

    public init(_ database: PlannerDatabase, log: @escaping (String) -> Void) {
        self.database = database
        identity = FileIdentity(path: database.resolvedPath)
        walFiles = database.walFiles()
        self.log = log
    }

    /// Call before every transaction.
    func check() throws(PlannerError) {
        guard let identity, FileIdentity(path: database.resolvedPath) == identity else {
            throw .io("the database \(database.path) was deleted or replaced while the ticker ran: restart the ticker (systemd restarts it)")
        }
        let now = database.walFiles()
        guard now != walFiles else { return }
        // Committed frames this connection still sees through a deleted WAL exist nowhere else: copy them
        // into the database first — unless other processes already write to a new WAL, whose frames are
        // based on the database without them.
        if now.wal != walFiles.wal, database.walSize() == 0, database.checkpointWAL() {
            log("the WAL file \(database.path)-wal was deleted or replaced; its committed changes were saved into the database")
        }
        log("SQLite's files beside \(database.path) were deleted or replaced; reopening the database")
        database.closeWithoutCheckpoint()
        database = try PlannerDatabase(path: database.path, warnings: database.warnings, folderTiming: database.folderTiming)
        database.setBusyTimeout(milliseconds: busyTimeout)
        walFiles = database.walFiles()
    }

    /// Call after the ticker's own writes, and after others' (it wakes on them): a WAL whose frames are all in
    /// the database is one that deleting loses nothing from. It keeps its length (`checkpointKeepingWAL`), so
    /// the next claim's commit overwrites it in place instead of making the file longer. The files the
    /// connection uses are remembered only when it opens them: while it is open nobody else may delete them
    /// (it holds a shared lock on the database).
    func settle() {
        guard (try? check()) != nil, database.walSize() > 0 else { return }
        database.checkpointKeepingWAL()
    }

    public var busyTimeout: Int32 = PlannerDatabase.busyTimeoutMilliseconds {
        didSet { database.setBusyTimeout(milliseconds: busyTimeout) }
    }
}
