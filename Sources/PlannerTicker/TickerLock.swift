import CLinux
import Glibc
import PlannerCore

/// One live ticker per database: an exclusive `flock` on `<db>.tick.lock`, holding the owner's pid.
/// The kernel drops the lock when the process dies, even by SIGKILL, so a stale file never blocks.
public struct TickerLock {
    public let fd: Int32

    public static func acquire(databasePath: String) throws(PlannerError) -> TickerLock {
        let path = databasePath + ".tick.lock"
        let fd = try openOwn(path, what: "the ticker lock")
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let pid = holder(fd)
            close(fd)
            throw .busy(
                "another ticker (pid \(pid ?? "unknown")) is already running on \(databasePath): stop it first (e.g. systemctl --user stop planner-tick) or use another --db"
            )
        }
        // Ours alone from here (our own file, one name, locked): replace the last holder's pid.
        let text = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        return TickerLock(fd: fd)
    }

    /// Says that a live ticker now watches the database and brings its folders in line after every change
    /// (`liveTickerWatches`): an open file description lock on the lock file's first byte, beside the flock.
    /// Taken once the ticker's watches are set, so a change `open` commits afterwards wakes it; dropped
    /// (`withdraw`) as it begins to stop. Where the file system has no such locks, nothing is said and
    /// `open` does its folders itself, as before.
    public func advertise() { _ = clinux_ofd_lock_first_byte(fd, 1) }
    public func withdraw() { _ = clinux_ofd_lock_first_byte(fd, 0) }

    /// Whether a live ticker watches the database at `databasePath` (`advertise`): then `planner open`
    /// leaves the sync and calendar folders to it, so a login never waits on a folder or pays for the
    /// process that does. Only the planner's own lock file counts (a regular file of this user, one name,
    /// never through a link): one planted in a shared folder cannot make `open` leave its folders. Tests
    /// the lock without taking it (a ticker starting at this moment still gets its own).
    public static func liveTickerWatches(databasePath: String) -> Bool {
        let fd = open(databasePath + ".tick.lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid(), info.st_nlink == 1 else {
            return false
        }
        return clinux_ofd_first_byte_locked(fd) == 1
    }

    /// A lock file of the planner's own beside the database, opened for flock: never through a link (one
    /// planted in a shared folder would make the planner write whatever file it points to), never another
    /// user's file or one with other names.
    public static func openOwn(_ path: String, what: String) throws(PlannerError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let err = errno
            if err == ELOOP {
                throw .data("\(what) \(path) is a symbolic link, which the planner never follows: remove it; nothing was changed")
            }
            throw .io(
                "cannot create \(what) \(path): \(String(cString: strerror(err))) (a file another user planted in a shared folder?): remove it or use another --db"
            )
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid(), info.st_nlink == 1 else {
            close(fd)
            let why =
                (info.st_mode & S_IFMT) != S_IFREG
                ? "is not a regular file"
                : info.st_uid != geteuid()
                    ? "belongs to another user (uid \(info.st_uid))"
                    : "has \(info.st_nlink) hard links"
            throw .data("\(what) \(path) \(why), so it is not the planner's own: remove it; nothing was changed")
        }
        return fd
    }

    /// The pid written by the holder; nil unless the file says exactly that (never echo others' text).
    static func holder(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = pread(fd, &buffer, 16, 0)
        guard n > 0 else { return nil }
        var digits = buffer[0..<n]
        if digits.last == UInt8(ascii: "\n") { digits = digits.dropLast() }
        guard (1...10).contains(digits.count), digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }
}
