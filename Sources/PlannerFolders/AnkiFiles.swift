import Glibc
import PlannerStore
import PlannerSystem

/// Anki's collection as the folder child (`FolderChild`) touches it: system calls only (no database, no
/// output). Anki holds its collection with `locking_mode = exclusive` in WAL mode, and a reader that
/// opens it through SQLite leaves a `-shm` behind that Anki then refuses ("disk I/O error"). So nothing of
/// Anki's is ever opened through SQLite, locked or written: the child opens the database and its `-wal`
/// read-only (never blocking on a FIFO), and copies their bytes into a private folder the planner owns,
/// where SQLite replays the committed frames of the copied WAL. A copy taken while Anki checkpointed is
/// detected (the database changed between its first look and the end of both copies) and taken again.
enum AnkiFiles {
    /// The collection's files: the database, and its `-wal` while Anki runs.
    static func walPath(_ collection: String) -> String { collection + "-wal" }

    /// What a file is, to tell whether it changed: device, inode, size, mtime and ctime (ns). "-": absent.
    static func identity(_ info: stat) -> String {
        "\(info.st_dev):\(info.st_ino):\(info.st_size):\(PlannerDatabase.mtimeNanoseconds(info)):\(Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))"
    }
    static let absent = "-"

    /// The largest collection copied (Anki's own are rarely over a few hundred MiB).
    static let maximumBytes: Int64 = 4 << 30

