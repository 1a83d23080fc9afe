import Glibc
import PlannerCore
import PlannerSystem

/// At most one stuck folder child per folder on the whole machine, whichever planner process made it.
///
/// A request to a mount that stalls (an sshfs or NFS mount whose server went away) waits in the kernel, and
/// once the server took it, even SIGKILL cannot end the waiting process: each command or ticker pass that
/// made a new child for that folder left one more behind, until the user's process limit was reached and
/// every fork failed. So a process that gives up on a child writes that child's pid and start time into
/// the folder's guard file (named by a digest of the folder's path, in a folder of this user's outside
/// every mount the planner is told about), and before making a child every process reads it: while the
/// child it names lives (the same pid and start time, so a reused pid is not it), that folder is not asked
/// again. No lock is taken: a child at work never makes another process wait.
public enum FolderGuard {
    /// Where the guard files are: `/run/user/UID/planner-folders` when that runtime folder is this user's (a
    /// tmpfs of systemd's), else `/tmp/planner-folders-UID`; made 0700, and used only when it is this user's
    /// folder and not a link. Found from the user id, never the environment: the ticker (a systemd service)
    /// and a cron job see different ones, and both must find the same file.
    static func file(for folder: String, create: Bool) -> String? {
        let uid = geteuid()
        var runtime = stat()
        let base =
            lstat("/run/user/\(uid)", &runtime) == 0 && runtime.st_mode & S_IFMT == S_IFDIR && runtime.st_uid == uid
            ? "/run/user/\(uid)/planner-folders" : "/tmp/planner-folders-\(uid)"
        let directory = base
        if create, mkdir(directory, 0o700) != 0, errno != EEXIST { return nil }
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            return nil
        }
        return directory + "/" + String(SHA256.hex(folder.utf8).prefix(32))
    }

    /// The child the guard names, while it lives.
    static func living(_ path: String) -> (pid: pid_t, since: Int64)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 96)
        let n = pread(fd, &buffer, buffer.count, 0)
        close(fd)
        guard n > 0 else { return nil }
        let words = String(decoding: buffer[..<n], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard words.count == 3, let pid = pid_t(words[0]), pid > 0, let start = UInt64(words[1]), let since = Int64(words[2]),
            startTime(pid) == start
        else { return nil }
        return (pid, since)
    }

    /// Why no child may be made for `folder` now (an earlier one is still stuck on it), or nil.
    public static func stuck(_ folder: String) -> String? {
        guard let path = file(for: folder, create: false), let (pid, since) = living(path) else { return nil }
        let seconds = max(0, (SystemClock.monotonicMilliseconds() - since) / 1000)
        return
            "an earlier request to it (planner process \(pid)) has not been answered for \(seconds) s: a stalled mount? It is not asked again until that one is answered"
    }

    /// Said by the process that gave up on `pid`, its child for `folder`.
    /// A child already gone (killed while its wait could still be interrupted) is not written, and neither is
    /// one over a child the guard names that still lives: that one stays the folder's stuck child. Written
    /// aside and renamed in, so a reader never sees half a line.
    public static func markStuck(_ folder: String, pid: pid_t) {
        guard let start = startTime(pid), let path = file(for: folder, create: true), living(path) == nil else { return }
        let aside = path + ".\(getpid())"
        let fd = open(aside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else { return }
        let text = Array("\(pid) \(start) \(SystemClock.monotonicMilliseconds())\n".utf8)
        let written = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        if written != text.count || rename(aside, path) != 0 { unlink(aside) }
    }

    /// A process's start time (clock ticks after boot, /proc/PID/stat's 22nd field), nil when it is gone
    /// (or a zombie: it no longer waits on anything).
    static func startTime(_ pid: pid_t) -> UInt64? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0, let close = buffer[..<n].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After the name: state, then fields 4 on; the start time is field 22.
        let fields = buffer[(close + 2)..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, fields[0].first != UInt8(ascii: "Z") else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }
}
