import Glibc
import PlannerCore

/// Checks made on the file itself before SQLite opens it, so a wrong file is refused without a
/// single byte written, and a missing one is created with private permissions.
package enum DatabaseFile {
    package enum Existing {
        case missingOrEmpty
        case sqlite(header: [UInt8])
        /// Only from `inspectOnce`: what to say if it still looks so a moment later.
        case looksTruncated(String)
    }

    /// What is at `path`; throws for anything that is not a usable file.
    package static func inspect(_ path: String) throws(PlannerError) -> Existing {
        // A file that looks truncated may be one another process is checkpointing this very moment (it
        // writes the new header before it extends the file, then empties the WAL): a real truncation is
        // still there a moment later (found by 24 processes creating one database on a fresh machine).
        var attempts = 0
        while true {
            let existing = try inspectOnce(path)
            guard case .looksTruncated(let message) = existing else { return existing }
            attempts += 1
            if attempts == 5 { throw .data(message) }
            usleep(20_000)
        }
    }

    package static func inspectOnce(_ path: String) throws(PlannerError) -> Existing {
        if path.hasSuffix("/") {
            throw .usage("database path \(path) names a folder: pass a file path such as \(path)planner.db")
        }
        var info = stat()
        if stat(path, &info) != 0 {
            let err = errno
            var link = stat()
            if err == ENOENT && lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK {
                throw .usage("database path \(path) is a symbolic link to a missing file: fix or remove the link, or pass another --db")
            }
            if err == ENOENT { return .missingOrEmpty }
            throw .io("cannot reach database \(path): \(describe(err))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw .usage("database path \(path) is a folder: pass a file path such as \(path.hasSuffix("/") ? path : path + "/")planner.db")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .usage("database path \(path) is not a regular file: pass the path of a planner database file")
        }
        try checkOwnedAndSingle(info, name: path, what: "the database")
        if info.st_size == 0 { return .missingOrEmpty }

        guard let file = fopen(path, "rb") else { throw .io("cannot read database \(path): \(describe(errno))") }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 100)
        let n = fread(&header, 1, 100, file)
        guard n == 100, header.starts(with: Array("SQLite format 3".utf8) + [0]) else {
            throw .data(
                "\(path) is not a SQLite database (or its header is damaged): pass another --db path, or move the file away to start a new plan")
        }
        // The header's page count is trustworthy when its "version-valid-for" matches the change counter,
        // and only when no WAL holds frames: another process's checkpoint writes the new header before
        // it extends the file (found by bench/reliability/concurrency.py). With a WAL, SQLite itself
        // reports missing pages as corruption.
        var pageSize = Int64(bigEndian(header, 16, 2))
        if pageSize == 1 { pageSize = 65536 }
        let pageCount = Int64(bigEndian(header, 28, 4))
        var wal = stat()
        let walHasFrames = stat(path + "-wal", &wal) == 0 && wal.st_size > 0
        if !walHasFrames, bigEndian(header, 92, 4) == bigEndian(header, 24, 4), pageCount > 0,
            pageSize * pageCount > Int64(info.st_size)
        {
            return .looksTruncated(
                "\(path) is truncated (\(info.st_size) bytes, its header says \(pageSize * pageCount)): restore it from a backup or move it away to start a new plan"
            )
        }
        return .sqlite(header: header)
    }

    /// A file the planner uses must be the user's own, with one name. Someone else's file in a shared
    /// folder (adopted by root, or world-writable) lets its owner read and rewrite the plan; SQLite cannot
    /// lock a file reached by two names (two tickers, a corrupted index).
    package static func checkOwnedAndSingle(_ info: stat, name: String, what: String) throws(PlannerError) {
        if info.st_uid != geteuid() {
            throw .data(
                "\(what) \(name) belongs to another user (uid \(info.st_uid)): the planner uses only your own files; pass another --db, or let its owner run the planner; nothing was changed"
            )
        }
        if info.st_nlink > 1 {
            throw .data(
                "\(what) \(name) has \(info.st_nlink) hard links: SQLite cannot lock a file reached by two names; remove the other names (find / -xdev -samefile \(name)) or use a copy; nothing was changed"
            )
        }
    }

    /// SQLite's `-wal` and `-shm` beside the (resolved) database, when present, must be the user's own
    /// plain files: SQLite follows a planted link and trusts a planted file. One the user owns but cannot
    /// write (SQLite gives them the database's mode, so a failed write on a 0400 database leaves a 0400
    /// `-shm`) would make every later write fail: it gets the database's owner write bit back.
    /// Returns the `-wal`'s size (0: none).
    @discardableResult
    package static func checkCompanions(of resolved: String) throws(PlannerError) -> Int64 {
        var database = stat()
        guard stat(resolved, &database) == 0 else { return 0 }
        var walBytes: Int64 = 0
        for file in [resolved + "-wal", resolved + "-shm"] {
            var info = stat()
            guard lstat(file, &info) == 0 else { continue }
            if walBytes == 0, file.hasSuffix("-wal") { walBytes = Int64(info.st_size) }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw .data("SQLite's file \(file) is not a regular file (a symbolic link?): remove it; nothing was changed")
            }
            try checkOwnedAndSingle(info, name: file, what: "SQLite's file")
            if database.st_mode & S_IWUSR != 0, info.st_mode & S_IWUSR == 0 {
                chmod(file, 0o600)
            }
        }
        return walBytes
    }

    /// Whether this process may write the file (effective ids, as the kernel will judge the open).
    package static func isWritable(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0
    }

    /// Whether the file system holding `path` is mounted read-only (a rescue boot, a backup disk, a
    /// `ro` bind mount): nothing can be written there, not even SQLite's `-wal` and `-shm`.
    package static func isOnReadOnlyFileSystem(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// The URI that opens `path` as immutable: SQLite reads it without locks, `-wal` or `-shm` (none can be
    /// made on a read-only file system, and nothing else can be changing it there).
    package static func immutableURI(_ path: String) -> String {
        var uri = "file:"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x21, 0x7F...:
                let hex = String(byte, radix: 16, uppercase: true)
                uri += "%" + (hex.count == 1 ? "0" + hex : hex)
            default: uri.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return uri + "?immutable=1"
    }

    /// Creates the missing folders (0700) and the file (0600), so SQLite never creates them with
    /// the umask's looser bits.
    package static func create(_ path: String) throws(PlannerError) {
        var folder = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (i, part) in parts.enumerated() {
            folder += (i == 0 ? "" : "/") + part
            if folder.isEmpty || part.isEmpty || part == "." { continue }
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw .io("cannot create folder \(folder) for the database: \(describe(errno))")
            }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw .io("cannot create database \(path): \(describe(errno))")
        }
    }

    /// `path` with symbolic links resolved (realpath), or as given if that fails.
    package static func resolve(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Reminders say when you study: a database of ours that others can read is made 0600 (and its
    /// WAL files, which SQLite creates with the database's mode).
    package static func makePrivate(_ path: String) {
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_uid == getuid(), info.st_mode & 0o077 != 0 else { continue }
            chmod(file, 0o600)
        }
    }

    /// Whether the file system holding `path` has no space left for an unprivileged write.
    package static func diskIsFull(beside path: String) -> Bool {
        let folder = path.lastIndex(of: "/").map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        var info = statvfs()
        return statvfs(folder, &info) == 0 && info.f_bavail == 0
    }

    package static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt32 {
        bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    package static func describe(_ err: Int32) -> String { String(cString: strerror(err)) }
}
