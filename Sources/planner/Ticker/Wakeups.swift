import CLinux
import Glibc
import PlannerCore
import PlannerSystem

/// What the ticker sleeps on, as file descriptors waited on with poll(2) — no polling loop:
/// - a CLOCK_REALTIME timerfd armed at the next request's time, with TFD_TIMER_CANCEL_ON_SET so a
///   clock change (or a resume that steps the clock) wakes it at once instead of after a stale sleep;
/// - inotify on the database's folder, for writes by `open`, `refill` and `add` (the WAL file changes);
/// - a signalfd for SIGTERM and SIGINT, so stopping is just another event.
final class Wakeups {
    enum Event { case timer, clockChanged, databaseChanged, stop, failed(String) }

    private let timerFD: Int32
    private let inotifyFD: Int32
    private let signalFD: Int32
    private let watchedNames: Set<String>

    init(databasePath: String) throws(PlannerError) {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        sigprocmask(SIG_BLOCK, &signals, nil)
        signal(SIGPIPE, SIG_IGN)  // a closed stdout is a failed delivery, not a dead ticker
        signalFD = signalfd(-1, &signals, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        timerFD = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        inotifyFD = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard signalFD >= 0, timerFD >= 0, inotifyFD >= 0 else {
            throw .failure("cannot set up the ticker's timers and watches: \(String(cString: strerror(errno)))")
        }
        let slash = databasePath.lastIndex(of: "/")
        let folder = slash.map { databasePath[..<$0].isEmpty ? "/" : String(databasePath[..<$0]) } ?? "."
        let name = slash.map { String(databasePath[databasePath.index(after: $0)...]) } ?? databasePath
        watchedNames = [name, name + "-wal"]
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(inotifyFD, folder, mask) >= 0 else {
            throw .io("cannot watch \(folder) for changes: \(String(cString: strerror(errno)))")
        }
    }

    /// Wakes at `instant`, or after a day when nothing is pending (the armed timer still notices clock changes).
    func arm(at instant: Instant?, now: Instant) {
        let target = instant ?? (now + 86_400_000)
        var spec = itimerspec()
        // A zero it_value would disarm the timer; any time in the past fires at once.
        let ms = max(target.milliseconds, 1)
        spec.it_value.tv_sec = Int(ms / 1000)
        spec.it_value.tv_nsec = Int(ms % 1000) * 1_000_000
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil)
    }

    /// Blocks until something happens.
    func wait() -> Event {
        var fds = [
            pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failed("poll: \(String(cString: strerror(errno)))") }
            if fds[0].revents != 0 { return .stop }
            if fds[1].revents != 0 {
                var expirations: UInt64 = 0
                if read(timerFD, &expirations, 8) < 0 && errno == ECANCELED { return .clockChanged }
                return .timer
            }
            if fds[2].revents != 0 {
                if drainInotify() { return .databaseChanged }
                fds[2].revents = 0
                continue
            }
        }
    }

    /// Sleeps until `instant` or a stop request, whichever comes first; true when asked to stop.
    func sleep(until instant: Instant) -> Bool {
        while true {
            let left = instant - SystemClock.now()
            if left <= 0 { return false }
            var fd = pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)
            if poll(&fd, 1, Int32(min(left, 60_000))) > 0 { return true }
        }
    }

    /// Whether SIGTERM/SIGINT arrived (checked between delivery attempts; does not consume it).
    var stopRequested: Bool {
        var fd = pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)
        return poll(&fd, 1, 0) > 0
    }

    /// Reads every pending inotify event; true when one concerns the database or its WAL.
    private func drainInotify() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var relevant = false
        while true {
            let n = read(inotifyFD, &buffer, buffer.count)
            guard n > 0 else { break }
            var offset = 0
            // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }
            while offset + 16 <= n {
                let len = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16 | Int(buffer[offset + 15]) << 24
                let mask = UInt32(buffer[offset + 4]) | UInt32(buffer[offset + 5]) << 8 | UInt32(buffer[offset + 6]) << 16 | UInt32(buffer[offset + 7]) << 24
                // Events were dropped: anything may have changed.
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + len, n)].prefix { $0 != 0 }
                if watchedNames.contains(String(decoding: nameBytes, as: UTF8.self)) { relevant = true }
                offset += 16 + len
            }
        }
        return relevant
    }
}
