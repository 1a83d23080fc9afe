import Glibc

/// `setup --uninstall` and the ticker its autostart entry started: the ticker is stopped (SIGTERM to the
/// lock's holder, as `systemctl --user stop` does for the unit) and its lock file removed while held, so no
/// ticker is left running on a lock that no longer has a name.
enum TickerStop {
    /// True when the lock file is gone (or was never there).
    static func stopAndRemoveLock(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT }
        defer { close(fd) }
        var signalled = false
        // About 5 s: the ticker exits at its next poll wake-up, at once on SIGTERM.
        for _ in 0..<100 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                unlink(path)
                return true
            }
            if !signalled, let pid = holder(fd) {
                kill(pid, SIGTERM)
                signalled = true
            }
            usleep(50_000)
        }
        return false
    }

    /// The pid the holder wrote, when it is a planner process of this user.
    static func holder(_ fd: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = pread(fd, &buffer, 15, 0)
        guard n > 0, let pid = pid_t(String(decoding: buffer[0..<n], as: UTF8.self).filter { !$0.isWhitespace }), pid > 1
        else { return nil }
        var info = stat()
        guard stat("/proc/\(pid)", &info) == 0, info.st_uid == geteuid(),
            let comm = SetupFiles.read("/proc/\(pid)/comm"), comm.hasPrefix("planner")
        else { return nil }
        return pid
    }
}
