import CLinux
import Glibc

/// Whether a path names a program this user may run, the test a shell makes before running it: `study`
/// looks its program up with it, and the ticker whether systemd-run is there to start one.
public enum ExecutableFile {
    /// A regular file with execute permission for this user (errno says why not: EACCES for a folder).
    public static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        guard info.st_mode & S_IFMT == S_IFREG else {
            errno = EACCES
            return false
        }
        return access(path, X_OK) == 0
    }

    /// This program's file, as `execve` was given it (`AT_EXECFN`; not /proc/self/exe, which names valgrind's
    /// tool under valgrind, as the benchmarks run it): an upgrade replaces it, and what this binary makes of
    /// the same inputs may differ from what the one before made.
    public static var running: String? { clinux_execfn().map { String(cString: $0) } }
}