    /// The collection's own path when `path` is a link to it: Anki writes its WAL beside that one.
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// In the child: opens both files (kept open in `fds` for `copy`) and says what they are.
    /// Wire: status (0 opened, 1 the database cannot be used: then why), db identity, wal identity.
    static func look(_ given: String, fds: inout [Int32]) -> [UInt8] {
        let collection = resolved(given)
        var out = Wire.Writer()
        func open(_ path: String) -> (fd: Int32, info: stat)? {
            let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                close(fd)
                return nil
            }
            return (fd, info)
        }
        guard let db = open(collection) else {
            out.int(1)
            out.text(
                errno == ENOENT ? "is not there (Anki not installed here, or another profile?)" : "cannot be opened (\(DatabaseFile.describe(errno)))"
            )
            return out.bytes
        }
        fds.append(db.fd)
        let refused: String? =
            db.info.st_mode & S_IFMT != S_IFREG
            ? "is not a regular file"
            : db.info.st_uid != geteuid()
                ? "belongs to another user (uid \(db.info.st_uid))"
                : Int64(db.info.st_size) > maximumBytes ? "is larger than \(maximumBytes >> 30) GiB" : nil
        if let refused {
            out.int(1)
            out.text(refused)
            return out.bytes
        }
        out.int(0)
        out.text(identity(db.info))
        // A -wal that is not a regular file of a sane size (a FIFO, a folder) is no WAL: the database alone.
        if let wal = open(walPath(collection)) {
            if wal.info.st_mode & S_IFMT == S_IFREG, Int64(wal.info.st_size) <= maximumBytes {
                fds.append(wal.fd)
                out.text(identity(wal.info))
                return out.bytes
            }
            close(wal.fd)
        }
        out.text(absent)
        return out.bytes
    }

    /// In the child: copies the database (unless the copy is of `base`, the database as it is now) and the
    /// WAL into `folder` (made private), each to a temporary name renamed over the last copy, and checks
    /// nothing changed meanwhile. Up to three tries. The folder's lock is held to the child's end: a child
    /// left behind at its deadline finishes before the next one copies. The copy is made outside the
    /// planner's write transaction, so another planner process may be copying too: its lock is waited for
    /// `lockWait` milliseconds (`FolderTiming.lockWaitMilliseconds`; then "busy": that process reads what it copies), and files it
    /// copied meanwhile are not copied again.
    /// Wire: status (0 copied, 1 failed: then why, 2 changed under every try, 3 the folder busy), then the
    /// identities copied.
    static func copy(_ given: String, into folder: String, base: String, fds: [Int32], lockWait: Int64) -> [UInt8] {
        let collection = resolved(given)
        var out = Wire.Writer()
        mkdir(folder, 0o700)
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
            out.int(1)
            out.text("cannot be copied: its private copy's folder \(folder) is not a folder of yours")
            return out.bytes
        }
        chmod(folder, 0o700)
        let lock = Glibc.open(folder + "/lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            out.int(1)
            out.text("cannot be copied: its private copy's folder \(folder) cannot be locked (\(DatabaseFile.describe(errno)))")
            return out.bytes
        }
        defer { close(lock) }
        switch FileLock.take(lock, within: lockWait) {
        case .locked: break
        case .busy:
            out.int(3)
            return out.bytes
        case .failed(let why):
            out.int(1)
            out.text("cannot be copied: its private copy's folder \(folder) cannot be locked (\(DatabaseFile.describe(why)))")
            return out.bytes
        }
        let target = folder + "/collection.anki2"
        var dbFD = fds.first ?? -1
        var walFD = fds.count > 1 ? fds[1] : -1
        // Which files the copy was taken from (`copiedFrom`): the copy is of `base` only when it says so (the
        // folder may hold another collection's copy, or one cut short; the command that made it may have died
        // before its transaction recorded anything).
        let marker = folder + "/" + markerName
        let copied = readMarker(marker)
        var first = stat()
        var firstWAL = stat()
        if fstat(dbFD, &first) == 0 {
            let wal = walFD >= 0 && fstat(walFD, &firstWAL) == 0 && firstWAL.st_mode & S_IFMT == S_IFREG ? identity(firstWAL) : absent
            // Copied by another planner process while this one waited for the lock: nothing to do.
            if copied == copiedFrom(db: identity(first), wal: wal) {
                out.int(0)
                out.text(identity(first))
                out.text(wal)
                return out.bytes
            }
        }
        var copyWhole = base.isEmpty || copied?.split(separator: " ").first.map(String.init) != base
        // Whatever is copied now, the folder says it holds nothing known until both files are in.
        unlink(marker)
        // What a later try opens is closed here; `fds` are the caller's (`look`'s), closed by it.
        var reopened: [Int32] = []
        defer { for fd in reopened { close(fd) } }
        for attempt in 0..<3 {
            if attempt > 0 {
                // Taken again from the names (Anki may have put a new file there), whole this time.
                dbFD = Glibc.open(collection, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                walFD = Glibc.open(walPath(collection), O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                reopened += [dbFD, walFD].filter { $0 >= 0 }
                copyWhole = true
                guard dbFD >= 0 else { break }
            }
            var before = stat()
            guard fstat(dbFD, &before) == 0 else { break }
            // A checkpoint since the parent decided: the copy's base is not this file any more.
            if identity(before) != base { copyWhole = true }
            if copyWhole {
                if let why = copyFile(dbFD, to: target, size: Int64(before.st_size)) {
                    out.int(1)
                    out.text(why)
                    return out.bytes
                }
            }
            var walInfo = stat()
            let hasWAL = walFD >= 0 && fstat(walFD, &walInfo) == 0 && walInfo.st_mode & S_IFMT == S_IFREG
            if hasWAL {
                if let why = copyFile(walFD, to: target + "-wal", size: Int64(walInfo.st_size)) {
                    out.int(1)
                    out.text(why)
                    return out.bytes
                }
            } else {
                unlink(target + "-wal")
            }
            unlink(target + "-shm")
            // A checkpoint while copying changes the database: the copy may mix two states; take it again.
            var after = stat()
            var named = stat()
            guard fstat(dbFD, &after) == 0, stat(collection, &named) == 0 else { break }
            if identity(before) == identity(after), identity(after) == identity(named) {
                if let why = writeMarker(marker, copiedFrom(db: identity(after), wal: hasWAL ? identity(walInfo) : absent)) {
                    out.int(1)
                    out.text(why)
                    return out.bytes
                }
                out.int(0)
                out.text(identity(after))
                out.text(hasWAL ? identity(walInfo) : absent)
                return out.bytes
            }
        }
        out.int(2)
        return out.bytes
    }

    /// The file in the copy folder that says which files the copy was taken from: written once both are in,
    /// removed before either is replaced. Read under the folder's lock, by the child and by the reader.
    static let markerName = "copied-from"

    /// What `copied-from` says of a copy of these files.
    static func copiedFrom(db: String, wal: String) -> String { db + " " + wal }

    /// What `copied-from` holds (nil: none, or not one this planner wrote).
    static func readMarker(_ path: String) -> String? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, n < buffer.count else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }

    /// Says which files the copy was taken from (through a temporary name). Nil: done.
    private static func writeMarker(_ path: String, _ identity: String) -> String? {
        let temporary = path + ".planner-tmp"
        unlink(temporary)
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "cannot be copied: its private copy cannot be written (\(DatabaseFile.describe(errno)))" }
        let bytes = Array(identity.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            return "cannot be copied: its private copy cannot be written (\(DatabaseFile.describe(errno)))"
        }
        return nil
    }

    /// Copies `fd`'s first `size` bytes to `path` (through a temporary name in its folder). Nil: done.
    private static func copyFile(_ fd: Int32, to path: String, size: Int64) -> String? {
        let temporary = path + ".planner-tmp"
        unlink(temporary)  // a child's that ended mid-copy (the folder's lock is held: no other is writing it)
        let out = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard out >= 0 else { return "cannot be copied: its private copy cannot be written (\(DatabaseFile.describe(errno)))" }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < size {
            FolderChild.progress()
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, Int(size - offset)), off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                let why = DatabaseFile.describe(errno)
                close(out)
                unlink(temporary)
                return "cannot be read (\(why))"
            }
            if n == 0 { break }  // shorter now: what was there is what is copied
            var done = 0
            while done < n {
                let w = buffer[done..<n].withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
                if w < 0 && errno == EINTR { continue }
                if w <= 0 {
                    let why = DatabaseFile.describe(errno)
                    close(out)
                    unlink(temporary)
                    return "cannot be copied: its private copy cannot be written (\(why))"
                }
                done += w
            }
            offset += Int64(n)
        }
        close(out)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            return "cannot be copied: its private copy cannot be written (\(DatabaseFile.describe(errno)))"
        }
        return nil
    }
}
