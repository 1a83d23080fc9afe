import Glibc
import PlannerCore

/// The calendar job's last round (`CalendarRound`), kept in its lock file beside the database
/// (`<db>.calendar.lock`): written by the job that holds the lock, read by `planner status` without it.
/// One line, written whole at offset 0 and then cut to its length: a reader in between sees the new line
/// followed by the old one's end, and reads the first line only.
public enum CalendarRoundFile {
    /// The lock file of the database at `resolvedPath` (as `CalendarSyncCommand.lockJob` names it).
    public static func path(database resolvedPath: String) -> String { resolvedPath + ".calendar.lock" }

    static func read(_ fd: Int32) -> CalendarRound? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = pread(fd, &buffer, buffer.count, 0)
        return n > 0 ? CalendarRound(bytes: buffer[..<n]) : nil
    }

    static func write(_ fd: Int32, _ round: CalendarRound) {
        let bytes = Array(round.line.utf8.prefix(4000))
        // Best effort: a full disk must not turn the round's own outcome into another failure.
        guard pwrite(fd, bytes, bytes.count, 0) == bytes.count else { return }
        _ = ftruncate(fd, off_t(bytes.count))
    }

    /// The last round, read without the lock (a FIFO or another user's file put there is not read).
    public static func read(database resolvedPath: String) -> CalendarRound? {
        let fd = open(path(database: resolvedPath), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { return nil }
        return read(fd)
    }
}
