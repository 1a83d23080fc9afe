import Glibc
import PlannerCore

/// One live ticker per database: an exclusive `flock` on `<db>.tick.lock`, holding the owner's pid.
/// The kernel drops the lock when the process dies, even by SIGKILL, so a stale file never blocks.
struct TickerLock {
    let fd: Int32

    static func acquire(databasePath: String) throws(PlannerError) -> TickerLock {
        let path = databasePath + ".tick.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io("cannot create the ticker lock \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buffer, 31, 0)
            close(fd)
            let pid = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingSpaces : "unknown"
            throw .busy("another ticker (pid \(pid)) is already running on \(databasePath): stop it first (e.g. systemctl --user stop planner-tick) or use another --db")
        }
        let text = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        return TickerLock(fd: fd)
    }
}

extension String {
    var trimmingSpaces: String {
        let kept = Array(self).drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed()
        return String(kept)
    }
}
