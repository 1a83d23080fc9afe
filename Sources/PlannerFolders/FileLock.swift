import Glibc
import PlannerSystem

/// A folder's lock (`flock`), taken by a folder child: two planner processes of this device take turns, and
/// a lock another program holds longer than the wait is a busy folder, not a wait.
public enum FileLock {
    public enum Taken: Equatable {
        case locked
        /// Another process held it for the whole wait.
        case busy
        /// `flock` itself failed (errno).
        case failed(Int32)
    }

    /// How often a held lock is tried again.
    public static let pauseMicroseconds: UInt32 = 10_000

    /// Tries `fd`'s lock every `pauseMicroseconds` for at most `milliseconds`. Until a deadline, not a count
    /// of pauses: on a busy machine each pause runs over.
    public static func take(_ fd: Int32, shared: Bool = false, within milliseconds: Int64) -> Taken {
        let start = SystemClock.monotonicMilliseconds()
        while true {
            if flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 { return .locked }
            let why = errno
            if why == EINTR { continue }
            guard why == EWOULDBLOCK else { return .failed(why) }
            if SystemClock.monotonicMilliseconds() - start + Int64(pauseMicroseconds / 1000) > milliseconds { return .busy }
            usleep(pauseMicroseconds)
        }
    }
}
