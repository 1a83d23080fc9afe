import CSQLite
import Glibc
import PlannerCore

/// A file's identity: the same (device, inode) is the same file, whatever its name.
public struct FileIdentity: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init?(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// The ticker keeps one connection open for days. SQLite's WAL files (`-wal`, `-shm`) are shared by every
/// process through their names: when someone deletes or replaces them, later processes create new ones
/// while this connection still uses the old ones, and its next write would overwrite their commits. These
/// let the ticker notice that, rescue what only its old files hold, and reopen.
extension PlannerDatabase {
    public struct WALFiles: Equatable, Sendable {
        public var wal: FileIdentity?
        public var shm: FileIdentity?
    }

    /// The `-wal` and `-shm` files that the names point to now.
    public func walFiles() -> WALFiles {
        WALFiles(wal: FileIdentity(path: resolvedPath + "-wal"), shm: FileIdentity(path: resolvedPath + "-shm"))
    }

    /// Bytes in the `-wal` file the name points to now (0 when missing).
    public func walSize() -> Int64 {
        var info = stat()
        return stat(resolvedPath + "-wal", &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Copies every committed frame of this connection's WAL into the database file and empties the WAL
    /// (TRUNCATE also resets the shared WAL index). Best effort: false when another connection was busy.
    @discardableResult
    public func checkpointWAL() -> Bool {
        outsideTransactions { connection in
            let stmt = try? connection.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
            guard let stmt, (try? stmt.step()) == true else { return false }
            return stmt.int64(0) == 0
        }
    }

    /// Copies every committed frame into the database file without waiting for anyone (PASSIVE: a reader of an
    /// older snapshot, or a writer, only leaves frames for the next pass). Once every frame is copied, the next
    /// transaction writes the WAL from its start over the blocks it already has (SQLite restarts a fully
    /// copied log), and the file keeps its length. Deleting the WAL then loses nothing either, and a commit
    /// that fits in the file changes no file size, so its fdatasync needs no journal commit: with busy
    /// programs on every core, waiting for ext4's journal thread is a scheduler tick
    /// (bench/fdatasync_busy.py: 3.75 ms growing against 0.25 ms overwriting; the live ticker's lateness,
    /// docs/benchmarks.md). True when every frame is in the database.
    @discardableResult
    public func checkpointKeepingWAL() -> Bool {
        var log: Int32 = 0
        var copied: Int32 = 0
        let rc = outsideTransactions { sqlite3_wal_checkpoint_v2($0.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) }
        return rc == SQLITE_OK && log == copied
    }

    /// Closes the connection without a checkpoint: its WAL files are no longer the shared ones. Close it
    /// before opening the file again: POSIX locks belong to the process, and opening and closing the file
    /// anew while this connection lives would drop the shared lock that tells others it is still in use.
    public func closeWithoutCheckpoint() {
        outsideTransactions { connection in
            csqlite_set_checkpoint_on_close(connection.handle, 0)
            connection.close()
        }
    }

    /// Whether the disk holding the database has no space left: a write failed for that, not for a fault.
    public var diskIsFull: Bool { DatabaseFile.diskIsFull(beside: resolvedPath) }
}
